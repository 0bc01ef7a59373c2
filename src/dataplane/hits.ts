// Hits with times: the kernel's counters of every policy and NAT rule, sampled every few
// seconds, turned into totals with the time of the first and the last hit. The totals and
// times are kept in a file of the data plane (FW_DATA_DIR/dataplane/hits.json), so they
// survive commits (the counters carry over) and restarts (the file), and a reset zeroes them.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { PolicyCounter } from './nft';

export interface RuleCounters {
  policies: Map<number, PolicyCounter>;
  nat: Map<number, PolicyCounter>;
  /** issue 41: local policies (local_N); absent where a reader does not count them */
  local?: Map<number, PolicyCounter>;
}

export type RuleKind = 'policy' | 'nat';

export interface HitRecord {
  kind: RuleKind;
  id: number;
  hits: number;
  bytes: number;
  firstHitAt: number | null; // unix ms
  lastHitAt: number | null;
}

interface Stored extends HitRecord {
  /** the kernel counter at the last sample: the next sample adds what it grew by */
  seen: PolicyCounter;
}

const key = (kind: RuleKind, id: number) => `${kind}:${id}`;

export class HitTracker {
  private readonly rules = new Map<string, Stored>();
  private sampledAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sampling: Promise<void> | null = null;

  constructor(private readonly file: string, private readonly read: () => Promise<RuleCounters>, private readonly log: Logger) {
    this.load();
  }

  private load(): void {
    try {
      const saved = JSON.parse(fs.readFileSync(this.file, 'utf8')) as { rules: Stored[]; sampledAt: number | null };
      for (const r of saved.rules) this.rules.set(key(r.kind, r.id), r);
      this.sampledAt = saved.sampledAt;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err: String(e), file: this.file }, 'hit times: unreadable file, starting anew');
    }
  }

  private save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ sampledAt: this.sampledAt, rules: [...this.rules.values()] }));
    fs.renameSync(tmp, this.file);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sample().catch((e: unknown) => this.log.debug({ err: String(e) }, 'hit sample failed')), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the counters once and adds what each grew by (one sample at a time). */
  sample(): Promise<void> {
    this.sampling ??= this.read().then((c) => this.add(c)).finally(() => { this.sampling = null; });
    return this.sampling;
  }

  private add(c: RuleCounters): void {
    const now = Date.now();
    for (const [kind, counters] of [['policy', c.policies], ['nat', c.nat]] as const) {
      for (const [id, cur] of counters) {
        const k = key(kind, id);
        const r = this.rules.get(k) ?? { kind, id, hits: 0, bytes: 0, firstHitAt: null, lastHitAt: null, seen: { packets: 0, bytes: 0 } };
        // a counter below the last sample began again (the rule was deleted and made anew)
        const grew = cur.packets >= r.seen.packets ? cur.packets - r.seen.packets : cur.packets;
        const grewBytes = cur.bytes >= r.seen.bytes ? cur.bytes - r.seen.bytes : cur.bytes;
        if (grew > 0) {
          r.hits += grew;
          r.bytes += grewBytes;
          r.firstHitAt ??= now;
          r.lastHitAt = now;
        }
        r.seen = cur;
        this.rules.set(k, r);
      }
    }
    this.sampledAt = now;
    this.save();
  }

  /** Totals and times (after a fresh sample); rules never counted are absent. */
  async records(): Promise<{ sampledAt: number | null; rules: HitRecord[] }> {
    await this.sample();
    return { sampledAt: this.sampledAt, rules: [...this.rules.values()].map(({ seen: _seen, ...r }) => r) };
  }

  /** Zeroes the totals and times of every rule: counting starts again from now. */
  async reset(): Promise<void> {
    await this.sample();
    for (const r of this.rules.values()) Object.assign(r, { hits: 0, bytes: 0, firstHitAt: null, lastHitAt: null });
    this.save();
  }
}
