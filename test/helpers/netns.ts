// Network namespaces for the data-plane tests: a firewall namespace and one peer namespace
// per firewall link, joined by veth pairs created inside the namespaces (no name ever exists
// in the root namespace), with an agent (netns-agent.ts) serving and sending packets in each
// peer. Names carry the pid and a random suffix; destroy() removes everything, also after a
// failure. A test that lacks what this needs fails with the reason (requireLab).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { DATAPLANE_PACKAGES, requirePackages } from './packages';

export { requirePackages };

export function sh(argv: string[], input?: string): string {
  return execFileSync(argv[0], argv.slice(1), { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Root, the programs (installed with apt-get when missing) and network namespaces: present,
 * or an error that says what is missing. Never a silent pass.
 */
export function requireLab(): void {
  if (process.getuid?.() !== 0) throw new Error('the data-plane tests need root (CAP_NET_ADMIN, CAP_SYS_ADMIN) to create network namespaces; run npm test as root');
  requirePackages(DATAPLANE_PACKAGES, 'the data-plane tests');
  const probe = `fwdprobe-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    sh(['ip', 'netns', 'add', probe]);
  } catch (e) {
    throw new Error(`the data-plane tests cannot create a network namespace: ${(e as Error).message}`);
  }
  sh(['ip', 'netns', 'delete', probe]);
}

export interface Observed {
  proto: string;
  src: string;
  sport: number;
  dst: string;
  dport: number;
}

export interface SendReq extends Observed {
  token: string;
}

/** An agent process inside a namespace. */
export class Agent {
  readonly got = new Map<string, Observed>();
  private readonly proc: ChildProcess;
  readonly ready: Promise<void>;

  constructor(readonly ns: string, addrs: string[], ports: number[]) {
    const script = path.join(__dirname, 'netns-agent.js');
    this.proc = spawn('ip', ['netns', 'exec', ns, process.execPath, script, addrs.join(','), ports.join(',')], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.ready = new Promise((resolve, reject) => {
      this.proc.once('exit', (code) => reject(new Error(`agent in ${ns} exited (${code})`)));
      readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as { ready?: boolean; error?: string; got?: string } & Observed;
        if (m.ready) resolve();
        else if (m.error) reject(new Error(`agent in ${ns}: ${m.error}`));
        else if (m.got) this.got.set(m.got, { proto: m.proto, src: m.src, sport: m.sport, dst: m.dst, dport: m.dport });
      });
    });
    this.ready.catch(() => undefined);
  }

  send(packets: SendReq[]): void {
    if (packets.length) this.proc.stdin!.write(`${JSON.stringify({ send: packets })}\n`);
  }

  abort(): void {
    this.proc.stdin!.write(`${JSON.stringify({ abort: true })}\n`);
  }

  stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.kill('SIGTERM');
    });
  }
}

/** One end of a long-lived TCP connection in a namespace (tcp-peer.ts). */
export class TcpEnd {
  readonly lines: string[] = [];
  closed = false;
  private readonly proc: ChildProcess;
  readonly ready: Promise<void>;

  constructor(readonly ns: string, args: string[]) {
    const script = path.join(__dirname, 'tcp-peer.js');
    this.proc = spawn('ip', ['netns', 'exec', ns, process.execPath, script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.ready = new Promise((resolve, reject) => {
      this.proc.once('exit', (code) => reject(new Error(`tcp-peer in ${ns} exited (${code})`)));
      readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as { ready?: boolean; line?: string; closed?: boolean };
        if (m.ready) resolve();
        if (m.line !== undefined) this.lines.push(m.line);
        if (m.closed) this.closed = true;
      });
    });
    this.ready.catch(() => undefined);
  }

  send(line: string): void {
    this.proc.stdin!.write(`${line}\n`);
  }

  /** Whether `line` arrives at this end within `ms` (bounded wait for a delivery or its absence). */
  async receives(line: string, ms = 3000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!this.lines.includes(line) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    return this.lines.includes(line);
  }

  stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.kill('SIGTERM');
    });
  }
}

export interface Peer {
  index: number; // 1..n
  ns: string;
  link: string; // the firewall's side: fw1..fwn
  address: string; // 10.i.0.2 on the veth
  behind: string; // 172.16.i.10 on its loopback: a server behind it
}

export const fwAddress = (i: number) => `10.${i}.0.1`;
export const fwAddress6 = (i: number) => `fd0${i}::1`;

export class Lab {
  readonly id = `${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly fw = `fwd-${this.id}-fw`;
  readonly peers: Peer[] = [];
  private readonly namespaces: string[] = [];
  private readonly agents: Array<Agent | TcpEnd> = [];

  /**
   * The firewall namespace and `n` peers; each peer routes everything through the firewall.
   * Family 6: peer i is fd0i::2/64 with a server fd1i::10 behind it, the firewall fd0i::1.
   */
  async create(n: number, family: 4 | 6 = 4): Promise<void> {
    this.addNs(this.fw);
    sh(['ip', '-n', this.fw, 'link', 'set', 'lo', 'up']);
    for (let i = 1; i <= n; i++) {
      const ns = `fwd-${this.id}-p${i}`;
      this.addNs(ns);
      const p: Peer = family === 4
        ? { index: i, ns, link: `fw${i}`, address: `10.${i}.0.2`, behind: `172.16.${i}.10` }
        : { index: i, ns, link: `fw${i}`, address: `fd0${i}::2`, behind: `fd1${i}::10` };
      const [len, host, nodad] = family === 4 ? ['24', '32', []] : ['64', '128', ['nodad']];
      sh(['ip', '-n', this.fw, 'link', 'add', p.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
      sh(['ip', '-n', ns, 'link', 'set', 'eth0', 'up']);
      sh(['ip', '-n', ns, 'address', 'add', `${p.address}/${len}`, 'dev', 'eth0', ...nodad]);
      sh(['ip', '-n', ns, 'address', 'add', `${p.behind}/${host}`, 'dev', 'lo', ...nodad]);
      sh(['ip', '-n', ns, 'route', 'add', 'default', 'via', family === 4 ? fwAddress(i) : fwAddress6(i)]);
      this.peers.push(p);
    }
  }

  private addNs(ns: string): void {
    sh(['ip', 'netns', 'add', ns]);
    this.namespaces.push(ns);
  }

  async agent(ns: string, addrs: string[], ports: number[]): Promise<Agent> {
    const a = new Agent(ns, addrs, ports);
    this.agents.push(a);
    await a.ready;
    return a;
  }

  /**
   * A long-lived TCP connection: a listener in `server.ns` on `dst`:`dport`, then a client in
   * `client.ns` from `src`:`sport`; resolves once both ends are connected.
   */
  async tcpConnection(client: { ns: string; src: string; sport: number }, server: { ns: string; dst: string; dport: number }): Promise<{ client: TcpEnd; server: TcpEnd }> {
    const srv = new TcpEnd(server.ns, ['listen', server.dst, String(server.dport)]);
    this.agents.push(srv);
    await srv.ready;
    const cli = new TcpEnd(client.ns, ['connect', client.src, String(client.sport), server.dst, String(server.dport)]);
    this.agents.push(cli);
    await cli.ready;
    return { client: cli, server: srv };
  }

  /** Runs a program in a namespace (argument array). */
  exec(ns: string, argv: string[], input?: string): string {
    return sh(['ip', 'netns', 'exec', ns, ...argv], input);
  }

  /** Whether one ping from peer `from` to peer `to` is answered within `waitSec` seconds. */
  pingAnswered(from: Peer, to: Peer, waitSec: number): boolean {
    try {
      this.exec(from.ns, ['busybox', 'ping', '-c', '1', '-W', String(waitSec), to.address]);
      return true;
    } catch {
      return false;
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.stop()));
    for (const ns of this.namespaces.reverse()) {
      try {
        sh(['ip', 'netns', 'delete', ns]);
      } catch {
        // already gone
      }
    }
  }
}
