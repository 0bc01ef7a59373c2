// A cluster spread over network namespaces, for partition tests: a Redis primary, two replicas,
// three sentinels and three daemon instances, each in a namespace of its own with one address
// on a bridge (in a namespace of its own); the test process reaches every node through a veth
// into that bridge. Partitions are nft drop rules inside the nodes' namespaces (the test
// process, the clients, is never cut off); clocks are untouched. Names carry a short prefix,
// the pid and a random suffix; destroy() removes every process and namespace, and create()
// first removes what a dead test process of this kind left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sh } from './netns';
import { startChild, kill9, type Child } from './process';
import { exited } from './redis';
import { ownChild } from './watchdog';
import { until } from './sentinel';

/** every namespace of this harness starts with it, followed by the pid of its test process */
const PREFIX = 'fwpart-';
/** the root namespace's veth: IFNAMSIZ allows 15 characters */
const HOST_IF = 'fwp';

export const REDIS_PORT = 6379;
export const SENTINEL_PORT = 26379;
export const DAEMON_PORT = 8080;
export const MASTER = 'fwpart';
// the sentinels' timing (down-after 2 s as in test/helpers/sentinel.ts: a loaded machine must
// not fail a merely slow primary over)
export const DOWN_AFTER_MS = 2000;
const FAILOVER_TIMEOUT_MS = 4000;

export type NodeName = 'r0' | 'r1' | 'r2' | 's0' | 's1' | 's2' | 'd0' | 'd1' | 'd2';
export const REDIS: NodeName[] = ['r0', 'r1', 'r2'];
export const SENTINELS: NodeName[] = ['s0', 's1', 's2'];
export const DAEMONS: NodeName[] = ['d0', 'd1', 'd2'];
const ALL: NodeName[] = [...REDIS, ...SENTINELS, ...DAEMONS];

interface LabNode {
  ns: string;
  ip: string;
  proc?: ChildProcess;
  child?: Child;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes the namespaces (and their processes) of test processes of this harness that died. */
export function removeStale(): void {
  const names = sh(['ip', 'netns', 'list']).split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(PREFIX));
  for (const ns of names) {
    const pid = Number(ns.slice(PREFIX.length).split('-')[0]);
    if (pid && alive(pid)) continue;
    removeNs(ns);
  }
}

function removeNs(ns: string): void {
  try {
    for (const p of sh(['ip', 'netns', 'pids', ns]).split('\n').filter(Boolean)) {
      try { process.kill(Number(p), 'SIGKILL'); } catch { /* gone */ }
    }
  } catch { /* no such namespace */ }
  try { sh(['ip', 'netns', 'delete', ns]); } catch { /* already gone */ }
}

export class PartitionLab {
  readonly id = `${process.pid}-${randomBytes(2).toString('hex')}`;
  readonly nodes = new Map<NodeName, LabNode>();
  /** the root namespace's address on the bridge */
  readonly hostIp: string;
  private readonly bridgeNs = `${PREFIX}${this.id}-br`;
  private readonly hostIf = `${HOST_IF}${process.pid.toString(36)}${this.id.slice(-4)}`.slice(0, 15);
  private readonly net: string;
  private readonly dir: string;
  private readonly namespaces: string[] = [];
  /** the environment of every daemon (REDIS_SENTINELS etc.), with what the test adds */
  daemonEnv: Record<string, string> = {};

  constructor(dir: string) {
    this.dir = dir;
    const b = randomBytes(2);
    this.net = `10.${230 + (b[0] % 20)}.${b[1]}`;
    this.hostIp = `${this.net}.254`;
  }

  ip(n: NodeName): string {
    return this.nodes.get(n)!.ip;
  }

  ns(n: NodeName): string {
    return this.nodes.get(n)!.ns;
  }

  url(d: NodeName): string {
    return `http://${this.ip(d)}:${DAEMON_PORT}`;
  }

