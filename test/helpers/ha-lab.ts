// Two fwd nodes as one HA pair on real links, for the HA tests and benchmark (issue 39):
//   client (10.39.1.10) --brlan-- fw-a / fw-b --brwan-- server (203.0.113.10)
//                                  \-- brsync --/
// The bridges live in a switch namespace; each firewall namespace has links lan, wan and sync
// (its own addresses .2 and .3, the virtual ones .1); both daemons (child processes, as in
// production) are instances of one cluster on a redis-server of the lab's own, each with its
// own data folder and FW_NODE_ID. Every name carries the pid and a random suffix; destroy()
// removes the namespaces, the daemons and the helpers they started, also after a failure.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Client, ok, tempDir } from './daemon';
import { requireLab, requirePackages, sh } from './netns';
import { startChild, kill9, type Child } from './process';
import { startRedis, type TestRedis } from './redis';
import { DhcpClient } from './dhcp-client';
import { ownChild } from './watchdog';
import { machineLock } from './machine-lock';

export const LAN = { vip: '10.39.1.1', a: '10.39.1.2', b: '10.39.1.3', client: '10.39.1.10', prefix: 24 };
export const WAN = { vip: '203.0.113.1', a: '203.0.113.2', b: '203.0.113.3', server: '203.0.113.10', prefix: 24 };
export const SYNC = { a: '192.168.39.1', b: '192.168.39.2', prefix: 30 };
/** The nodes' own IPv6 addresses on the LAN (haDoc's lanV6), for router advertisements. */
export const LAN6 = { a: 'fd39:1::2', b: 'fd39:1::3', prefix: 64 };
export const ECHO_PORT = 7039;

export interface FlowFigures {
  echoes: number;
  maxGapMs: number;
  closed: boolean;
  error: string;
}

/** A prober (ha-prober.ts): a TCP and a UDP flow through the pair, from a namespace's address to an echo server. */
export class Prober {
  private readonly proc: ChildProcess;
  private waiting: Array<(f: { tcp: FlowFigures; udp: FlowFigures }) => void> = [];
  readonly ready: Promise<void>;

  constructor(ns: string, intervalMs: number, src: string, dst: string) {
    const script = path.join(__dirname, 'ha-prober.js');
    this.proc = spawn('ip', ['netns', 'exec', ns, process.execPath, script, 'probe', src, dst, String(ECHO_PORT), String(intervalMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
    ownChild(this.proc);
    this.ready = new Promise((resolve, reject) => {
      this.proc.once('exit', (code) => reject(new Error(`prober exited (${code})`)));
      readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as { ready?: boolean; tcp?: FlowFigures; udp?: FlowFigures };
        if (m.ready) resolve();
        else if (m.tcp && m.udp) this.waiting.shift()?.({ tcp: m.tcp, udp: m.udp });
      });
    });
    this.ready.catch(() => undefined);
  }

  /** The flows' figures since the previous mark. */
  mark(): Promise<{ tcp: FlowFigures; udp: FlowFigures }> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.reject(new Error('the prober has stopped'));
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.proc.stdin!.write('mark\n');
    });
  }

  stop(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}

/** What configure() adds to the pair's configuration. */
export interface LabOptions {
  /** the nodes' own IPv6 addresses on the LAN (LAN6) */
  lanV6?: boolean;
  /** more changes in the same candidate, before the commit */
  extra?: (c: Client) => Promise<void>;
}

