// The instances serving one firewall. Each API instance registers itself in the store with a
// heartbeat (its id, address and the running version it serves); a commit answers once every
// live instance serves the new version. On the embedded store there is one node: this one.
import os from 'node:os';
import type { Logger } from 'pino';
import type { ClusterBus } from '../store/cluster-bus';
import type { DataPlaneStatus } from '../dataplane/types';
import type { NodeAuth } from './node-auth';

/** What a node reports of itself: the version it serves, and what its kernel holds. */
export interface NodeState {
  version: number;
  dataplane: DataPlaneStatus;
}

export interface NodeInfo {
  id: string;
  address: string;
  version: number; // the running version this node serves
  dataplane: DataPlaneStatus; // the version its kernel holds, or its apply error
  last_heartbeat: string; // ISO time
  started_at: string;
  live: boolean;
  self: boolean;
}

/** Where a request for node `id` goes: its address, or why it may not go there. */
export type NodeTarget = { address: string; live: boolean } | 'unsealed' | undefined;

export interface NodeDirectory {
  readonly id: string;
  nodes(): Promise<NodeInfo[]>;
  /** The node `id` as registered: 'unsealed' when its registration's MAC is wrong (a fake). */
  target(id: string): Promise<NodeTarget>;
  /** Waits until every live node serves `version` (bounded); the ids of those that did not. */
  waitForVersion(version: number): Promise<string[]>;
  close(): Promise<void>;
}

/** A node's default id: host name and port, so a restarted instance takes its own place again. */
export function defaultNodeId(port: number): string {
  return `${os.hostname()}-${port}`;
}

interface Registration extends NodeState {
  id: string;
  address: string;
  heartbeat: number; // unix ms
  startedAt: number;
  /** MAC of id, address and startedAt (node-auth.ts): only a node holding FW_JWT_SECRET makes it */
  mac?: string;
}

/** The single node of an embedded store. */
export class LocalNode implements NodeDirectory {
  private readonly startedAt = Date.now();
  constructor(readonly id: string, private readonly address: string, private readonly state: () => NodeState) {}

  async nodes(): Promise<NodeInfo[]> {
    const now = new Date().toISOString();
    return [{ id: this.id, address: this.address, ...this.state(), last_heartbeat: now, started_at: new Date(this.startedAt).toISOString(), live: true, self: true }];
  }

  async target(id: string): Promise<NodeTarget> {
    return id === this.id ? { address: this.address, live: true } : undefined;
  }

  async waitForVersion(): Promise<string[]> {
    return []; // the commit ran here: this process already serves it
  }

  async close(): Promise<void> {}
}

export interface ClusterNodeOptions {
  id: string;
  address: string;
  heartbeatMs: number;
  syncTimeoutMs: number;
}

/** A node is live while its heartbeat is younger than this many intervals. */
const LIVE_INTERVALS = 3;
/** How often a commit worker tells the registry it is alive. */
export const WORKER_HEARTBEAT_MS = 1000;
/** A node silent for this long is dropped from the registry. */
const FORGET_MS = 10 * 60_000;
const POLL_MS = 20;

export class ClusterNode implements NodeDirectory {
  readonly id: string;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  /** Told once per instance whose heartbeat lapsed, by one instance of the cluster. */
  onPeerLost: (peer: { id: string; address: string }) => void = () => undefined;
  /** the peers seen live at the last heartbeat: id -> start time of that life */
  private livePeers = new Map<string, number>();

  /** the ids of registrations refused (a wrong MAC) already logged */
  private readonly refusedLogged = new Set<string>();

  constructor(
    private readonly bus: ClusterBus,
    private readonly opts: ClusterNodeOptions,
    private readonly state: () => NodeState,
    private readonly log: Logger,
    private readonly auth: NodeAuth,
  ) {
    this.id = opts.id;
  }