  /** The namespaces, the bridge and the root namespace's way in. */
  create(): void {
    removeStale();
    this.addNs(this.bridgeNs);
    sh(['ip', '-n', this.bridgeNs, 'link', 'add', 'br0', 'type', 'bridge']);
    sh(['ip', '-n', this.bridgeNs, 'link', 'set', 'br0', 'up']);
    sh(['ip', 'link', 'add', this.hostIf, 'type', 'veth', 'peer', 'name', 'host', 'netns', this.bridgeNs]);
    sh(['ip', '-n', this.bridgeNs, 'link', 'set', 'host', 'master', 'br0', 'up']);
    sh(['ip', 'address', 'add', `${this.hostIp}/24`, 'dev', this.hostIf]);
    sh(['ip', 'link', 'set', this.hostIf, 'up']);
    ALL.forEach((name, i) => {
      const ns = `${PREFIX}${this.id}-${name}`;
      this.addNs(ns);
      const ip = `${this.net}.${i + 1}`;
      sh(['ip', '-n', this.bridgeNs, 'link', 'add', name, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      sh(['ip', '-n', this.bridgeNs, 'link', 'set', name, 'master', 'br0', 'up']);
      sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
      sh(['ip', '-n', ns, 'address', 'add', `${ip}/24`, 'dev', 'eth0']);
      sh(['ip', '-n', ns, 'link', 'set', 'eth0', 'up']);
      this.nodes.set(name, { ns, ip });
    });
  }

  private addNs(ns: string): void {
    sh(['ip', 'netns', 'add', ns]);
    this.namespaces.push(ns);
  }

  /** A program in `n`'s namespace, owned (killed with the test process). */
  private spawnIn(n: NodeName, argv: string[]): ChildProcess {
    const proc = spawn('ip', ['netns', 'exec', this.ns(n), ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    ownChild(proc);
    let out = '';
    proc.stdout!.on('data', (b) => { out = (out + b.toString()).slice(-4000); });
    proc.stderr!.on('data', (b) => { out = (out + b.toString()).slice(-4000); });
    (proc as ChildProcess & { output?: () => string }).output = () => out;
    this.nodes.get(n)!.proc = proc;
    return proc;
  }

  private async listening(n: NodeName, port: number): Promise<void> {
    const proc = this.nodes.get(n)!.proc!;
    await until(async () => {
      if (proc.exitCode !== null) throw new Error(`${n} exited: ${(proc as ChildProcess & { output?: () => string }).output?.()}`);
      if (this.cli(n, ['PING']) !== 'PONG') return false;
      return true;
    }, 15_000, `${n} did not listen on ${port}`);
  }

  /** The primary (r0), its replicas and the sentinels; resolves once every sentinel knows them all. */
  async startRedis(extra: string[] = []): Promise<void> {
    for (const r of REDIS) {
      const dir = path.join(this.dir, r);
      fs.mkdirSync(dir, { recursive: true });
      this.spawnIn(r, ['redis-server', '--port', String(REDIS_PORT), '--bind', '0.0.0.0', '--protected-mode', 'no', '--dir', dir,
        '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--loglevel', 'warning',
        '--repl-timeout', '5', ...(r === 'r0' ? [] : ['--replicaof', this.ip('r0'), String(REDIS_PORT)]), ...extra]);
      await this.listening(r, REDIS_PORT);
    }
    for (const s of SENTINELS) {
      const dir = path.join(this.dir, s);
      fs.mkdirSync(dir, { recursive: true });
      const conf = path.join(dir, 'sentinel.conf');
      fs.writeFileSync(conf, [
        `port ${SENTINEL_PORT}`, 'bind 0.0.0.0', 'protected-mode no', 'daemonize no', `dir ${dir}`, 'logfile ""',
        `sentinel monitor ${MASTER} ${this.ip('r0')} ${REDIS_PORT} 2`,
        `sentinel down-after-milliseconds ${MASTER} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${MASTER} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${MASTER} 2`, '',
      ].join('\n'));
      this.spawnIn(s, ['redis-sentinel', conf]);
      await this.listening(s, SENTINEL_PORT);
    }
    await until(async () => {
      for (const s of SENTINELS) {
        const m = this.sentinelMaster(s);
        if (Number(m['num-slaves']) !== 2 || Number(m['num-other-sentinels']) !== 2) return false;
      }
      return true;
    }, 40_000, 'the sentinels did not find both replicas and each other');
    this.daemonEnv = {
      REDIS_SENTINELS: SENTINELS.map((s) => `${this.ip(s)}:${SENTINEL_PORT}`).join(','),
      REDIS_SENTINEL_MASTER: MASTER,
      // the lab's Redis servers are on the bridge's addresses without a password (a test network)
      FW_REDIS_INSECURE: '1',
    };
  }

  /** redis-cli in `n`'s namespace against its own server. */
  cli(n: NodeName, args: string[]): string {
    const port = n.startsWith('s') ? SENTINEL_PORT : REDIS_PORT;
    return sh(['ip', 'netns', 'exec', this.ns(n), 'timeout', '3', 'redis-cli', '-p', String(port), ...args]).trim();
  }

  private sentinelMaster(s: NodeName): Record<string, string> {
    const lines = this.cli(s, ['SENTINEL', 'master', MASTER]).split('\n');
    const m: Record<string, string> = {};
    for (let i = 0; i + 1 < lines.length; i += 2) m[lines[i]] = lines[i + 1];
    return m;
  }

  /** The primary as sentinel `s` names it (its node), or null. */
  primaryBy(s: NodeName): NodeName | null {
    try {
      const ip = this.cli(s, ['SENTINEL', 'get-master-addr-by-name', MASTER]).split('\n')[0];
      return REDIS.find((r) => this.ip(r) === ip) ?? null;
    } catch {
      return null;
    }
  }

  /** INFO replication of `r`, as fields. */
  replication(r: NodeName): Record<string, string> {
    const out: Record<string, string> = {};
    for (const line of this.cli(r, ['INFO', 'replication']).split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i > 0) out[line.slice(0, i)] = line.slice(i + 1).trim();
    }
    return out;
  }

  /** The three instances, with `env` added; resolves once each listens. */
  async startDaemons(env: Record<string, string>): Promise<void> {
    await Promise.all(DAEMONS.map(async (d) => {
      const child = await startChild({
        ...this.daemonEnv, FW_HOST: '0.0.0.0', FW_PORT: String(DAEMON_PORT), FW_NODE_ID: d, FW_ADVERTISE: `${this.ip(d)}:${DAEMON_PORT}`,
        FW_DATA_DIR: path.join(this.dir, d), FW_ANALYSIS_TIMEOUT: '0', FW_VERSIONS_KEEP: '0', ...env,
      }, undefined, undefined, [], ['ip', 'netns', 'exec', this.ns(d)]);
      this.nodes.get(d)!.child = child;
    }));
  }

  daemonLog(d: NodeName): string {
    return this.nodes.get(d)!.child?.stdout() ?? '';
  }

  /**
   * Cuts every node of `a` off from every node of `b` (both ways, packets dropped silently as
   * a failed switch would); nodes in neither group, and the test process, see everyone.
   */
  partition(a: NodeName[], b: NodeName[]): void {
    const rules = new Map<NodeName, Set<string>>();
    const cut = (x: NodeName, y: NodeName) => {
      if (!rules.has(x)) rules.set(x, new Set());
      rules.get(x)!.add(this.ip(y));
    };
    for (const x of a) for (const y of b) { cut(x, y); cut(y, x); }
    for (const [n, ips] of rules) {
      const set = [...ips].join(', ');
      sh(['ip', 'netns', 'exec', this.ns(n), 'nft', '-f', '-'], [
        'table inet fwpart {',
        `  chain in { type filter hook input priority 0; ip saddr { ${set} } drop; }`,
        `  chain out { type filter hook output priority 0; ip daddr { ${set} } drop; }`,
        '}', '',
      ].join('\n'));
    }
  }

  /** Removes every cut. */
  heal(): void {
    for (const n of ALL) {
      try { sh(['ip', 'netns', 'exec', this.ns(n), 'nft', 'delete', 'table', 'inet', 'fwpart']); } catch { /* no cut here */ }
    }
  }

  /** SIGSTOP / SIGCONT of a node's process (a pause, not a crash). */
  signal(n: NodeName, sig: 'SIGSTOP' | 'SIGCONT'): void {
    this.nodes.get(n)!.proc!.kill(sig);
  }

  async destroy(): Promise<void> {
    for (const n of this.nodes.values()) {
      if (n.child && n.child.proc.exitCode === null && n.child.proc.signalCode === null) await kill9(n.child).catch(() => undefined);
      if (n.proc && n.proc.exitCode === null && n.proc.signalCode === null) {
        n.proc.kill('SIGKILL');
        await exited(n.proc);
      }
    }
    for (const ns of [...this.namespaces].reverse()) removeNs(ns);
    try { sh(['ip', 'link', 'delete', this.hostIf]); } catch { /* went with its peer */ }
  }
}