export interface HaNodeHandle {
  id: 'fw-a' | 'fw-b';
  ns: string;
  dir: string;
  child: Child | null;
  client: Client | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The global addresses (address/prefix) of `link` in namespace `ns`, sorted. */
export const addresses = (ns: string, link: string): string[] =>
  (JSON.parse(sh(['ip', '-n', ns, '-json', 'address', 'show', 'dev', link])) as Array<{ addr_info: Array<{ local: string; prefixlen: number; scope: string }> }>)
    .flatMap((l) => l.addr_info.filter((a) => a.scope === 'global').map((a) => `${a.local}/${a.prefixlen}`)).sort();

/** The helpers a node runs (their pid files in its data folder): the pair's dnsmasq runs on the master. */
const HELPERS = ['keepalived', 'keepalived-vrrp', 'conntrackd', 'ha-dnsmasq'] as const;
export type HelperName = (typeof HELPERS)[number];

/** How long a lab waits for another one to end: the longest HA test file, a few minutes under load. */
export const LAB_LOCK_WAIT_MS = 600_000;
/** A beforeAll that creates a lab: the wait for the lock and the lab's own set-up. */
export const LAB_SETUP_TIMEOUT_MS = LAB_LOCK_WAIT_MS + 180_000;

export class HaLab {
  readonly id = `${process.pid % 100000}${randomBytes(2).toString('hex')}`;
  readonly sw = `fwdha-${this.id}-sw`;
  readonly clientNs = `fwdha-${this.id}-c`;
  readonly serverNs = `fwdha-${this.id}-s`;
  readonly nodes: HaNodeHandle[];
  private readonly namespaces: string[] = [];
  private readonly dir = tempDir('fwd-ha-');
  /** the cluster's redis-server (a test may stop it: nothing on the wire depends on it) */
  redis: TestRedis | null = null;
  private readonly procs: Array<{ stop(): void }> = [];
  private readonly cluster = `ha${this.id}`;

  constructor(private readonly env: Record<string, string> = {}) {
    this.nodes = (['fw-a', 'fw-b'] as const).map((id) => ({ id, ns: `fwdha-${this.id}-${id}`, dir: path.join(this.dir, id), child: null, client: null }));
  }

  private addNs(ns: string): void {
    sh(['ip', 'netns', 'add', ns]);
    this.namespaces.push(ns);
    sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  }

  /**
   * A host namespace on bridge `br` (its link eth0 up, port `port` of the switch), `address`
   * on it when given; its name.
   */
  addHost(tag: string, br: 'brlan' | 'brwan', port: string, address?: string): string {
    const ns = `fwdha-${this.id}-${tag}`;
    this.addNs(ns);
    this.plug(ns, 'eth0', br, port);
    sh(['ip', '-n', ns, 'link', 'set', 'eth0', 'up']);
    if (address) sh(['ip', '-n', ns, 'address', 'add', address, 'dev', 'eth0']);
    return ns;
  }

  /** A veth from `ns` (named `name` there) to a port of bridge `br` in the switch. */
  private plug(ns: string, name: string, br: string, port: string): void {
    sh(['ip', '-n', this.sw, 'link', 'add', port, 'type', 'veth', 'peer', 'name', name, 'netns', ns]);
    sh(['ip', '-n', this.sw, 'link', 'set', port, 'master', br, 'up']);
  }

  /**
   * A lab created and set up by `setUp` (configure, echo servers), with fw-a master and fw-b
   * backup; destroyed again when any of it fails, so a test's beforeAll leaves nothing behind.
   */
  static async started(setUp: (lab: HaLab) => Promise<void>, env: Record<string, string> = {}): Promise<HaLab> {
    const lab = new HaLab(env);
    try {
      await lab.create();
      await setUp(lab);
      await lab.waitState(lab.nodes[0], 'master');
      await lab.waitState(lab.nodes[1], 'backup');
      return lab;
    } catch (e) {
      await lab.destroy();
      throw e;
    }
  }

  /** Two HA labs at once (jest's two workers) each run a pair of daemons, keepalived and
   * conntrackd on a 2-core machine: a CI run saw a node of one lab fail to come back as master
   * while another lab ran. One lab at a time, machine-wide. */
  private releaseLock: (() => void) | null = null;

  async create(): Promise<void> {
    requireLab();
    this.releaseLock = await machineLock('fwd-ha-lab', LAB_LOCK_WAIT_MS);
    requirePackages([['keepalived', 'keepalived'], ['conntrackd', 'conntrackd'], ['redis-server', 'redis-server']], 'the HA tests');
    this.addNs(this.sw);
    for (const br of ['brlan', 'brwan', 'brsync']) {
      sh(['ip', '-n', this.sw, 'link', 'add', br, 'type', 'bridge', 'forward_delay', '0']);
      sh(['ip', '-n', this.sw, 'link', 'set', br, 'type', 'bridge', 'mcast_snooping', '0']);
      sh(['ip', '-n', this.sw, 'link', 'set', br, 'up']);
    }
    for (const n of this.nodes) {
      this.addNs(n.ns);
      const tag = n.id.slice(-1);
      this.plug(n.ns, 'lan', 'brlan', `l${tag}`);
      this.plug(n.ns, 'wan', 'brwan', `w${tag}`);
      this.plug(n.ns, 'sync', 'brsync', `s${tag}`);
    }
    this.addHost('c', 'brlan', 'lc', `${LAN.client}/${LAN.prefix}`);
    sh(['ip', '-n', this.clientNs, 'route', 'add', 'default', 'via', LAN.vip]);
    this.addHost('s', 'brwan', 'ws', `${WAN.server}/${WAN.prefix}`);
    // the server knows no way to the LAN: only the source translation to the WAN's virtual address brings its replies back
    this.redis = await startRedis(path.join(this.dir, 'redis'));
    for (const n of this.nodes) await this.start(n);
  }

