// The data plane: what enforces a running version on a kernel. ConfigService calls check()
// in validate and commit, and apply() before a commit is made durable; app.ts picks the
// implementation from FW_DATAPLANE (none: nothing is enforced, development machines are
// untouched; linux: nftables and iproute2, see linux.ts).
import type { HaControl } from './ha-types';
import type { ConfigDoc } from '../config/types';
import type { ConnEntry, Narrowing } from './conntrack';
import type { HitRecord } from './hits';
import type { PolicyCounter } from './nft';
import type { DhcpLease } from './leases';
import type { TrafficFeed } from './traffic-kernel';
import type { DynamicKernel } from '../dynamic/kernel-sets';

export interface DataPlaneStatus {
  mode: 'none' | 'linux';
  netns: string | null;
  applied_version: number | null; // the version the kernel holds
  applied_at: string | null;
  error: string | null; // the last apply's failure (the kernel kept applied_version)
}

export interface DataPlane {
  readonly mode: DataPlaneStatus['mode'];
  /** Problems that would make apply fail (names, `nft -c`), one line each; [] when none. */
  check(doc: ConfigDoc): Promise<string[]>;
  /**
   * Makes the kernel hold `doc` as `version`. On failure the previous version's state is
   * restored and FwError ERR_SYS_4005 is thrown with the kernel's message in details.
   * Calls are serialized. `label` names the configuration in errors and logs (default
   * "version N"): a commit's version number is not given out before it is made durable, and
   * a failed commit's number goes to the next configuration committed.
   */
  apply(doc: ConfigDoc, version: number, label?: string): Promise<void>;
  status(): DataPlaneStatus;
  /** Per-policy counters since they began, or null without a kernel. */
  counters(): Promise<Map<number, PolicyCounter> | null>;
  /** issue 41: per-local-policy counters, or null (absent: no kernel counts them) */
  localCounters?(): Promise<Map<number, PolicyCounter> | null>;
  /** The DHCP leases dnsmasq has handed out ([] without a kernel). */
  leases(): Promise<DhcpLease[]>;
  /** Hits with times of every policy and NAT rule the kernel counted (a fresh sample), or null without a kernel. */
  hits(): Promise<{ sampledAt: number | null; rules: HitRecord[] } | null>;
  /** Zeroes the hit totals and times. */
  resetHits(): Promise<void>;
  /**
   * The kernel's connection tracking entries, in no particular order, or null without a
   * kernel: every entry, or at least those `n` keeps; a listing up to FW_SESSION_CACHE_MS old
   * unless `fresh`.
   */
  connections(n?: Narrowing, fresh?: boolean): Promise<ConnEntry[] | null>;
  /**
   * Each entry of the table to `fn`: the shared listing's entries when one is held, else the
   * lines of conntrack's listing as they are read (unparsed, not kept; a line that is not an
   * entry too: parseEntry tells); false without a kernel.
   */
  eachConnection(fn: (e: ConnEntry | string) => void): Promise<boolean>;
  /** Deletes these connections' entries (they end: their next packet is a new connection); how many went. */
  endConnections(entries: readonly ConnEntry[]): Promise<number>;
  /** Dynamic set elements and connection cuts (issue 40); absent without a kernel. */
  readonly dynamic?: DynamicKernel;
  /** The kernel's traffic records (logged first packets, through NFLOG and ulogd), or null without a kernel. */
  readonly traffic: TrafficFeed | null;
  /** The HA pair's runtime (keepalived, conntrackd: issue 39), or null without a kernel. */
  readonly ha?: HaControl | null;
  close(): Promise<void>;
}

/** FW_DATAPLANE=none: accepts everything, enforces nothing, counts nothing. */
export class NoDataPlane implements DataPlane {
  readonly mode = 'none' as const;
  private applied: { version: number; at: number } | null = null;

  async check(): Promise<string[]> {
    return [];
  }

  async apply(_doc: ConfigDoc, version: number): Promise<void> {
    this.applied = { version, at: Date.now() };
  }

  status(): DataPlaneStatus {
    return {
      mode: 'none', netns: null, applied_version: this.applied?.version ?? null,
      applied_at: this.applied ? new Date(this.applied.at).toISOString() : null, error: null,
    };
  }

  async counters(): Promise<null> {
    return null;
  }

  async leases(): Promise<DhcpLease[]> {
    return [];
  }

  async hits(): Promise<null> {
    return null;
  }

  async resetHits(): Promise<void> {}

  async connections(): Promise<null> {
    return null;
  }

  async eachConnection(): Promise<boolean> {
    return false;
  }

  async endConnections(): Promise<number> {
    return 0;
  }

  readonly traffic = null;

  async close(): Promise<void> {}
}
