// What a session filter lets the listing leave out before the daemon reads it: conntrack
// selects by mark in the kernel (0.02 s instead of 0.45 s of CPU at 100,000 connections) and
// by protocol, original addresses, ports and TCP state before it prints; a text test of each
// printed line skips the parse of lines that cannot match (docs/performance.md, "Session
// table"). Each is a necessary condition of the filter, never more: the filter (entryMatcher)
// still decides, so the answer is the same as from the whole table.
import { formatIp } from '../config/net';
import type { Narrowing } from '../dataplane/conntrack';
import { readOriginal } from '../dataplane/conntrack-first';
import type { CompiledConfig } from '../eval/compiled';
import { parsePacket } from '../eval/packet';
import type { SessionFilter } from './view';

/** Protocols whose name conntrack's -p takes (what it prints for them, so the filter's name). */
const NAMED = new Set(['tcp', 'udp', 'icmp', 'icmpv6', 'sctp', 'dccp', 'gre']);
/** Protocols whose entries have ports, which conntrack's --sport/--dport then select. */
const PORTED = new Set(['tcp', 'udp', 'sctp', 'dccp']);
const POLICY_MASK = 0xfffff; // marks.ts: the policy bits

/** The families whose entries can match: an address or an ICMP version names one. */
function familiesOf(f: SessionFilter): Array<'ipv4' | 'ipv6'> {
  const family = f.address?.family ?? f.src?.family ?? f.dst?.family ?? (f.protocol === 'icmp' ? 4 : f.protocol === 'icmpv6' ? 6 : null);
  const other = [f.address, f.src, f.dst].some((a) => a && a.family !== family);
  if (other) return []; // two families asked at once: nothing matches
  return family === 4 ? ['ipv4'] : family === 6 ? ['ipv6'] : ['ipv4', 'ipv6'];
}

/** conntrack's own selection: the kernel's for the mark, its printing's for the rest. */
function conntrackArgs(f: SessionFilter): string[] {
  const args: string[] = [];
  if (f.policy !== undefined && f.policy > 0 && f.policy <= POLICY_MASK) args.push('--mark', `${f.policy}/${POLICY_MASK}`);
  if (f.src) args.push('-s', formatIp(f.src.family, f.src.bytes));
  if (f.dst) args.push('-d', formatIp(f.dst.family, f.dst.bytes));
  if (f.protocol === undefined || !NAMED.has(f.protocol)) return args;
  args.push('-p', f.protocol);
  if (PORTED.has(f.protocol)) {
    if (f.sport !== undefined) args.push('--sport', String(f.sport));
    if (f.dport !== undefined) args.push('--dport', String(f.dport));
  }
  if (f.protocol === 'tcp' && f.state !== undefined) args.push('--state', f.state);
  return args;
}

/**
 * The texts a line the filter selects must hold. conntrack prints an IPv4 address in dotted
 * quads after `=` and before a space, a port as `port=N ` and the state as ` STATE `; an IPv4
 * prefix's whole leading octets are text every address in it starts with. (IPv6 texts may be
 * written more than one way: not used.)
 */
function lineTexts(f: SessionFilter): string[] {
  const texts: string[] = [];
  const a = f.address;
  if (a && a.family === 4 && a.prefix >= 8) {
    const octets = Math.floor(a.prefix / 8);
    texts.push(`=${[...a.bytes.slice(0, octets)].join('.')}${octets === 4 ? ' ' : '.'}`);
  }
  if (f.src?.family === 4) texts.push(`=${formatIp(f.src.family, f.src.bytes)} `);
  if (f.dst?.family === 4) texts.push(`=${formatIp(f.dst.family, f.dst.bytes)} `);
  for (const p of [f.port, f.sport, f.dport]) if (p !== undefined) texts.push(`port=${p} `);
  if (f.state !== undefined) texts.push(` ${f.state} `);
  if (f.id !== undefined) texts.push(`id=${f.id}`);
  return texts;
}

/**
 * ?zone=: the zones of the line's connection (its original source, its reply's source and
 * source port, as entryMatcher reads them from the entry) by the running version's zonesOf,
 * read without building the entry; a line in another layout is kept for the filter to judge.
 */
function zoneTest(compiled: CompiledConfig, zone: number): (line: string) => boolean {
  return (line) => {
    if (zone <= 0) return false; // no such zone: the filter selects nothing
    const t = readOriginal(line);
    if (!t) return true;
    try {
      const [src, dst] = compiled.zonesOf(parsePacket({ 'src-ip': t.src, 'dst-ip': t.replySrc, protocol: t.protonum, 'dst-port': t.replySport ?? 0 }));
      return src === zone || dst === zone;
    } catch {
      return false; // addresses eval cannot take: no zone, as entryMatcher finds
    }
  };
}

function lineTest(texts: readonly string[], zone: ((line: string) => boolean) | null): Narrowing['line'] {
  if (zone) {
    const text = lineTest(texts, null);
    return text ? (line) => text(line) && zone(line) : zone;
  }
  if (texts.length === 0) return null;
  if (texts.length === 1) {
    const [t] = texts;
    return (line) => line.includes(t);
  }
  return (line) => texts.every((t) => line.includes(t));
}

/**
 * The listing a filter needs: what conntrack and a line's text can leave out, and with the
 * running version (`compiled`) the lines outside a ?zone=. (A listing held for the requests
 * after it is forgotten at every apply, so its zones stay the running version's.)
 */
export function narrowingOf(f: SessionFilter, compiled: CompiledConfig | null = null): Narrowing {
  const families = familiesOf(f);
  const args = conntrackArgs(f);
  const texts = lineTexts(f);
  const zone = f.zone !== undefined && compiled ? zoneTest(compiled, compiled.zoneIndex(f.zone)) : null;
  const key = JSON.stringify([families, args, texts, zone ? f.zone : null]);
  if (families.length === 2 && args.length === 0 && texts.length === 0 && !zone) return { families, args, line: null, key: '' };
  return { families, args, line: lineTest(texts, zone), key };
}
