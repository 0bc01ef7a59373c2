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

/**
 * Every connection through running and candidate, one at a time (add), so a listing can be
 * judged as it is read and no entry is kept but those the answer names: what the candidate
 * would cut, whose NAT would differ, counts per denying policy.
 */
export class ImpactScan {
  private total = 0;
  private readonly cut: CutConnection[] = [];
  private readonly natChanged: NatChange[] = [];
  // `first`: the smallest id counted, so policies with as many connections keep the order of ids
  private readonly counts = new Map<string, { policy: number | null; reason: EvalResult['reason']; connections: number; first: number }>();

  constructor(private readonly running: CompiledConfig, private readonly candidate: CompiledConfig) {}

  add(entry: ConnEntry): void {
    this.total++;
    const p = firstPacket(entry);
    if (!p) return;
    const next = this.candidate.eval(p);
    if (next.action === 'deny') {
      const deny = { policy: next.policy?.id ?? null, reason: next.reason };
      this.cut.push({ ...sessionView(entry, this.running), deniedBy: deny });
      const key = `${deny.policy}|${deny.reason}`;
      const c = this.counts.get(key) ?? { ...deny, connections: 0, first: entry.id };
      c.connections++;
      if (entry.id < c.first) c.first = entry.id;
      this.counts.set(key, c);
      return;
    }
    const candidateNat = next.nat; // eval's answers are shared objects: read before the next eval
    const now = this.running.eval(p);
    if (natKey(now.nat) !== natKey(candidateNat)) {
      this.natChanged.push({ ...sessionView(entry, this.running), runningNat: now.nat, candidateNat });
    }
  }

  result(): Impact {
    const byId = (a: SessionView, b: SessionView) => Number(a.id) - Number(b.id); // listings are in the kernel's order
    const perPolicy = [...this.counts.values()].sort((a, b) => b.connections - a.connections || a.first - b.first).map(({ first: _, ...c }) => c);
    return { total: this.total, cut: this.cut.sort(byId), natChanged: this.natChanged.sort(byId), perPolicy };
  }
}

/** Every connection of a listing through running and candidate (ImpactScan). */
export function impactOf(entries: readonly ConnEntry[], running: CompiledConfig, candidate: CompiledConfig): Impact {
  const scan = new ImpactScan(running, candidate);
  for (const entry of entries) scan.add(entry);
  return scan.result();
}
