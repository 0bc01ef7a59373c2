// FW_DATAPLANE=linux: every running version is enforced on the kernel of this host, or of the
// network namespace FW_NETNS, with nftables (one table of our own, replaced atomically) and
// iproute2 (links, addresses and routes reconciled), plus one dnsmasq for the DHCP pools.
import path from 'node:path';
import type { Logger } from 'pino';
import { FwError } from '../errors';
import type { ConfigDoc } from '../config/types';
import { countDeleted, deleteByTuple, deleteCut, EVERY_ENTRY, forEachLine, listEntries, type ConnEntry, type Narrowing } from './conntrack';
import { ListingCache } from './conntrack-cache';
import { DnsmasqProcess } from './dnsmasq-process';
import { Host, CommandError } from './host';
import type { DynamicKernel } from '../dynamic/kernel-sets';
import { maskOf } from '../config/dynamic-entries';
import { reconcile } from './kernel';
import { NFT_TABLE } from './names';
import { renderNftTable, type PolicyCounter } from './nft';
import { tableScript, tableUpdate, type NftTable } from './nft-table';
import { HitTracker, type HitRecord, type RuleCounters } from './hits';
import { renderPlan, planProblems } from './plan';
import { missingRights } from './rights';
import { linkKindProblem } from './link-kinds';
import { readLeaseFile, type DhcpLease } from './leases';
import type { DataPlane, DataPlaneStatus } from './types';
import { logsTraffic, type TrafficLogRules } from './nft-log';
import { NflogSocket } from './traffic-kernel';
import { UlogdProcess } from './ulogd';
import { HaRuntime } from './ha-runtime';
import { nodeView } from '../config/ha';

interface NftCounter {
  counter?: { name: string; table: string; packets: number; bytes: number };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export interface LinuxOptions {
  /** FW_SESSION_REMATCH: connections accepted under an older version are judged again */
  rematch: boolean;
  /** FW_HITS_INTERVAL: how often the rule counters are sampled for hit times (ms) */
  hitsIntervalMs: number;
  /** the traffic log's rules (FW_TRAFFIC_LOG_GROUP, FW_TRAFFIC_LOG_RATE, FW_LOG_DEFAULT_DENY) */
  log: TrafficLogRules;
  /** FW_TRAFFIC_LOG_QUEUE: records held between ulogd and the traffic log before drops */
  logQueue: number;
  /** FW_SESSION_CACHE_MS: how long one conntrack listing serves the requests that follow it (0: never) */
  sessionCacheMs: number;
  /** FW_HELPERS_ON_STOP=keep: close() leaves dnsmasq and ulogd serving, for the next start to adopt */
  keepHelpers?: boolean;
  /** FW_NODE_ID: which node of an HA pair this kernel is (its own addresses, its keepalived) */
  nodeId?: string;
}

/**
 * How often connections that rematch cut are deleted from the conntrack table. Their packets
 * are dropped meanwhile (each meets the policies again), so this only bounds how long the
 * entry lingers; the commit itself deletes what it denies at once.
 */
const CUT_SWEEP_MS = 5000;

export class LinuxDataPlane implements DataPlane {
  readonly mode = 'linux' as const;
  private readonly host: Host;
  private readonly dnsmasq: DnsmasqProcess;
  private applied: { doc: ConfigDoc; version: number; at: number } | null = null;
  private error: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** why this process cannot change the kernel (checked once, at start), or null */
  private readonly rights: Promise<string | null>;
  private readonly sweep: NodeJS.Timeout | null = null;
  private readonly hitTracker: HitTracker;
  /** The table our last apply left in the kernel (null: unknown, the next apply writes it whole) */
  private kernelTable: NftTable | null = null;
  private readonly ulogd: UlogdProcess;
  readonly traffic: NflogSocket;
  private readonly listings: ListingCache;
  /** keepalived and conntrackd of an HA pair (issue 39) */
  readonly ha: HaRuntime;

  /** the DHCP and router advertisements configuration of the last enforce, when an HA pair serves it (ha-services.ts) */
  private pairServices = '';

  /** FW_DATA_DIR/dataplane: the files of dnsmasq and of conntrack batches */
  private readonly dir: string;

