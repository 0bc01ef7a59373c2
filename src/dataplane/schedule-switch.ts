// Rules switched on and off at their schedule's edges and at their expiry, without a commit
// (issue 40 item 4, docs/schedules.md). The kernel is written from the document with the
// rules that are off at that moment disabled (config/schedule-gate.ts); each second the rules
// off now are compared with those off when the kernel was written, and on a change the held
// version is written again (an incremental update: only the chains of the switched rules
// change, counters stay). nft's `meta hour`/`meta day` were not used: nft turns a local hour
// into UTC with the offset of the day the rule is loaded, so a daylight saving change or a
// zone other than the host's would shift the window, and a one-time window or an expiry has
// no such expression.
import type { Logger } from 'pino';
import type { ConfigDoc } from '../config/types';
import { gateAt, gatedDoc, isTimed } from '../config/schedule-gate';

const TICK_MS = 1000;

export interface Held {
  doc: ConfigDoc;
  version: number;
}

export class ScheduleSwitch {
  /** which rules were off in what the kernel holds (null: not written yet) */
  private written: string | null = null;
  private pending: string | null = null;
  private busy = false;
  private readonly timer: NodeJS.Timeout;
  private readonly timed = new WeakMap<ConfigDoc, boolean>();

  constructor(private readonly held: () => Held | null, private readonly rewrite: (h: Held) => Promise<void>, private readonly log: Logger) {
    this.timer = setInterval(() => void this.tick(Date.now()), TICK_MS);
    this.timer.unref();
  }

  /** `doc` as the kernel is to hold it at `now`; written() records it once it is held. */
  gate(doc: ConfigDoc, now: number): ConfigDoc {
    if (!this.hasTimed(doc)) {
      this.pending = '';
      return doc;
    }
    const gate = gateAt(doc, now);
    this.pending = gate.key;
    return gatedDoc(doc, gate);
  }

  /** The kernel holds the document the last gate() made. */
  markHeld(): void {
    this.written = this.pending;
  }

  private hasTimed(doc: ConfigDoc): boolean {
    let has = this.timed.get(doc);
    if (has === undefined) {
      has = doc.policies.some(isTimed) || doc.localPolicies.some(isTimed);
      this.timed.set(doc, has);
    }
    return has;
  }

  private async tick(now: number): Promise<void> {
    const h = this.held();
    if (!h || this.busy || !this.hasTimed(h.doc)) return;
    const key = gateAt(h.doc, now).key;
    if (key === this.written) return;
    this.busy = true;
    try {
      this.log.info({ version: h.version, off: key }, 'rules switched by schedule or expiry');
      await this.rewrite(h);
    } catch (e) {
      this.log.error({ err: e instanceof Error ? e.message : String(e) }, 'switching rules by schedule failed');
    } finally {
      this.busy = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
