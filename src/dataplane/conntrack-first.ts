// The original direction of a conntrack line, read without building the entry: the impact
// judges every live connection by its first packet and needs the whole entry only for those
// its answer names (2 % in the benchmark), so 100,000 entries' objects were most of its parse
// (docs/performance.md, "Session table"). Read only from a line in the layout conntrack
// prints; anything else is left to parseEntry (null here), so for every line this reads,
// parseEntry gives an entry with the same original tuple.

/** What a first packet needs of an entry (firstPacket), and what its zones need (the reply's source and source port). */
export interface OriginalTuple {
  protonum: number;
  src: string;
  dst: string;
  sport: number | null;
  dport: number | null;
  replySrc: string;
  replySport: number | null;
}

/** The answer, reused (reading is synchronous): no object per line. */
const scratch: OriginalTuple = { protonum: 0, src: '', dst: '', sport: null, dport: null, replySrc: '', replySport: null };

/** The keys parseEntry reads as a tuple's: any other ends the tuples. */
const TUPLE_KEYS = new Set(['src', 'dst', 'sport', 'dport', 'type', 'code', 'id', 'packets', 'bytes']);

/** Keys of the original tuple that do not change what a first packet is. */
const IGNORED = new Set(['type', 'code', 'id', 'packets', 'bytes']);

function skipSpaces(line: string, pos: number): number {
  while (pos < line.length && line.charCodeAt(pos) === 32) pos++;
  return pos;
}

/**
 * The original tuple of `line` (`conntrack -L -o extended,...`), or null when the line is not
 * in the usual layout or is not an entry: a head of five tokens (ipv4 or ipv6 first), then a
 * `src=` token, keys of a tuple up to the reply's `src=`, no other `src=` after it, and no
 * tab. parseEntry reads such a line into an entry with these original fields.
 */
export function readOriginal(line: string): OriginalTuple | null {
  if (line.indexOf('\t') >= 0) return null;
  let pos = 0;
  let protonum = 0;
  for (let field = 0; field < 5; field++) {
    pos = skipSpaces(line, pos);
    const end = line.indexOf(' ', pos);
    if (end < 0) return null;
    if (field === 0 && !(end - pos === 4 && (line.startsWith('ipv4', pos) || line.startsWith('ipv6', pos)))) return null;
    if (field === 3) protonum = Number(line.slice(pos, end));
    pos = end + 1;
  }
  // tokens before the first src= (a state, flags) do not touch the tuples
  const first = line.indexOf(' src=', pos - 1);
  if (first < 0) return null;
  const o = scratch;
  o.protonum = protonum;
  o.src = '';
  o.dst = '';
  o.sport = null;
  o.dport = null;
  o.replySrc = '';
  o.replySport = null;
  pos = first + 1;
  let reply = false;
  for (let tuple = 0; ; tuple++) {
    pos = skipSpaces(line, pos);
    if (pos >= line.length) return null; // no reply tuple: not an entry
    let end = line.indexOf(' ', pos);
    if (end < 0) end = line.length;
    const eq = line.indexOf('=', pos);
    if (eq < 0 || eq >= end) { // a flag or a word: parseEntry ignores it past the head
      pos = end + 1;
      continue;
    }
    const key = line.slice(pos, eq);
    const value = line.slice(eq + 1, end);
    pos = end + 1;
    if (key === 'src') {
      if (tuple > 0) {
        reply = value !== '';
        o.replySrc = value;
        break;
      }
      o.src = value;
    } else if (key === 'dst') o.dst = value;
    else if (key === 'sport') o.sport = Number(value);
    else if (key === 'dport') o.dport = Number(value);
    else if (!IGNORED.has(key)) return null; // parseEntry would leave the tuples here
  }
  if (!reply || o.src === '' || line.indexOf(' src=', pos - 1) >= 0) return null;
  readReplyPort(line, pos, o);
  return o;
}

/** The reply's source port: its last sport= before the first key that is not a tuple's (as parseEntry reads it). */
function readReplyPort(line: string, pos: number, o: OriginalTuple): void {
  while (pos < line.length) {
    pos = skipSpaces(line, pos);
    let end = line.indexOf(' ', pos);
    if (end < 0) end = line.length;
    const eq = line.indexOf('=', pos);
    if (eq >= 0 && eq < end) {
      const key = line.slice(pos, eq);
      if (!TUPLE_KEYS.has(key)) return;
      if (key === 'sport') o.replySport = Number(line.slice(eq + 1, end));
    }
    pos = end + 1;
  }
}