  constructor(netns: string | null, dataDir: string, private readonly log: Logger, private readonly opts: LinuxOptions) {
    this.host = new Host(netns);
    this.dir = path.join(dataDir, 'dataplane');
    this.dnsmasq = new DnsmasqProcess(this.host, this.dir);
    this.ulogd = new UlogdProcess(this.host, this.dir);
    this.ha = new HaRuntime(this.host, this.dir, opts.nodeId, log, this.dnsmasq.leaseFile);
    this.traffic = new NflogSocket(path.join(this.dir, 'ulogd.sock'), opts.logQueue, () => this.applied?.doc ?? null);
    this.rights = missingRights(this.host).then((problem) => {
      if (problem) this.log.error({ netns }, problem);
      return problem;
    });
    this.listings = new ListingCache(opts.sessionCacheMs);
    this.hitTracker = new HitTracker(path.join(this.dir, 'hits.json'), () => this.readCounters(), log);
    this.hitTracker.start(opts.hitsIntervalMs);
    if (opts.rematch) {
      this.sweep = setInterval(() => void this.deleteCut(), CUT_SWEEP_MS);
      this.sweep.unref();
    }
  }

  /** A connection's packet refused by rematch leaves the entry marked cut: it goes here. */
  private async deleteCut(): Promise<void> {
    try {
      const n = await deleteCut(this.host);
      if (n > 0) {
        this.listings.invalidate();
        this.log.info({ connections: n }, 'connections cut by rematch removed from conntrack');
      }
    } catch (e) {
      this.log.debug({ err: messageOf(e) }, 'conntrack sweep failed');
    }
  }

  /** One kernel change at a time: commits, start-up and cluster loads queue here. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async check(given: ConfigDoc): Promise<string[]> {
    const doc = nodeView(given, this.opts.nodeId); // an HA link as this node holds it
    const names = planProblems(doc);
    if (names.length) return names;
    const plan = renderPlan(doc, { leaseFile: this.dnsmasq.leaseFile });
    const problems: string[] = [];
    const vlans = doc.vlans.size ? await linkKindProblem(this.host, 'vlan') : null;
    if (vlans) problems.push(...[...doc.vlans.keys()].sort().map((name) => `vlan ${name}: ${vlans}`));
    await this.host.exec('nft', ['-c', '-f', '-'], plan.nft).catch((e) => problems.push(`nft: ${messageOf(e)}`));
    await this.dnsmasq.test(plan.dnsmasq).catch((e) => problems.push(`dnsmasq: ${messageOf(e)}`));
    return problems;
  }

  apply(doc: ConfigDoc, version: number, given?: string): Promise<void> {
    // a commit names its candidate: when it fails the running version stays the one restored
    const label = given ?? `version ${version}`;
    return this.serial(async () => {
      const t0 = Date.now();
      this.listings.invalidate(); // the marks the listing shows change meaning now
      try {
        await this.enforce(doc, version);
        this.listings.invalidate(); // nor one read while the kernel was changing
        this.applied = { doc, version, at: Date.now() };
        this.error = null;
        this.log.info({ version, ms: Date.now() - t0 }, 'data plane applied');
        this.ha.markDataplane(true);
        await this.ensureHa(doc);
      } catch (e) {
        const rights = await this.rights;
        this.error = `${label}: ${messageOf(e)}${rights ? ` (${rights})` : ''}`;
        this.log.error({ config: label, err: messageOf(e) }, 'data plane apply failed; restoring the previous version');
        const previous = this.applied;
        // a version given out that this kernel cannot hold: keepalived keeps this node out of
        // the master role (ha-render.ts) until an apply succeeds
        let holdsRunning = given !== undefined && previous !== null;
        if (previous) {
          await this.enforce(previous.doc, previous.version).catch((e2) => {
            holdsRunning = false;
            this.error += `; restoring version ${previous.version} failed too: ${messageOf(e2)}`;
          });
        }
        this.ha.markDataplane(holdsRunning);
        throw new FwError('ERR_SYS_4005', messageOf(e));
      }
    });
  }

  /** keepalived and conntrackd as the applied version's pair says; a failure shows as the data plane's error. */
  private async ensureHa(doc: ConfigDoc): Promise<void> {
    try {
      await this.ha.ensure(doc, this.pairServices);
    } catch (e) {
      this.error = `HA: ${messageOf(e)}`;
      this.log.error({ err: messageOf(e) }, 'HA helpers failed to start');
    }
  }

