// DHCP leases shared between the two nodes of an HA pair through the cluster store (issue 39,
// item 4). The master's dnsmasq writes its lease file; this node's daemon, while its dnsmasq
// serves, publishes the file's text whenever it changed (SharedWork.put, which tells every
// instance); the other node's daemon, whose dnsmasq does not run, makes the published text its
// own lease file (through ha-services.sh, under the lock a takeover takes). So the dnsmasq a
// takeover starts reads the master's leases, as they were at most SHARE_MS before it died.
// Nothing here is on the path of a failover: with Redis or the daemon down the leases are
// not shared meanwhile (docs/ha.md says what that costs), and the pair fails over as before.
import type { Logger } from 'pino';
import type { HaControl } from '../dataplane/ha-types';
import type { SharedWork } from '../store/cluster-bus';

/** How often the serving node looks at its lease file (a lease is shared within this). */
export const SHARE_MS = 1000;
/** How often the other node reads the shared leases without a notice (a notice lost in a Redis outage). */
const READ_MS = 10_000;
/** How long the store keeps the shared leases (longer than any lease a pool gives: it is rewritten at each change). */
const KEEP_MS = 30 * 24 * 3600_000;
const WHAT = 'ha-leases';

interface Shared {
  node: string;
  at: number;
  text: string;
}

export class HaLeaseShare {
  private published: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastRead = 0;
  private busy = false;
  /** a notice came: read the shared leases at the next step (one may be running now) */
  private noticed = false;

  constructor(
    private readonly ha: HaControl,
    private readonly work: SharedWork,
    onNotice: (listener: (what: string) => void) => void,
    private readonly node: () => string,
    private readonly log: Logger,
  ) {
    onNotice((what) => {
      if (what !== WHAT) return;
      this.noticed = true;
      void this.run(() => this.tick());
    });
  }

  start(): void {
    this.timer = setInterval(() => void this.run(() => this.tick()), SHARE_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One step at a time (a slow store must not pile up steps); a failure is logged, the next tick tries again. */
  private async run(step: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await step();
    } catch (e) {
      this.log.debug({ err: String(e) }, 'HA lease sharing: step failed (retried)');
    } finally {
      this.busy = false;
    }
    // a notice that came during the step: its leases are taken now, not at the next tick
    if (this.noticed && !this.ha.leaseState().serving) await this.run(() => this.take());
  }

  private async tick(): Promise<void> {
    const s = this.ha.leaseState();
    if (!s.enabled) return;
    if (!s.serving) {
      this.published = null; // publish again when this node serves next
      if (this.noticed || Date.now() - this.lastRead >= READ_MS) await this.take();
      return;
    }
    if (s.text === this.published) return;
    const value: Shared = { node: this.node(), at: Date.now(), text: s.text };
    await this.work.put(WHAT, JSON.stringify(value), KEEP_MS);
    this.published = s.text;
  }

  /** The master's shared leases become this node's lease file (not while this node serves, nor its own). */
  private async take(): Promise<void> {
    this.lastRead = Date.now();
    this.noticed = false;
    const s = this.ha.leaseState();
    if (!s.enabled || s.serving) return;
    const raw = await this.work.get(WHAT);
    if (raw === null) return;
    const shared = JSON.parse(raw) as Shared;
    if (shared.node === this.node() || shared.text === s.text) return;
    await this.ha.importLeases(shared.text);
    this.log.info({ from: shared.node, leases: shared.text.split('\n').filter((l) => l.trim()).length }, 'HA: DHCP leases of the master taken');
  }
}
