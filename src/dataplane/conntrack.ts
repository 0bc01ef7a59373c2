// The kernel's connection tracking table of the data plane's namespace, through Debian's
// `conntrack` tool (conntrack-tools): listed for the session table, deleted by tuple for
// DELETE /api/sessions, and what rematch at commit cut is swept away here.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CommandError, type Host } from './host';
import { CUT_MARK } from './marks';

/** One direction of a connection as conntrack prints it (ports null without tcp/udp/sctp/dccp). */
export interface FlowTuple {
  src: string;
  dst: string;
  sport: number | null;
  dport: number | null;
  packets: number;
  bytes: number;
}

export interface ConnEntry {
  /** the kernel's id of the entry (conntrack -o id) */
  id: number;
  family: 4 | 6;
  protocol: string; // tcp, udp, icmp, icmpv6, unknown ...
  protonum: number;
  /** seconds left before the entry expires */
  timeout: number;
  /** the TCP (or SCTP, DCCP) state; null for protocols without one */
  state: string | null;
  original: FlowTuple;
  reply: FlowTuple;
  /** ICMP type, code and id of the original direction */
  icmp: { type: number; code: number; id: number } | null;
  mark: number;
  /** seconds since the entry was created (nf_conntrack_timestamp); null when unknown */
  age: number | null;
  assured: boolean;
  unreplied: boolean;
}

const TUPLE_KEYS = new Set(['src', 'dst', 'sport', 'dport', 'type', 'code', 'id', 'packets', 'bytes']);

function emptyTuple(): FlowTuple {
  return { src: '', dst: '', sport: null, dport: null, packets: 0, bytes: 0 };
}

/** The head's fields before the tuples: family name and number, protocol name and number, timeout. */
const HEAD_FIELDS = 5;

/**
 * One line of `conntrack -L -o extended,id,timestamp`; null when it is not an entry. Read
 * token by token with indexOf (no regular expression, no array of tokens): a listing of
 * 100,000 connections is read on every GET /api/sessions (docs/performance.md).
 */
export function parseEntry(line: string): ConnEntry | null {
  const n = line.length;
  let pos = 0;
  let field = 0;
  const head: string[] = [];
  let e: ConnEntry | null = null;
  let phase: 'head' | 'original' | 'reply' | 'meta' = 'head';
  const icmp = { type: -1, code: -1, id: -1 };
  while (pos < n) {
    while (pos < n && (line.charCodeAt(pos) === 32 || line.charCodeAt(pos) === 9)) pos++;
    if (pos >= n) break;
    let end = line.indexOf(' ', pos);
    if (end < 0) end = n;
    const tok = line.slice(pos, end);
    pos = end + 1;
    if (field < HEAD_FIELDS) {
      if (field === 0 && tok !== 'ipv4' && tok !== 'ipv6') return null;
      head.push(tok);
      if (++field === HEAD_FIELDS) {
        e = {
          id: 0, family: head[0] === 'ipv4' ? 4 : 6, protocol: head[2], protonum: Number(head[3]), timeout: Number(head[4]),
          state: null, original: emptyTuple(), reply: emptyTuple(), icmp: null, mark: 0, age: null, assured: false, unreplied: false,
        };
      }
      continue;
    }
    const entry = e!;
    const eq = tok.indexOf('=');
    if (eq < 0) {
      if (tok === '[ASSURED]') entry.assured = true;
      else if (tok === '[UNREPLIED]') entry.unreplied = true;
      else if (phase === 'head' && /^[A-Z_]+$/.test(tok)) entry.state = tok;
      continue;
    }
    const key = tok.slice(0, eq);
    const value = tok.slice(eq + 1);
    if (key === 'src' && phase !== 'meta') phase = phase === 'head' ? 'original' : 'reply';
    else if (phase !== 'head' && !TUPLE_KEYS.has(key)) phase = 'meta';
    if (phase === 'original' || phase === 'reply') setTupleField(phase === 'original' ? entry.original : entry.reply, key, value, phase === 'original' ? icmp : null);
    else if (key === 'mark') entry.mark = Number(value);
    else if (key === 'delta-time') entry.age = Number(value);
    else if (key === 'id') entry.id = Number(value);
  }
  if (!e) return null;
  if (icmp.type >= 0) e.icmp = icmp;
  return e.original.src && e.reply.src ? e : null;
}

function setTupleField(tuple: FlowTuple, key: string, value: string, icmp: { type: number; code: number; id: number } | null): void {
  switch (key) {
    case 'src': tuple.src = value; break;
    case 'dst': tuple.dst = value; break;
    case 'sport': tuple.sport = Number(value); break;
    case 'dport': tuple.dport = Number(value); break;
    case 'packets': tuple.packets = Number(value); break;
    case 'bytes': tuple.bytes = Number(value); break;
    default: if (icmp && (key === 'type' || key === 'code' || key === 'id')) icmp[key] = Number(value);
  }
}