  private async enforce(given: ConfigDoc, version: number): Promise<void> {
    const doc = nodeView(given, this.opts.nodeId); // an HA link as this node holds it
    const problems = planProblems(doc);
    if (problems.length) throw new Error(problems.join('\n'));
    const opts = { leaseFile: this.dnsmasq.leaseFile, version, rematch: this.opts.rematch, log: this.opts.log };
    const plan = renderPlan(doc, opts);
    const table = renderNftTable(doc, opts);
    // the difference from what the kernel holds, when we know what it holds (our last apply,
    // and its digest still in the kernel's table); else, or when large, the whole table
    const previous = this.kernelTable;
    this.kernelTable = null; // unknown until this apply is through
    const update = previous && (await this.kernelHolds(previous)) ? tableUpdate(previous, table) : null;
    // the ruleset is checked before anything changes: a refused script touches nothing
    if (update) await this.host.exec('nft', ['-c', '-f', '-'], update.script);
    else await this.host.exec('nft', ['-c', '-f', '-'], plan.nft);
    await this.host.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1', 'net.ipv6.conf.all.forwarding=1']);
    await reconcile(this.host, plan.links);
    let nft: { mode: 'incremental' | 'full'; operations: number };
    if (update) {
      if (update.operations) await this.host.exec('nft', ['-f', '-'], update.script);
      nft = { mode: 'incremental', operations: update.operations };
    } else {
      // counters carry over for the policies that stay (read as late as possible)
      const counters = await this.readCounters();
      const script = tableScript(renderNftTable(doc, { ...opts, counters: counters.policies, natCounters: counters.nat, localCounters: counters.local }));
      await this.host.exec('nft', ['-f', '-'], script);
      nft = { mode: 'full', operations: script.split('\n').length };
    }
    this.kernelTable = table;
    this.log.info({ version, nft: nft.mode, nftOperations: nft.operations }, 'nft table applied');
    // dynamic sets (issue 40): a set the table wrote anew is empty; its entries go back in
    const refill = this.dynamic.refill?.() ?? '';
    if (refill) await this.host.exec('nft', ['-f', '-'], refill);
    // after the table: its ct expressions load conntrack, whose settings exist only then.
    // Packets, bytes and start time of every connection for the session table; no TCP
    // pick-up mid-stream, so that a connection whose entry is deleted (ended, cut) stays
    // ended: its next packet is invalid, not a new connection.
    await this.host.exec('sysctl', ['-q', '-w', 'net.netfilter.nf_conntrack_acct=1', 'net.netfilter.nf_conntrack_timestamp=1', 'net.netfilter.nf_conntrack_tcp_loose=0']);
    // on a node of an HA pair the master alone serves DHCP and router advertisements: the
    // pair's dnsmasq (ha-services.ts, started by ensureHa), not this one
    const pair = this.ha.runsPair(doc);
    this.pairServices = pair ? plan.dnsmasq : '';
    if (!pair) await this.ha.stopServices();
    await this.dnsmasq.ensure(pair ? '' : plan.dnsmasq);
    await this.ensureUlogd(logsTraffic(doc, this.opts.log));
  }

  /** Dynamic set elements (issue 40): run with the applies, one after the other. */
  readonly dynamic: DynamicKernel = {
    refill: null,
    run: (script) => this.serial(async () => { await this.host.exec('nft', ['-f', '-'], script); }),
    cut: async (family, prefixes) => {
      let n = 0;
      for (const p of prefixes) {
        const [ip, len] = p.split('/');
        const host = len === undefined || len === (family === 'ipv4' ? '32' : '128');
        for (const dir of ['-s', '-d']) {
          // conntrack exits 1 when nothing matched: not a failure here
          const args = ['-D', '-f', family, dir, ip, ...(host ? [] : [dir === '-s' ? '--mask-src' : '--mask-dst', maskOf(family, Number(len))])];
          n += countDeleted(await this.host.exec('conntrack', args).catch(() => ''));
        }
      }
      return n;
    },
  };

