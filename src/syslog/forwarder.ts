// The syslog forwarder: every record given to forward() goes, as one RFC 5424 message, to
// every FW_SYSLOG target. Audit entries come through forwardAudits (src/syslog/records.ts);
// traffic records through the same forward() with their own mapping (trafficRecord).
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Logger } from 'pino';
import { formatRecord, headerField, type Origin, type SyslogRecord } from './message';
import { createSender, type Sender, type SenderOptions, type SenderStats } from './senders';
import type { SyslogTarget } from './targets';

export interface ForwarderOptions extends SenderOptions {
  targets: SyslogTarget[];
  log: Logger;
}

/** How long a stop waits for each target to take what is still buffered. */
const CLOSE_MS = 1000;

export class SyslogForwarder {
  /** one sender per target, by its url */
  private senders = new Map<string, Sender>();
  private opts: ForwarderOptions;
  private readonly origin: Origin;
  private readonly log: Logger;

  constructor(opts: ForwarderOptions) {
    this.log = opts.log;
    this.opts = opts;
    this.origin = { hostname: headerField(os.hostname(), 255), appName: 'fwd', procId: String(process.pid) };
    for (const t of opts.targets) this.senders.set(t.url, createSender(t, opts));
    if (opts.targets.length) opts.log.info({ targets: opts.targets.map((t) => t.url), buffer: opts.buffer }, 'syslog forwarding');
  }

  /**
   * New targets and options (a reload of the settings): a target kept with the same options
   * keeps its sender, its connection and what it buffers; a target gone is closed after
   * writing out its buffer (as at a stop); a new one, or one whose options changed, starts.
   */
  async reconfigure(opts: Omit<ForwarderOptions, 'log'>): Promise<void> {
    const same = opts.buffer === this.opts.buffer && opts.ca === this.opts.ca && opts.verify === this.opts.verify;
    const next = new Map<string, Sender>();
    const closing: Sender[] = [];
    for (const t of opts.targets) {
      const kept = same ? this.senders.get(t.url) : undefined;
      next.set(t.url, kept ?? createSender(t, opts));
    }
    for (const [url, sender] of this.senders) if (next.get(url) !== sender) closing.push(sender);
    this.senders = next;
    this.opts = { ...opts, log: this.log };
    this.log.info({ targets: opts.targets.map((t) => t.url), buffer: opts.buffer }, 'syslog forwarding');
    await Promise.all(closing.map((s) => s.close(CLOSE_MS)));
  }

  /** Whether any target is configured (callers may skip building records when not). */
  get enabled(): boolean {
    return this.senders.size > 0;
  }

  /** Queues `record` for every target; returns at once and never throws. */
  forward(record: SyslogRecord): void {
    if (!this.senders.size) return;
    let message: string;
    try {
      message = formatRecord(record, this.origin);
    } catch (err) {
      this.log.warn({ err: String(err), msgid: record.msgid }, 'a record could not be formatted for syslog');
      return;
    }
    for (const s of this.senders.values()) s.send(message);
  }

  /** Per target: connected, buffered, sent, dropped, the last error. */
  stats(): SenderStats[] {
    return [...this.senders.values()].map((s) => s.stats());
  }

  async close(): Promise<void> {
    await Promise.all([...this.senders.values()].map((s) => s.close(CLOSE_MS)));
  }
}

/** FW_SYSLOG_CA's certificates, read once: a file that cannot be read or holds no
 * certificate stops the start with a message that says so (not a handshake failing later). */
export function readSyslogCa(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`FW_SYSLOG_CA: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    new X509Certificate(pem); // eslint-disable-line no-new
  } catch {
    throw new Error(`FW_SYSLOG_CA: ${file} holds no PEM certificate`);
  }
  return pem;
}
