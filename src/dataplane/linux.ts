// FW_DATAPLANE=linux: every running version is enforced on the kernel of this host, or of the
// network namespace FW_NETNS, with nftables (one table of our own, replaced atomically) and
// iproute2 (links, addresses and routes reconciled), plus one dnsmasq for the DHCP pools.
import path from 'node:path';
import type { Logger } from 'pino';
import { FwError } from '../errors';
import type { ConfigDoc } from '../config/types';
import { DnsmasqProcess } from './dnsmasq-process';
import { Host, CommandError } from './host';
import { reconcile } from './kernel';
import { NFT_TABLE } from './names';
import type { PolicyCounter } from './nft';
import { renderPlan, planProblems } from './plan';
import { missingRights } from './rights';
import { linkKindProblem } from './link-kinds';
import { readLeaseFile, type DhcpLease } from './leases';
import type { DataPlane, DataPlaneStatus } from './types';

interface NftCounter {
  counter?: { name: string; table: string; packets: number; bytes: number };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class LinuxDataPlane implements DataPlane {
  readonly mode = 'linux' as const;
  private readonly host: Host;
  private readonly dnsmasq: DnsmasqProcess;
  private applied: { doc: ConfigDoc; version: number; at: number } | null = null;
  private error: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** why this process cannot change the kernel (checked once, at start), or null */
  private readonly rights: Promise<string | null>;

  constructor(netns: string | null, dataDir: string, private readonly log: Logger) {
    this.host = new Host(netns);
    this.dnsmasq = new DnsmasqProcess(this.host, path.join(dataDir, 'dataplane'));
    this.rights = missingRights(this.host).then((problem) => {
      if (problem) this.log.error({ netns }, problem);
      return problem;
    });
  }

  /** One kernel change at a time: commits, start-up and cluster loads queue here. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async check(doc: ConfigDoc): Promise<string[]> {
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

  apply(doc: ConfigDoc, version: number, label = `version ${version}`): Promise<void> {
    return this.serial(async () => {
      const t0 = Date.now();
      try {
        await this.enforce(doc);
        this.applied = { doc, version, at: Date.now() };
        this.error = null;
        this.log.info({ version, ms: Date.now() - t0 }, 'data plane applied');
      } catch (e) {
        const rights = await this.rights;
        this.error = `${label}: ${messageOf(e)}${rights ? ` (${rights})` : ''}`;
        this.log.error({ config: label, err: messageOf(e) }, 'data plane apply failed; restoring the previous version');
        const previous = this.applied;
        if (previous) {
          await this.enforce(previous.doc).catch((e2) => {
            this.error += `; restoring version ${previous.version} failed too: ${messageOf(e2)}`;
          });
        }
        throw new FwError('ERR_SYS_4005', messageOf(e));
      }
    });
  }

  private async enforce(doc: ConfigDoc): Promise<void> {
    const problems = planProblems(doc);
    if (problems.length) throw new Error(problems.join('\n'));
    const first = renderPlan(doc, { leaseFile: this.dnsmasq.leaseFile });
    // the ruleset is checked before anything changes: a refused script touches nothing
    await this.host.exec('nft', ['-c', '-f', '-'], first.nft);
    await this.host.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1', 'net.ipv6.conf.all.forwarding=1']);
    await reconcile(this.host, first.links);
    // counters carry over for the policies that stay (read as late as possible)
    const plan = renderPlan(doc, { leaseFile: this.dnsmasq.leaseFile, counters: await this.readCounters() });
    await this.host.exec('nft', ['-f', '-'], plan.nft);
    await this.dnsmasq.ensure(plan.dnsmasq);
  }

  private async readCounters(): Promise<Map<number, PolicyCounter>> {
    const out = new Map<number, PolicyCounter>();
    let json: string;
    try {
      json = await this.host.exec('nft', ['-j', 'list', 'counters', 'table', 'inet', NFT_TABLE]);
    } catch (e) {
      if (e instanceof CommandError && /No such file or directory/.test(e.stderr)) return out; // no table yet
      throw e;
    }
    for (const item of (JSON.parse(json) as { nftables: NftCounter[] }).nftables) {
      const m = item.counter && /^policy_(\d+)$/.exec(item.counter.name);
      if (m) out.set(Number(m[1]), { packets: item.counter!.packets, bytes: item.counter!.bytes });
    }
    return out;
  }

  counters(): Promise<Map<number, PolicyCounter>> {
    return this.readCounters();
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
    await this.serial(() => this.dnsmasq.stop());
  }
}
