// What a commit will do to live connections (GET /api/config/impact): every connection's
// first packet (its original tuple) through the running and the candidate matchers. The
// candidate's deny cuts it at the commit (rematch); a different NAT answer is reported but
// not applied (the NAT of a live connection is kept).
import type { ConnEntry } from '../dataplane/conntrack';
import type { CompiledConfig } from '../eval/compiled';
import { parsePacket } from '../eval/packet';
import type { EvalResult, NatAnswer, Packet } from '../eval/types';
import { sessionView, type SessionView } from './view';

/** The first packet of a connection as POST /api/eval takes it; null when eval cannot (e.g. a port-less tcp entry). */
export function firstPacket(e: ConnEntry): Packet | null {
  try {
    const p: Record<string, unknown> = { 'src-ip': e.original.src, 'dst-ip': e.original.dst, protocol: e.protonum };
    if (e.original.dport !== null) p['dst-port'] = e.original.dport;
    if (e.original.sport !== null) p['src-port'] = e.original.sport;
    return parsePacket(p);
  } catch {
    return null;
  }
}

/** The connections `compiled` denies: each with the answer that denies it. */
export function deniedBy(entries: readonly ConnEntry[], compiled: CompiledConfig): Array<{ entry: ConnEntry; answer: EvalResult }> {
  const out: Array<{ entry: ConnEntry; answer: EvalResult }> = [];
  for (const entry of entries) {
    const p = firstPacket(entry);
    if (!p) continue;
    const answer = compiled.eval(p);
    if (answer.action === 'deny') out.push({ entry, answer });
  }
  return out;
}

export interface CutConnection extends SessionView {
  deniedBy: { policy: number | null; reason: EvalResult['reason'] };
}

export interface NatChange extends SessionView {
  runningNat: NatAnswer | null;
  candidateNat: NatAnswer | null;
}

export interface Impact {
  total: number;
  cut: CutConnection[];
  natChanged: NatChange[];
  perPolicy: Array<{ policy: number | null; reason: EvalResult['reason']; connections: number }>;
}

const natKey = (n: NatAnswer | null) => (n ? `${n.id}|${n.type}|${n.translatedIP}|${n.translatedPort}` : '');

/** Every connection through running and candidate: what the candidate would cut, whose NAT would differ, counts per denying policy. */
export function impactOf(entries: readonly ConnEntry[], running: CompiledConfig, candidate: CompiledConfig): Impact {
  const cut: CutConnection[] = [];
  const natChanged: NatChange[] = [];
  // `first`: the smallest id counted, so policies with as many connections keep the order of ids
  const counts = new Map<string, { policy: number | null; reason: EvalResult['reason']; connections: number; first: number }>();
  for (const entry of entries) {
    const p = firstPacket(entry);
    if (!p) continue;
    const now = running.eval(p);
    const next = candidate.eval(p);
    if (next.action === 'deny') {
      const deny = { policy: next.policy?.id ?? null, reason: next.reason };
      cut.push({ ...sessionView(entry, running), deniedBy: deny });
      const key = `${deny.policy}|${deny.reason}`;
      const c = counts.get(key) ?? { ...deny, connections: 0, first: entry.id };
      c.connections++;
      if (entry.id < c.first) c.first = entry.id;
      counts.set(key, c);
    } else if (natKey(now.nat) !== natKey(next.nat)) {
      natChanged.push({ ...sessionView(entry, running), runningNat: now.nat, candidateNat: next.nat });
    }
  }
  const byId = (a: SessionView, b: SessionView) => Number(a.id) - Number(b.id); // the listing is in the kernel's order
  return { total: entries.length, cut: cut.sort(byId), natChanged: natChanged.sort(byId), perPolicy: [...counts.values()].sort((a, b) => b.connections - a.connections || a.first - b.first).map(({ first: _, ...c }) => c) };
}