  /** Starts node `n`'s daemon (again) on its namespace and data folder; logs its client in. */
  async start(n: HaNodeHandle): Promise<void> {
    fs.mkdirSync(n.dir, { recursive: true });
    n.child = await startChild({
      FW_DATAPLANE: 'linux', FW_NETNS: n.ns, FW_INTERFACES: 'lan,wan,sync', FW_NODE_ID: n.id, FW_DATA_DIR: n.dir,
      REDIS_URL: this.redis!.url, FW_CLUSTER_NAME: this.cluster, FW_HELPERS_ON_STOP: 'keep', ...this.env,
    });
    n.client = await new Client(n.child.url).login();
  }

  /** The HA document of the lab, `advertMs` between VRRP adverts. */
  haDoc(advertMs: number, opts: LabOptions = {}): Record<string, unknown> {
    const own = (x: 'a' | 'b') => ({
      lan: [`${LAN[x]}/${LAN.prefix}`, ...(opts.lanV6 ? [`${LAN6[x]}/${LAN6.prefix}`] : [])],
      wan: [`${WAN[x]}/${WAN.prefix}`],
      sync: [`${SYNC[x]}/${SYNC.prefix}`],
    });
    return {
      enabled: true, 'sync-interface': 'sync', 'advert-interval-ms': advertMs, preempt: true,
      nodes: [{ node: 'fw-a', priority: 200, addresses: own('a') }, { node: 'fw-b', priority: 100, addresses: own('b') }],
      'virtual-addresses': [
        { interface: 'lan', vrid: 39, addresses: [`${LAN.vip}/${LAN.prefix}`] },
        { interface: 'wan', vrid: 40, addresses: [`${WAN.vip}/${WAN.prefix}`] },
      ],
    };
  }

