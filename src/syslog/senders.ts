// One sender per FW_SYSLOG target: it holds the target's bounded buffer, its socket and its
// reconnection. send() never waits and never throws: a record that finds the buffer full is
// dropped and counted, so a receiver that is down or slow costs the API nothing but memory
// up to FW_SYSLOG_BUFFER messages.
//
// tcp:// and tls:// frame each message with octet counting (RFC 6587 3.4.1: "LEN SP MSG"),
// which survives any character in a message; the stream is written only while the socket
// takes data (write() true), so what is buffered stays in our queue, where it is counted,
// and not in the socket's. Syslog over TCP has no acknowledgement: what the kernel had sent
// when a receiver dies is lost unseen (RELP would be needed to know).
// udp:// sends one datagram a message (RFC 5426) on a connected socket, so that the
// kernel's "port unreachable" comes back as a send error and counts as a drop.
import dgram from 'node:dgram';
import dns from 'node:dns/promises';
import net from 'node:net';
import tls from 'node:tls';
import { BoundedQueue } from './bounded-queue';
import type { SyslogTarget } from './targets';

/** What GET /api/status and /metrics report of a target. */
export interface SenderStats {
  target: string;
  /** tcp and tls: a connection is open; udp: the socket is set up (a datagram is never answered) */
  connected: boolean;
  /** messages waiting for the target */
  buffered: number;
  /** messages handed to the kernel for the target */
  sent: number;
  /** messages lost: the buffer was full, or (udp) the send failed */
  dropped: number;
  /** the last connection or send error, null once connected again */
  lastError: string | null;
}

export interface SenderOptions {
  /** messages held while the target cannot take them (FW_SYSLOG_BUFFER) */
  buffer: number;
  /** tls: PEM of the certificate authorities trusted (FW_SYSLOG_CA); undefined: the system's */
  ca?: string;
  /** tls: verify the receiver's certificate and name (FW_SYSLOG_TLS_VERIFY) */
  verify: boolean;
}

/** The first wait before a reconnection; it doubles after each failure up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 30_000;
/** A connection attempt that has not succeeded by then is given up (a black-holed receiver). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface Sender {
  send(message: string): void;
  stats(): SenderStats;
  /** Stops reconnecting, writes what is buffered for at most `ms` while connected, closes. */
  close(ms: number): Promise<void>;
}

abstract class Reconnecting implements Sender {
  protected sent = 0;
  protected dropped = 0;
  protected lastError: string | null = null;
  protected connected = false;
  protected closing = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;

  constructor(protected readonly target: SyslogTarget, protected readonly queue: BoundedQueue<Buffer>) {}

  abstract send(message: string): void;
  abstract close(ms: number): Promise<void>;
  protected abstract connect(): void;

  stats(): SenderStats {
    return { target: this.target.url, connected: this.connected, buffered: this.queue.size, sent: this.sent, dropped: this.dropped, lastError: this.lastError };
  }

  protected buffer(frame: Buffer): void {
    if (!this.queue.push(frame)) this.dropped++;
  }

  protected failed(err: unknown): void {
    this.lastError = err instanceof Error ? err.message : String(err);
  }

  protected succeeded(): void {
    this.connected = true;
    this.lastError = null;
    this.retryMs = RETRY_MIN_MS;
  }

