// What a commit will do to live connections (GET /api/config/impact): every connection's
// first packet (its original tuple) through the running and the candidate matchers. The
// candidate's deny cuts it at the commit (rematch); a different NAT answer is reported but
// not applied (the NAT of a live connection is kept).
import { parseEntry, type ConnEntry } from '../dataplane/conntrack';
import { readOriginal, type OriginalTuple } from '../dataplane/conntrack-first';
import type { CompiledConfig } from '../eval/compiled';
import { parsePacket } from '../eval/packet';
import type { EvalResult, NatAnswer, Packet } from '../eval/types';
import { ALLOW_POLICY, BatchAnswers, PacketBatch } from '../eval/batch';
import { sessionView, type SessionView } from './view';

/** The first packet of a connection as POST /api/eval takes it; null when eval cannot (e.g. a port-less tcp entry). */
export function firstPacket(e: ConnEntry): Packet | null {
  return packetOfTuple({ protonum: e.protonum, src: e.original.src, dst: e.original.dst, sport: e.original.sport, dport: e.original.dport });
}

function packetOfTuple(o: Pick<OriginalTuple, 'protonum' | 'src' | 'dst' | 'sport' | 'dport'>): Packet | null {
  try {
    const p: Record<string, unknown> = { 'src-ip': o.src, 'dst-ip': o.dst, protocol: o.protonum };
    if (o.dport !== null) p['dst-port'] = o.dport;
    if (o.sport !== null) p['src-port'] = o.sport;
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

/** Connections judged together: evalBatchInto allocates no answer object per packet. */
const CHUNK = 512;

/**
 * Every connection through running and candidate, one at a time (add), so a listing can be
 * judged as it is read and no entry is kept but those the answer names: what the candidate
 * would cut, whose NAT would differ, counts per denying policy. First packets are judged by
 * chunks with evalBatchInto (eval's pipeline into answer slots); answer objects are built only
 * for the connections the answer names (docs/performance.md, "Session table").
 */
export class ImpactScan {
  private total = 0;
  private readonly cut: CutConnection[] = [];
  private readonly natChanged: NatChange[] = [];
  // `first`: the smallest id counted, so policies with as many connections keep the order of ids
  private readonly counts = new Map<string, { policy: number | null; reason: EvalResult['reason']; connections: number; first: number }>();
  private readonly batch = new PacketBatch(CHUNK);
  private readonly now = new BatchAnswers(CHUNK);
  private readonly next = new BatchAnswers(CHUNK);
  /** judged at the next chunk: entries, or lines of conntrack's to parse if the answer names them */
  private readonly pending: Array<ConnEntry | string> = [];

  constructor(private readonly running: CompiledConfig, private readonly candidate: CompiledConfig) {}

  /**
   * An entry, or a line of conntrack's: read for its original tuple only (readOriginal), the
   * entry parsed if the answer names it; a line in another layout is parsed at once, one that
   * is not an entry is not counted.
   */
  add(item: ConnEntry | string): void {
    if (typeof item !== 'string') return this.addPacket(item, firstPacket(item));
    const o = readOriginal(item);
    if (o) return this.addPacket(item, packetOfTuple(o));
    const e = parseEntry(item);
    if (e) this.addPacket(e, firstPacket(e));
  }

  private addPacket(entry: ConnEntry | string, p: Packet | null): void {
    this.total++;
    if (!p) return; // what POST /api/eval would refuse is not judged
    this.batch.put(this.pending.length, p);
    this.pending.push(entry);
    if (this.pending.length === CHUNK) this.judge();
  }

  /** The pending connections through both versions. */
  private judge(): void {
    const n = this.pending.length;
    if (n === 0) return;
    this.batch.length = n;
    this.candidate.evalBatchInto(this.batch, this.next);
    this.running.evalBatchInto(this.batch, this.now);
    // a line readOriginal read is an entry: parseEntry gives it
    const entry = (j: number) => { const x = this.pending[j]; return typeof x === 'string' ? parseEntry(x)! : x; };
    for (let j = 0; j < n; j++) {
      if (this.next.code[j] !== ALLOW_POLICY) this.addCut(entry(j), this.candidate.answerAt(this.next, j));
      else if (this.now.nat[j] >= 0 || this.next.nat[j] >= 0) { // else no NAT in either
        const runningNat = this.running.answerAt(this.now, j).nat;
        const candidateNat = this.candidate.answerAt(this.next, j).nat;
        if (natKey(runningNat) !== natKey(candidateNat)) this.natChanged.push({ ...sessionView(entry(j), this.running), runningNat, candidateNat });
      }
    }
    this.pending.length = 0;
  }

  private addCut(entry: ConnEntry, next: EvalResult): void {
    const deny = { policy: next.policy?.id ?? null, reason: next.reason };
    this.cut.push({ ...sessionView(entry, this.running), deniedBy: deny });
    const key = `${deny.policy}|${deny.reason}`;
    const c = this.counts.get(key) ?? { ...deny, connections: 0, first: entry.id };
    c.connections++;
    if (entry.id < c.first) c.first = entry.id;
    this.counts.set(key, c);
  }

  result(): Impact {
    this.judge();
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