  /** Commits the pair's configuration on node fw-a (the cluster gives it to fw-b): zones, an allow, the masquerade. */
  async configure(advertMs: number, opts: LabOptions = {}): Promise<void> {
    const c = this.nodes[0].client!;
    // begin and commit without jest's expect: the benchmark runs this too
    await ok(c.post('/api/config/begin'));
    await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['lan'] }));
    await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['wan'] }));
    await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
    await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'out-interface': 'wan' }));
    await ok(c.put('/api/ha', this.haDoc(advertMs, opts)));
    await opts.extra?.(c);
    await ok(c.post('/api/config/commit'));
  }

  /** An echo server (ECHO_PORT, TCP and UDP): by default the server's on the WAN. */
  async echo(ns = this.serverNs, address = WAN.server): Promise<void> {
    const script = path.join(__dirname, 'ha-prober.js');
    const proc = spawn('ip', ['netns', 'exec', ns, process.execPath, script, 'echo', address, String(ECHO_PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    ownChild(proc);
    this.procs.push({ stop: () => proc.kill('SIGKILL') });
    await new Promise<void>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`echo server exited (${code})`)));
      readline.createInterface({ input: proc.stdout! }).once('line', () => resolve());
    });
  }

  /** A DHCP client on the LAN, in a namespace of its own (`tag`, switch port `port`), with no address until it has a lease. */
  dhcpClient(tag: string, port: string): { ns: string; client: DhcpClient } {
    const ns = this.addHost(tag, 'brlan', port);
    const client = new DhcpClient(ns, path.join(this.dir, 'dhcp'), tag);
    this.procs.push(client);
    return { ns, client };
  }

  /** Flows every `intervalMs`: by default from the client on the LAN to the server on the WAN (outbound, source translation). */
  async prober(intervalMs: number, from: { ns: string; src: string; dst: string } = { ns: this.clientNs, src: LAN.client, dst: WAN.server }): Promise<Prober> {
    const p = new Prober(from.ns, intervalMs, from.src, from.dst);
    this.procs.push(p);
    await p.ready;
    return p;
  }

  /** GET /api/ha/status of a node (through its own daemon). */
  async status(n: HaNodeHandle): Promise<Record<string, any>> {
    return (await ok(n.client!.get('/api/ha/status'))).body;
  }

  /** Waits until node `n` reports `state` (at most `ms`). */
  async waitState(n: HaNodeHandle, state: string, ms = 60_000): Promise<void> {
    const deadline = Date.now() + ms;
    let last = '';
    while (Date.now() < deadline) {
      try {
        last = (await this.status(n)).state;
        if (last === state) return;
      } catch {
        // the daemon is starting
      }
      await sleep(200);
    }
    throw new Error(`${n.id} did not become ${state} within ${ms} ms (last: ${last})`);
  }

  /** The VRRP state keepalived's notify recorded for node `n` (MASTER, BACKUP, FAULT), read from its file: no daemon needed. */
  recordedState(n: HaNodeHandle): string {
    try {
      return fs.readFileSync(path.join(n.dir, 'dataplane', 'ha-state'), 'utf8').split(' ')[0];
    } catch {
      return '';
    }
  }

  /** Waits until the backup's conntrackd holds the master's connections (its external cache). */
  async synced(backup: HaNodeHandle): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const s = await this.status(backup);
      if (s.sync.external_cache > 0) return;
      await sleep(200);
    }
    throw new Error(`${backup.id}'s conntrackd never held the master's connections`);
  }

  /** The pid a helper of node `n` wrote, or null. */
  helperPid(n: HaNodeHandle, name: HelperName): number | null {
    try {
      return Number(fs.readFileSync(path.join(n.dir, 'dataplane', `${name}.pid`), 'utf8').trim()) || null;
    } catch {
      return null;
    }
  }

  private killHelpers(n: HaNodeHandle): void {
    for (const name of HELPERS) {
      const pid = this.helperPid(n, name);
      if (pid === null) continue;
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.includes(n.dir)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  /** "Power off" of node `n`: every link down, its daemon and helpers killed at once. Returns when it is done. */
  async powerOff(n: HaNodeHandle): Promise<void> {
    for (const l of ['lan', 'wan', 'sync']) sh(['ip', '-n', n.ns, 'link', 'set', l, 'down']);
    if (n.child) await kill9(n.child);
    this.killHelpers(n);
    n.child = null;
    n.client = null;
  }

  /** Power on again: links up, the daemon started (it starts keepalived and conntrackd again). */
  async powerOn(n: HaNodeHandle): Promise<void> {
    for (const l of ['lan', 'wan', 'sync']) sh(['ip', '-n', n.ns, 'link', 'set', l, 'up']);
    await this.start(n);
  }

  /** Whether node `n`'s helper `name` runs now (its pid file names a live process of its data folder). */
  helperRuns(n: HaNodeHandle, name: HelperName): boolean {
    const pid = this.helperPid(n, name);
    try {
      return pid !== null && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(n.dir);
    } catch {
      return false;
    }
  }

  /** The link-local address of node `n` on `link` (the source of its router advertisements). */
  linkLocal(n: HaNodeHandle, link: string): string {
    const info = JSON.parse(sh(['ip', '-n', n.ns, '-6', '-json', 'address', 'show', 'dev', link])) as Array<{ addr_info: Array<{ local?: string; scope?: string }> }>;
    return info[0].addr_info.find((a) => a.scope === 'link')!.local!;
  }

  /** Removes the sync link of both nodes (the bridge's ports go). */
  cutSync(): void {
    for (const port of ['sa', 'sb']) sh(['ip', '-n', this.sw, 'link', 'set', port, 'down']);
  }

  async destroy(): Promise<void> {
    for (const p of this.procs) p.stop();
    for (const n of this.nodes) {
      if (n.child && n.child.proc.exitCode === null) await kill9(n.child).catch(() => undefined);
      this.killHelpers(n);
    }
    await this.redis?.stop().catch(() => undefined);
    for (const ns of this.namespaces.reverse()) {
      try {
        sh(['ip', 'netns', 'delete', ns]);
      } catch {
        // already gone
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.releaseLock?.();
  }
}