  /** Registers now and then every heartbeat; `onBeat` runs each time too (catch-up work). */
  async start(onBeat: () => Promise<void>): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      onBeat()
        .then(() => this.beat())
        .then(() => this.watchPeers())
        .catch((e: unknown) => this.log.debug({ err: String(e) }, 'heartbeat skipped: store unreachable'));
    }, this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** Tells the cluster which version this node serves (also right after it swaps). */
  async beat(): Promise<void> {
    const identity = { id: this.id, address: this.opts.address, startedAt: this.startedAt };
    const reg: Registration = { ...identity, ...this.state(), heartbeat: Date.now(), mac: this.auth.registrationMac(identity) };
    await this.bus.register('nodes', this.id, JSON.stringify(reg));
  }

  /**
   * Notices peers whose heartbeat lapsed since the last look; the first instance to claim a
   * lost life (key per id and start time) reports it, so the cluster reports it once.
   */
  private async watchPeers(): Promise<void> {
    const now = Date.now();
    const seen = new Map<string, number>();
    for (const r of await this.registrations()) {
      if (r.id === this.id) continue;
      if (this.isLive(r, now)) {
        seen.set(r.id, r.startedAt);
        continue;
      }
      if (this.livePeers.get(r.id) !== r.startedAt) continue;
      if (await this.bus.claimOnce(`node-lost:${r.id}:${r.startedAt}`, this.id, FORGET_MS)) this.onPeerLost({ id: r.id, address: r.address });
    }
    this.livePeers = seen;
  }

  /** The registrations this cluster's nodes made (a right MAC); the others are logged once and left out. */
  private async registrations(): Promise<Registration[]> {
    return (await this.allRegistrations()).filter((r) => this.sealed(r));
  }

  private async allRegistrations(): Promise<Registration[]> {
    return Object.values(await this.bus.registrations('nodes')).map((t) => JSON.parse(t) as Registration);
  }

  private sealed(r: Registration): boolean {
    if (this.auth.registrationValid(r)) return true;
    if (!this.refusedLogged.has(r.id)) {
      if (this.refusedLogged.size > 1000) this.refusedLogged.clear();
      this.refusedLogged.add(r.id);
      this.log.warn({ node: String(r.id).slice(0, 64), address: String(r.address).slice(0, 128) }, 'a node registration in Redis without a valid MAC is ignored: something that does not hold FW_JWT_SECRET wrote it (or an instance with another secret)');
    }
    return false;
  }

  async target(id: string): Promise<NodeTarget> {
    const r = (await this.allRegistrations()).find((x) => x.id === id);
    if (!r) return undefined;
    if (!this.sealed(r)) return 'unsealed';
    return { address: r.address, live: this.isLive(r, Date.now()) };
  }

  private isLive(r: Registration, now: number): boolean {
    return now - r.heartbeat <= LIVE_INTERVALS * this.opts.heartbeatMs;
  }

  async nodes(): Promise<NodeInfo[]> {
    const now = Date.now();
    const regs = await this.registrations();
    const forgotten = regs.filter((r) => now - r.heartbeat > FORGET_MS).map((r) => r.id);
    if (forgotten.length) await this.bus.forget('nodes', forgotten).catch(() => undefined);
    return regs
      .filter((r) => !forgotten.includes(r.id))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((r) => ({
        id: r.id,
        address: r.address,
        version: r.version,
        dataplane: r.dataplane,
        last_heartbeat: new Date(r.heartbeat).toISOString(),
        started_at: new Date(r.startedAt).toISOString(),
        live: this.isLive(r, now),
        self: r.id === this.id,
      }));
  }

  async waitForVersion(version: number): Promise<string[]> {
    const deadline = Date.now() + this.opts.syncTimeoutMs;
    await this.beat().catch(() => undefined);
    for (;;) {
      const now = Date.now();
      let behind: string[];
      try {
        behind = (await this.registrations()).filter((r) => this.isLive(r, now) && r.version < version).map((r) => r.id);
      } catch {
        behind = ['(store unreachable)'];
      }
      if (!behind.length || now >= deadline) return behind.sort();
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.bus.forget('nodes', [this.id]).catch(() => undefined);
  }
}

interface WorkerBeat {
  heartbeat: number; // unix ms
  startedAt: number;
}

/**
 * A commit worker's entry in the registry (an instance with FW_WORKER on, or `npm run
 * worker`): a heartbeat under `workers`, so that a commit can tell at once that no worker is
 * alive to run it instead of waiting FW_COMMIT_TIMEOUT for nothing.
 */
export class WorkerBeacon {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly bus: ClusterBus, readonly id: string, private readonly log: Logger) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch((e: unknown) => this.log.debug({ err: String(e) }, 'worker heartbeat skipped: store unreachable'));
    }, WORKER_HEARTBEAT_MS);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const beat: WorkerBeat = { heartbeat: Date.now(), startedAt: this.startedAt };
    await this.bus.register('workers', this.id, JSON.stringify(beat));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.bus.forget('workers', [this.id]).catch(() => undefined);
  }
}

/** The ids of the commit workers whose heartbeat is recent; entries silent for long are dropped. */
export async function liveWorkers(bus: ClusterBus): Promise<string[]> {
  const all = await bus.registrations('workers');
  const now = Date.now();
  const live: string[] = [];
  const forgotten: string[] = [];
  for (const [id, text] of Object.entries(all)) {
    const age = now - (JSON.parse(text) as WorkerBeat).heartbeat;
    if (age <= LIVE_INTERVALS * WORKER_HEARTBEAT_MS) live.push(id);
    else if (age > FORGET_MS) forgotten.push(id);
  }
  if (forgotten.length) await bus.forget('workers', forgotten).catch(() => undefined);
  return live.sort();
}
