// FQDN addresses at run time (issue 40, docs/dynamic-objects.md): every FQDN address of the
// running version is resolved (A and AAAA) and resolved again when the shortest record TTL
// runs out, within FW_FQDN_REFRESH_MIN..FW_FQDN_REFRESH_MAX. A failed resolution keeps the
// last good answer (and says why in lastError) and is retried after the minimum.
//
// One instance of a cluster resolves (it holds the share's lease) and publishes each answer
// (fqdn-share.ts); every instance applies what was published: eval (DynamicSets overlays the
// prefixes, like a dynamic set's entries) and the kernel (the address's named sets, flushed and
// written in one transaction), without a commit. The published answer is also what a
// restarted instance starts from, before it asks any DNS server.
import { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import { fqdnNftSetName } from '../dataplane/nft';
import { NFT_TABLE } from '../dataplane/names';
import type { EventEmitterFn } from '../events/types';
import type { FqdnRecord, FqdnShare } from './fqdn-share';
import type { DynamicKernel } from './kernel-sets';
import type { RunningDoc } from './service';

export interface FqdnState {
  fqdn: string;
  /** the prefixes in use (/32 and /128), sorted */
  resolved: string[];
  /** ms; 0: never resolved */
  resolvedAt: number;
  /** ms: the answer that made `resolved` what it is; 0: never resolved */
  changedAt: number;
  lastError: string | null;
}

interface Entry {
  fqdn: string;
  /** what this instance applies (the last record published for this name), null: none yet */
  rec: FqdnRecord | null;
  /** the first read of the published record (a resolver schedules from its nextAt) */
  loaded: Promise<void>;
  /** the next resolution, while this instance is the resolver */
  timer: NodeJS.Timeout | null;
}

export interface FqdnOptions {
  servers: string[];
  minSec: number;
  maxSec: number;
}

/** Codes that say "no record of this type" rather than a failure (a name with only A records). */
const NO_RECORD = new Set(['ENODATA']);

export class FqdnResolver {
  /** resolutions tried by this instance, by result (/metrics: fwd_fqdn_resolutions_total) */
  readonly resolutions = { ok: 0, failed: 0 };
  private readonly names = new Map<string, Entry>();
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });
  /** bumped at every change of any applied record (the read model's ETag and eval's overlay) */
  generation = 0;
  /** whether this instance resolves (holds the share's lease) */
  private resolving = false;
  private lease: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly running: () => RunningDoc,
    private readonly kernel: DynamicKernel | undefined,
    private readonly share: FqdnShare,
    private readonly opts: FqdnOptions,
    private readonly log: Logger,
    private readonly emit: EventEmitterFn = () => undefined,
  ) {
    if (opts.servers.length) this.resolver.setServers(opts.servers);
    if (kernel) {
      const before = kernel.refill;
      kernel.refill = () => (before?.() ?? '') + this.refillScript();
    }
    share.onChange((name) => void this.adopt(name));
  }

  /** Takes part in the lease: now, then every renewMs (the resolver renews, the others wait to take over). */
  start(): void {
    void this.tick();
    this.lease = setInterval(() => void this.tick(), this.share.renewMs);
    this.lease.unref();
  }

  /** Starts following the FQDN addresses of the running version and stops the ones it no longer has. */
  sync(): void {
    const { doc } = this.running();
    const want = new Map<string, string>();
    for (const a of doc.addresses.values()) if (a.fqdn) want.set(a.name, a.fqdn);
    for (const [name, e] of this.names) {
      if (want.get(name) !== e.fqdn) {
        if (e.timer) clearTimeout(e.timer);
        this.names.delete(name);
        this.generation++;
      }
    }
    for (const [name, fqdn] of want) {
      const had = this.names.get(name);
      // a new version may name the address in a rule for the first time: its sets get the answer
      if (had) { if (had.rec?.resolved.length) void this.writeKernel(name, had.rec); continue; }
      const e: Entry = { fqdn, rec: null, loaded: Promise.resolve(), timer: null };
      this.names.set(name, e);
      e.loaded = this.adopt(name);
      if (this.resolving) void e.loaded.then(() => this.schedule(name, e));
    }
  }

  /** The state of address `name`, or undefined when it is no FQDN address of the running version. */
  state(name: string): FqdnState | undefined {
    const e = this.names.get(name);
    if (!e) return undefined;
    const r = e.rec;
    return { fqdn: e.fqdn, resolved: r?.resolved ?? [], resolvedAt: r?.resolvedAt ?? 0, changedAt: r?.changedAt ?? 0, lastError: r?.lastError ?? null };
  }

  /** Every FQDN address's current prefixes, by address name (eval's overlay). */
  contents(): Map<string, string[]> {
    return new Map([...this.names].map(([name, e]) => [name, e.rec?.resolved ?? []]));
  }

  /** Reads the published record of `name` and applies it. */
  private async adopt(name: string): Promise<void> {
    try {
      const rec = await this.share.get(name);
      if (rec) await this.apply(name, rec);
    } catch (err) {
      this.log.warn({ address: name, err: String(err) }, 'fqdn resolution not read from the store');
    }
  }

  /** Applies a record of the current name, unless this instance holds a newer one (a late read never goes back). */
  private async apply(name: string, rec: FqdnRecord): Promise<void> {
    const e = this.names.get(name);
    if (!e || rec.fqdn !== e.fqdn || (e.rec && rec.triedAt < e.rec.triedAt)) return;
    const before = e.rec;
    e.rec = rec;
    this.generation++;
    if (!before || before.resolved.join() !== rec.resolved.join()) await this.writeKernel(name, rec);
  }

  /** One turn of the lease: this instance takes or renews it, or learns another holds it. */
  private async tick(): Promise<void> {
    let mine = false;
    try {
      mine = !this.closed && (await this.share.claim());
    } catch (err) {
      this.log.debug({ err: String(err) }, 'fqdn resolver lease not reached');
    }
    if (mine === this.resolving || this.closed) return;
    this.resolving = mine;
    this.log.info({ resolving: mine }, mine ? 'this instance resolves the FQDN addresses' : 'another instance resolves the FQDN addresses');
    for (const [name, e] of this.names) {
      if (e.timer) clearTimeout(e.timer);
      e.timer = null;
      if (mine) void e.loaded.then(() => this.schedule(name, e));
    }
  }

  /** Schedules the next resolution of `name` at its record's nextAt (now when there is none). */
  private schedule(name: string, e: Entry, at = e.rec?.nextAt ?? 0): void {
    if (this.closed || !this.resolving || this.names.get(name) !== e) return;
    if (e.timer) clearTimeout(e.timer);
    e.timer = setTimeout(() => void this.refresh(name, e), Math.max(0, at - Date.now()));
    e.timer.unref();
  }

  private async refresh(name: string, e: Entry): Promise<void> {
    e.timer = null;
    if (this.closed || !this.resolving || this.names.get(name) !== e) return;
    const now = Date.now();
    const old = e.rec;
    let rec: FqdnRecord;
    try {
      const [v4, v6] = await Promise.all([this.lookup(e.fqdn, 4), this.lookup(e.fqdn, 6)]);
      const resolved = [...v4.ips.map((ip) => `${ip}/32`), ...v6.ips.map((ip) => `${ip}/128`)].sort();
      const ttl = Math.min(v4.ttl, v6.ttl);
      const waitSec = Math.min(this.opts.maxSec, Math.max(this.opts.minSec, Number.isFinite(ttl) ? ttl : this.opts.maxSec));
      const at = Date.now();
      const same = !!old && old.resolved.join() === resolved.join();
      rec = { fqdn: e.fqdn, resolved, resolvedAt: at, changedAt: same ? old.changedAt : at, triedAt: at, lastError: null, nextAt: at + waitSec * 1000 };
      this.resolutions.ok++;
    } catch (err) {
      this.resolutions.failed++;
      const error = String((err as Error).message ?? err).slice(0, 200);
      rec = { fqdn: e.fqdn, resolved: old?.resolved ?? [], resolvedAt: old?.resolvedAt ?? 0, changedAt: old?.changedAt ?? 0, triedAt: Date.now(), lastError: error, nextAt: now + this.opts.minSec * 1000 };
    }
    if (this.names.get(name) !== e) return; // removed or changed meanwhile
    await this.publish(name, rec, old);
    this.schedule(name, e, rec.nextAt);
  }

  /**
   * Applies a new record here, publishes it (every other instance applies it) and reports a
   * change or a new failure. Applied first: the kernel need not wait for the store's write
   * (an fsync'd file, or Redis).
   */
  private async publish(name: string, rec: FqdnRecord, old: FqdnRecord | null): Promise<void> {
    await this.apply(name, rec);
    try {
      await this.share.put(name, rec);
    } catch (err) {
      this.log.warn({ address: name, err: String(err) }, 'fqdn resolution not published; applied here only');
    }
    const previous = old?.resolved ?? [];
    const resolvedAt = rec.resolvedAt ? new Date(rec.resolvedAt).toISOString() : null;
    if (rec.lastError === null && previous.join() !== rec.resolved.join()) {
      this.log.info({ address: name, fqdn: rec.fqdn, resolved: rec.resolved, previous }, 'fqdn address resolved to new prefixes');
      this.emit({ type: 'fqdn', state: 'changed', address: name, fqdn: rec.fqdn, resolved: rec.resolved, previous, resolvedAt });
    } else if (rec.lastError !== null && (old?.lastError ?? null) === null) {
      this.log.warn({ address: name, fqdn: rec.fqdn, err: rec.lastError }, 'fqdn resolution failed; the last good answer stays');
      this.emit({ type: 'fqdn', state: 'failed', address: name, fqdn: rec.fqdn, resolved: rec.resolved, previous, resolvedAt, error: rec.lastError });
    }
  }

  /** One family's addresses and shortest TTL (Infinity when it has none). */
  private async lookup(fqdn: string, family: 4 | 6): Promise<{ ips: string[]; ttl: number }> {
    try {
      const recs = family === 4 ? await this.resolver.resolve4(fqdn, { ttl: true }) : await this.resolver.resolve6(fqdn, { ttl: true });
      return { ips: recs.map((r) => r.address), ttl: recs.reduce((m, r) => Math.min(m, r.ttl), Infinity) };
    } catch (err) {
      if (NO_RECORD.has((err as NodeJS.ErrnoException).code ?? '')) return { ips: [], ttl: Infinity };
      throw err;
    }
  }

  private lines(name: string, resolved: readonly string[]): string[] {
    const out: string[] = [];
    for (const family of [4, 6] as const) {
      const set = `inet ${NFT_TABLE} ${fqdnNftSetName(name, family)}`;
      const ips = resolved.filter((p) => (family === 4) === !p.includes(':'));
      // `add set` is a no-op for the set the table declares (same type and flags) and makes the
      // script valid when no rule names the address (an unused set, gone at the next full write)
      out.push(`add set ${set} { type ${family === 4 ? 'ipv4_addr' : 'ipv6_addr'}; flags interval; }`, `flush set ${set}`);
      if (ips.length) out.push(`add element ${set} { ${ips.join(', ')} }`);
    }
    return out;
  }

  /** Writes one address's resolution into its kernel sets, in one transaction. */
  private async writeKernel(name: string, rec: FqdnRecord): Promise<void> {
    if (!this.kernel) return;
    try {
      await this.kernel.run(`${this.lines(name, rec.resolved).join('\n')}\n`);
    } catch (err) {
      // no table yet (before the first apply): the apply's refill writes it
      this.log.debug({ address: name, err: String(err) }, 'fqdn kernel set not written');
    }
  }

  /** Every resolution as one script, run after a table was written. */
  private refillScript(): string {
    const lines = [...this.names].flatMap(([name, e]) => (e.rec?.resolved.length ? this.lines(name, e.rec.resolved) : []));
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  close(): void {
    this.closed = true;
    if (this.lease) clearInterval(this.lease);
    for (const e of this.names.values()) if (e.timer) clearTimeout(e.timer);
    this.resolver.cancel();
    // another instance takes over at once rather than after the lease
    if (this.resolving) void this.share.release().catch(() => undefined);
  }
}
