// Commit and validate warnings (grouped by the API: "policies 1, 2 ... (2000) are shadowed by
// policy 2001") in a collapsible, scrollable panel styled as a warning, each policy id a link
// to that rule in the policy table (filtered to it).
import { Link } from './ui';

/** A warning line with its policy ids as links; counts ("and 1990 more", "(2000)") stay text. */
function linked(line: string) {
  const parts = line.split(/(\d+)/);
  return parts.map((p, i) => {
    const isId = i % 2 === 1 && !parts[i - 1].endsWith('(') && !/^ more/.test(parts[i + 1] ?? '') && /(polic(y|ies) |, )$/.test(parts[i - 1]);
    return isId ? <Link key={i} href={`/policies?filter=%23${p}%20`}>{p}</Link> : p;
  });
}

export function WarningPanel(p: { title: string; text: string | undefined }) {
  if (!p.text) return null;
  const lines = p.text.split('\n');
  return (
    <details class="warnings" open>
      <summary>{p.title}: {lines.length} warning{lines.length === 1 ? '' : 's'}</summary>
      <ul>{lines.map((l, i) => <li key={i}>{linked(l)}</li>)}</ul>
    </details>
  );
}