/**
 * What a listing may leave out because the caller's filter would drop it anyway: conntrack's
 * own selection (`args`, e.g. `--mark P/0xfffff`, `-p tcp`; the mark is tested in the kernel,
 * the rest before conntrack prints the entry) and a test of the printed line before it is
 * parsed (a necessary condition of the filter, e.g. the text "=10.5." for 10.5.0.0/16).
 * Every entry the filter selects is kept; the caller still applies its filter.
 */
export interface Narrowing {
  families: ReadonlyArray<'ipv4' | 'ipv6'>;
  args: readonly string[];
  line: ((line: string) => boolean) | null;
  /** equal for two narrowings that list the same entries (the cache's key; '' for every entry) */
  key: string;
}

export const EVERY_ENTRY: Narrowing = { families: ['ipv4', 'ipv6'], args: [], line: null, key: '' };

/**
 * Each line of one family's listing as conntrack prints it, `args` narrowing it (it exits 0
 * and writes "N flow entries have been shown" to stderr; a namespace without conntrack lists
 * nothing).
 */
function listLines(host: Host, family: 'ipv4' | 'ipv6', args: readonly string[], onLine: (line: string) => void): Promise<void> {
  return host.execLines('conntrack', ['-L', '-f', family, ...args, '-o', 'extended,id,timestamp'], onLine);
}

/** One family's entries that `n` keeps. */
async function listFamily(host: Host, family: 'ipv4' | 'ipv6', n: Narrowing, sink: (e: ConnEntry) => void): Promise<void> {
  const test = n.line;
  await listLines(host, family, n.args, (line) => {
    if (test && !test(line)) return;
    const e = parseEntry(line);
    if (e) sink(e);
  });
}

/**
 * The entries of the table (all, or a superset of what a filter selects), in the kernel's
 * order: a caller sorts what it keeps (sorting 100,000 entries by id cost 50-60 ms).
 */
export async function listEntries(host: Host, n: Narrowing = EVERY_ENTRY): Promise<ConnEntry[]> {
  const lists = await Promise.all(n.families.map(async (family) => {
    const out: ConnEntry[] = [];
    await listFamily(host, family, n, (e) => out.push(e));
    return out;
  }));
  return lists.length === 1 ? lists[0] : lists.flat();
}

/**
 * Each line of the whole table's listing handed to `fn` as it is read, unparsed, none kept: a
 * scan of every connection (the impact) holds no listing of 100,000 entries, runs beside
 * conntrack's printing, and parses what it needs (lines that are not entries come too).
 */
export async function forEachLine(host: Host, fn: (line: string) => void): Promise<void> {
  await Promise.all(EVERY_ENTRY.families.map((family) => listLines(host, family, EVERY_ENTRY.args, fn)));
}

/** By the kernel's id: the order of pages and of the impact's lists. */
export const byId = (a: ConnEntry, b: ConnEntry) => a.id - b.id;

/** The conntrack options that select exactly this entry (its original tuple). */
function tupleOptions(e: ConnEntry): string[] {
  const o = ['-f', e.family === 4 ? 'ipv4' : 'ipv6', '-p', String(e.protonum), '-s', e.original.src, '-d', e.original.dst];
  if (e.original.sport !== null) o.push('--sport', String(e.original.sport));
  if (e.original.dport !== null) o.push('--dport', String(e.original.dport));
  if (e.icmp) o.push('--icmp-type', String(e.icmp.type), '--icmp-code', String(e.icmp.code), '--icmp-id', String(e.icmp.id));
  return o;
}

/**
 * Deletes these entries in one `conntrack -R FILE` batch (a file in `dir`: conntrack cannot
 * read a batch from a socket, which is what a child's stdin is); how many the kernel deleted.
 */
export async function deleteByTuple(host: Host, dir: string, entries: readonly ConnEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `conntrack-delete-${randomBytes(6).toString('hex')}.batch`);
  fs.writeFileSync(file, `${entries.map((e) => ['-D', ...tupleOptions(e)].join(' ')).join('\n')}\n`);
  try {
    return countDeleted(await host.exec('conntrack', ['-R', file]));
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** `conntrack -D` exits 1 with this on stderr when no entry matched: not a failure. */
const NONE_DELETED = /0 flow entries have been deleted/;

export function countDeleted(stdout: string): number {
  return stdout.split('\n').filter((l) => l.trim() !== '').length;
}

/** Deletes the connections the current version refused when they were judged again (marks.ts). */
export async function deleteCut(host: Host): Promise<number> {
  let n = 0;
  for (const family of ['ipv4', 'ipv6']) {
    try {
      n += countDeleted(await host.exec('conntrack', ['-D', '-f', family, '--mark', String(CUT_MARK)]));
    } catch (e) {
      if (!(e instanceof CommandError && NONE_DELETED.test(e.stderr))) throw e;
    }
  }
  return n;
}