  /** ulogd runs while the configuration logs anything (its records come to this.traffic). */
  private async ensureUlogd(wanted: boolean): Promise<void> {
    if (!wanted) return this.ulogd.stop();
    if (this.ulogd.running) return;
    if (!this.traffic.listening) await this.traffic.listen();
    else this.traffic.rearm();
    await this.ulogd.start(this.opts.log.group, this.traffic.socketPath, this.traffic.connected);
    this.log.info({ group: this.opts.log.group }, 'ulogd started: traffic log records flow');
  }

  /** Whether the kernel's table is `table` (its stamp rule carries the table's digest). */
  private async kernelHolds(table: NftTable): Promise<boolean> {
    const digest = /comment "([^"]*)"/.exec(table.chains.find((c) => c.name === 'stamp')?.rules[0] ?? '')?.[1];
    if (!digest) return false;
    try {
      return (await this.host.exec('nft', ['list', 'chain', 'inet', NFT_TABLE, 'stamp'])).includes(`comment "${digest}"`);
    } catch {
      return false; // no table, or no stamp chain: someone else's table, or none
    }
  }

  /** Every counter of our table: policies (policy_N) and NAT rules (nat_N), by id. */
  private async readCounters(): Promise<RuleCounters> {
    const out: RuleCounters = { policies: new Map(), nat: new Map(), local: new Map() };
    let json: string;
    try {
      json = await this.host.exec('nft', ['-j', 'list', 'counters', 'table', 'inet', NFT_TABLE]);
    } catch (e) {
      if (e instanceof CommandError && /No such file or directory/.test(e.stderr)) return out; // no table yet
      throw e;
    }
    for (const item of (JSON.parse(json) as { nftables: NftCounter[] }).nftables) {
      const m = item.counter && /^(policy|nat|local)_(\d+)$/.exec(item.counter.name);
      if (m) out[m[1] === 'policy' ? 'policies' : m[1] === 'nat' ? 'nat' : 'local']!.set(Number(m[2]), { packets: item.counter!.packets, bytes: item.counter!.bytes });
    }
    return out;
  }

  async counters(): Promise<Map<number, PolicyCounter>> {
    return (await this.readCounters()).policies;
  }

  /** issue 41: the local policies' counters (local_N), by id. */
  async localCounters(): Promise<Map<number, PolicyCounter>> {
    return (await this.readCounters()).local ?? new Map();
  }

  hits(): Promise<{ sampledAt: number | null; rules: HitRecord[] }> {
    return this.hitTracker.records();
  }

  resetHits(): Promise<void> {
    return this.hitTracker.reset();
  }

  connections(n: Narrowing = EVERY_ENTRY, fresh = false): Promise<ConnEntry[]> {
    if (fresh) return listEntries(this.host, n);
    return this.listings.get(n, (m) => listEntries(this.host, m));
  }

  async eachConnection(fn: (e: ConnEntry | string) => void): Promise<boolean> {
    const held = this.listings.whole();
    if (held) (await held).forEach((e) => fn(e));
    else await forEachLine(this.host, fn);
    return true;
  }

  async endConnections(entries: readonly ConnEntry[]): Promise<number> {
    try {
      return await deleteByTuple(this.host, this.dir, entries);
    } finally {
      this.listings.invalidate();
    }
  }

  async leases(): Promise<DhcpLease[]> {
    return readLeaseFile(this.dnsmasq.leaseFile);
  }

  status(): DataPlaneStatus {
    return {
      mode: 'linux',
      netns: this.host.netns,
      applied_version: this.applied?.version ?? null,
      applied_at: this.applied ? new Date(this.applied.at).toISOString() : null,
      error: this.error,
    };
  }

  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.hitTracker.stop();
    await this.serial(async () => {
      if (!this.opts.keepHelpers) {
        await this.dnsmasq.stop();
        await this.ulogd.stop();
      }
      await this.ha.close(this.opts.keepHelpers === true);
      if (this.traffic.listening) await this.traffic.close();
    });
  }
}