  /** After a lost or failed connection: the next attempt, later each time (with some jitter,
   * so that instances restarted together do not reconnect in step). */
  protected retry(): void {
    this.connected = false;
    if (this.closing || this.timer) return;
    const wait = Math.round(this.retryMs * (0.8 + Math.random() * 0.4));
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closing) this.connect();
    }, wait);
    this.timer.unref();
  }

  protected stopRetrying(): void {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** tcp:// and tls://: octet-counted frames on a stream. */
class StreamSender extends Reconnecting {
  private socket: net.Socket | null = null;
  private waitingDrain = false;
  private idle: (() => void) | null = null;

  constructor(target: SyslogTarget, private readonly opts: SenderOptions) {
    super(target, new BoundedQueue(opts.buffer));
    this.connect();
  }

  send(message: string): void {
    const body = Buffer.from(message, 'utf8');
    this.buffer(Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]));
    this.pump();
  }

  protected connect(): void {
    const { host, port } = this.target;
    const socket = this.target.protocol === 'tls'
      ? tls.connect({ host, port, ca: this.opts.ca, rejectUnauthorized: this.opts.verify, servername: net.isIP(host) ? undefined : host })
      : net.connect({ host, port });
    this.socket = socket;
    socket.unref();
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`)));
    socket.once(this.target.protocol === 'tls' ? 'secureConnect' : 'connect', () => {
      socket.setTimeout(0);
      socket.setKeepAlive(true, 30_000); // a receiver that vanished without a word is noticed
      this.succeeded();
      this.pump();
    });
    // a receiver says nothing; reading lets its close ('end') be seen at once
    socket.on('data', () => undefined);
    socket.on('end', () => {
      // a clean close is a failure too: the operator sees why nothing is delivered until it is back
      this.failed(new Error('the receiver closed the connection'));
      socket.destroy();
    });
    socket.on('error', (err) => this.failed(err));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.waitingDrain = false;
      this.retry();
    });
  }

  private pump(): void {
    const socket = this.socket;
    while (this.connected && socket && !this.waitingDrain) {
      const frame = this.queue.shift();
      if (!frame) break;
      this.sent++;
      if (!socket.write(frame)) {
        this.waitingDrain = true;
        socket.once('drain', () => {
          this.waitingDrain = false;
          this.pump();
        });
      }
    }
    if (this.queue.size === 0 && !this.waitingDrain) this.idle?.();
  }

  async close(ms: number): Promise<void> {
    this.stopRetrying();
    const socket = this.socket;
    if (!socket) return;
    if (this.connected && (this.queue.size > 0 || this.waitingDrain)) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        this.idle = () => { clearTimeout(t); resolve(); };
      });
    }
    this.socket = null;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => { socket.destroy(); resolve(); }, ms);
      socket.once('close', () => { clearTimeout(t); resolve(); });
      socket.end();
    });
  }
}

/** udp://: one datagram a message. The buffer holds messages while the socket is set up and
 * bounds the datagrams handed to node but not yet sent. */
class DatagramSender extends Reconnecting {
  private socket: dgram.Socket | null = null;
  private inFlight = 0;

  constructor(target: SyslogTarget, opts: SenderOptions) {
    super(target, new BoundedQueue(opts.buffer));
    this.connect();
  }

  send(message: string): void {
    const datagram = Buffer.from(message, 'utf8');
    if (!this.connected) this.buffer(datagram);
    else this.transmit(datagram);
  }

  private transmit(datagram: Buffer): void {
    const socket = this.socket!;
    if (this.inFlight >= this.queue.capacity) {
      this.dropped++;
      return;
    }
    this.inFlight++;
    socket.send(datagram, (err) => {
      this.inFlight--;
      if (err) {
        this.dropped++;
        this.failed(err);
      } else {
        this.sent++;
      }
    });
  }

  protected connect(): void {
    dns.lookup(this.target.host).then(({ address, family }) => {
      if (this.closing) return;
      const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
      this.socket = socket;
      socket.unref();
      // ICMP errors of earlier datagrams also come here; the socket stays usable
      socket.on('error', (err) => this.failed(err));
      socket.connect(this.target.port, address, () => {
        this.succeeded();
        for (let d = this.queue.shift(); d; d = this.queue.shift()) this.transmit(d);
      });
    }, (err: unknown) => {
      this.failed(err);
      this.retry();
    });
  }

  async close(): Promise<void> {
    this.stopRetrying();
    const socket = this.socket;
    this.socket = null;
    this.connected = false;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

export function createSender(target: SyslogTarget, opts: SenderOptions): Sender {
  return target.protocol === 'udp' ? new DatagramSender(target, opts) : new StreamSender(target, opts);
}
