// A settings file in the syntax of systemd's EnvironmentFile= (systemd.exec(5)), as the
// packaged unit reads /etc/fwd/fwd.env: the daemon reads it again itself on SIGHUP
// (reload.ts), and must read what systemd read. One assignment per line, KEY=VALUE; lines
// starting with # or ; are comments; a value in double quotes may hold escaped \" \\ \$ \`
// and continue over lines, one in single quotes is taken as it is; an unquoted value ends at
// the line's end (trailing blanks dropped), a backslash before the line's end continues it.

const KEY = /([A-Za-z_][A-Za-z0-9_]*)[ \t]*=/y;

/** The assignments of `text`, in order (a name given twice: the last wins). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lineEnd = (from: number) => (text.indexOf('\n', from) < 0 ? text.length : text.indexOf('\n', from));
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    KEY.lastIndex = i;
    const m = text[i] === '#' || text[i] === ';' ? null : KEY.exec(text);
    if (!m) {
      i = lineEnd(i); // a comment, or not an assignment (systemd skips it with a warning)
      continue;
    }
    const [value, end] = readValue(text, KEY.lastIndex);
    out[m[1]] = value;
    i = end;
  }
  return out;
}

/**
 * The value starting at `i` and where it ends, by systemd's states (env-file.c): PRE_VALUE
 * skips blanks and opens a quote; VALUE takes characters to the line's end (a quote there is
 * a character, trailing blanks are dropped); after a closing quote it is PRE_VALUE again.
 */
function readValue(text: string, i: number): [string, number] {
  let value = '';
  let state: 'pre' | 'value' | "'" | '"' = 'pre';
  let blanksFrom = -1; // where the trailing blanks of an unquoted part begin
  for (const n = text.length; i < n; i++) {
    const c = text[i];
    if (state === "'" || state === '"') {
      if (c === state) state = 'pre';
      else if (state === '"' && c === '\\' && i + 1 < n) {
        const e = text[++i];
        if (e === '\n') continue; // a line continued
        value += '"\\$`'.includes(e) ? e : `\\${e}`;
      } else value += c;
      continue;
    }
    if (c === '\n') break;
    if (state === 'pre' && (c === "'" || c === '"')) {
      state = c;
      continue;
    }
    if (state === 'pre' && (c === ' ' || c === '\t' || c === '\r')) continue;
    state = 'value';
    if (c === '\\' && i + 1 < n) {
      const e = text[++i];
      blanksFrom = -1;
      if (e !== '\n') value += e;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      if (blanksFrom < 0) blanksFrom = value.length;
    } else blanksFrom = -1;
    value += c;
  }
  return [blanksFrom >= 0 ? value.slice(0, blanksFrom) : value, i];
}
