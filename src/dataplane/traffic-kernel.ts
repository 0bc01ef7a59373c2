// The kernel's traffic records as ulogd writes them (one JSON line per logged packet on a
// unix socket the daemon listens on), held in one bounded queue until the traffic log takes
// them: a flood beyond it is dropped here and counted, before any parsing, so it never
// costs the API more than reading the socket. Also restores the original destination of a
// DNAT'd connection: its nat_pre record (the packet before translation) comes just before
// the forward chain's record of the same packet.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { formatIp, parseIp } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { DEFAULT_DENY_LOG_PREFIX } from './nft-log';
import { staticInside } from '../config/nat-static';

/** One logged first packet of a connection, as the kernel saw it (destination before DNAT). */
export interface KernelTrafficRecord {
  /** unix ms, the kernel's time of the packet */
  at: number;
  /** the policy that logged it; null: the default deny */
  policy: number | null;
  action: 'allow' | 'deny';
  family: 4 | 6;
  protocol: number;
  src: string;
  dst: string;
  srcPort: number | null;
  dstPort: number | null;
  /** ICMP type of an ICMP packet, else null */
  icmpType: number | null;
  inInterface: string | null;
  outInterface: string | null;
}

/** What the traffic log takes from: records in arrival order, and what was lost on the way. */
export interface TrafficFeed {
  /** up to `max` queued records, oldest first (removed from the queue) */
  take(max: number): KernelTrafficRecord[];
  /** resolves when records are queued (at once if some are) */
  readable(): Promise<void>;
  /** records dropped because the queue was full, since start */
  readonly dropped: number;
  /** records queued now */
  readonly queued: number;
}

/** The DNAT records kept for the forward records that follow them (a few ms later). */
const DNAT_MEMORY = 4096;

type Json = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const canonical = (ip: string): string => {
  const a = parseIp(ip);
  return a ? formatIp(a.family, a.bytes) : ip;
};

const POLICY_PREFIX = /^fwd policy (\d+) (allow|deny)$/;
const NAT_PREFIX = /^fwd nat (\d+)$/;

export class NflogSocket implements TrafficFeed {
  private readonly lines: string[] = [];
  private head = 0;
  private droppedCount = 0;
  private wake: (() => void) | null = null;
  private readonly server: net.Server;
  /** ulogd's connections (one at a time, a new one after its restart) */
  private readonly sockets = new Set<net.Socket>();
  private readonly dnat = new Map<string, { dst: string; dstPort: number | null }>();
  /** resolves when ulogd connects */
  connected: Promise<void> = Promise.resolve();

  constructor(readonly socketPath: string, private readonly capacity: number, private readonly doc: () => ConfigDoc | null) {
    this.server = net.createServer((sock) => this.read(sock));
  }

  /** Listens (a stale socket file of a previous run is replaced). */
  async listen(): Promise<void> {
    fs.mkdirSync(path.dirname(this.socketPath), { recursive: true });
    fs.rmSync(this.socketPath, { force: true });
    this.rearm();
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socketPath, () => resolve());
    });
  }

  /** `connected` waits for the next connection (a restarted ulogd's). */
  rearm(): void {
    let onConnect: () => void = () => undefined;
    this.connected = new Promise((resolve) => { onConnect = resolve; });
    this.server.once('connection', () => onConnect());
  }

  get listening(): boolean {
    return this.server.listening;
  }

  private read(sock: net.Socket): void {
    this.sockets.add(sock);
    sock.once('close', () => this.sockets.delete(sock));
    let rest = '';
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        if (this.queued >= this.capacity) this.droppedCount++;
        else this.lines.push(line);
      }
      if (this.queued > 0 && this.wake) {
        const w = this.wake;
        this.wake = null;
        w();
      }
    });
    sock.on('error', () => undefined); // ulogd went away: the next start connects again
  }

  get dropped(): number {
    return this.droppedCount;
  }

  get queued(): number {
    return this.lines.length - this.head;
  }

  readable(): Promise<void> {
    if (this.queued > 0) return Promise.resolve();
    return new Promise((resolve) => { this.wake = resolve; });
  }

  take(max: number): KernelTrafficRecord[] {
    const out: KernelTrafficRecord[] = [];
    while (out.length < max && this.head < this.lines.length) {
      const r = this.parse(this.lines[this.head++]);
      if (r) out.push(r);
    }
    if (this.head === this.lines.length) {
      this.lines.length = 0;
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
    return out;
  }

  /** A record of the forward chain (a DNAT record is remembered and gives null). */
  private parse(line: string): KernelTrafficRecord | null {
    let j: Json;
    try {
      j = JSON.parse(line) as Json;
    } catch {
      return null;
    }
    const prefix = text(j['oob.prefix']) ?? '';
    const src = text(j.src_ip);
    const dst0 = text(j.dest_ip);
    const protocol = num(j['ip.protocol']) ?? num(j['ip6.nexthdr']);
    if (src === null || dst0 === null || protocol === null) return null;
    const srcPort = num(j.src_port);
    const dstPort0 = num(j.dest_port);
    const nat = NAT_PREFIX.exec(prefix);
    if (nat) {
      this.rememberDnat(Number(nat[1]), protocol, canonical(src), srcPort, canonical(dst0), dstPort0);
      return null;
    }
    const policy = POLICY_PREFIX.exec(prefix);
    if (!policy && prefix !== DEFAULT_DENY_LOG_PREFIX) return null;
    const key = `${protocol} ${canonical(src)} ${srcPort} ${canonical(dst0)} ${dstPort0}`;
    const original = this.dnat.get(key);
    if (original) this.dnat.delete(key);
    const sec = num(j['oob.time.sec']);
    return {
      at: sec === null ? Date.now() : sec * 1000 + Math.floor((num(j['oob.time.usec']) ?? 0) / 1000),
      policy: policy ? Number(policy[1]) : null,
      action: policy ? (policy[2] as 'allow' | 'deny') : 'deny',
      family: num(j['oob.family']) === 10 ? 6 : 4,
      protocol,
      src: canonical(src),
      dst: original?.dst ?? canonical(dst0),
      srcPort,
      dstPort: original ? original.dstPort : dstPort0,
      icmpType: num(j['icmp.type']) ?? num(j['icmpv6.type']),
      inInterface: text(j['oob.in']),
      outInterface: text(j['oob.out']),
    };
  }

  /** The forward record of this packet will carry the rule's translation: keyed by it. */
  private rememberDnat(natId: number, protocol: number, src: string, srcPort: number | null, dst: string, dstPort: number | null): void {
    const rule = this.doc()?.nat.find((n) => n.id === natId);
    if (!rule || rule.translatedIp === '') return;
    const toPort = rule.translatedPort ? Number(rule.translatedPort) : dstPort;
    const to = rule.type === 'static' ? staticInside(this.doc()!, rule, dst) : canonical(rule.translatedIp);
    if (to === null) return;
    this.dnat.set(`${protocol} ${src} ${srcPort} ${to} ${toPort}`, { dst, dstPort });
    if (this.dnat.size > DNAT_MEMORY) this.dnat.delete(this.dnat.keys().next().value!);
  }

  async close(): Promise<void> {
    // a ulogd left running (FW_HELPERS_ON_STOP=keep) holds its connection: the close would wait for it
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.socketPath, { force: true });
  }
}
