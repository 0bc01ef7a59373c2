// FQDN addresses at run time (issue 40, docs/dynamic-objects.md): every FQDN address of the
// running version is resolved (A and AAAA) and resolved again when the shortest record TTL
// runs out, within FW_FQDN_REFRESH_MIN..FW_FQDN_REFRESH_MAX. A failed resolution keeps the
// last good answer (and says why in lastError) and is retried after the minimum. A changed
// answer reaches eval (DynamicSets overlays it, like a dynamic set's entries) and the kernel
// (the address's named sets, flushed and written in one transaction) without a commit.
import { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import { fqdnNftSetName } from '../dataplane/nft';
import { NFT_TABLE } from '../dataplane/names';
import type { DynamicKernel } from './kernel-sets';
import type { RunningDoc } from './service';

export interface FqdnState {
  fqdn: string;
  /** the prefixes in use (/32 and /128), sorted */
  resolved: string[];
  /** ms; 0: never resolved */
  resolvedAt: number;
  lastError: string | null;
}

interface Entry extends FqdnState {
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
  private readonly names = new Map<string, Entry>();
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });
  /** bumped at every change of any resolution */
  generation = 0;
  private closed = false;

  constructor(
    private readonly running: () => RunningDoc,
    private readonly kernel: DynamicKernel | undefined,
    private readonly opts: FqdnOptions,
    private readonly log: Logger,
  ) {
    if (opts.servers.length) this.resolver.setServers(opts.servers);
    if (kernel) {
      const before = kernel.refill;
      kernel.refill = () => (before?.() ?? '') + this.refillScript();
    }
  }

  /** Starts resolving the FQDN addresses of the running version and stops the ones it no longer has. */
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
      if (had) { if (had.resolved.length) void this.writeKernel(name, had); continue; }
      this.names.set(name, { fqdn, resolved: [], resolvedAt: 0, lastError: null, timer: null });
      void this.refresh(name);
    }
  }

  /** The state of address `name`, or undefined when it is no FQDN address of the running version. */
  state(name: string): FqdnState | undefined {
    const e = this.names.get(name);
    return e && { fqdn: e.fqdn, resolved: e.resolved, resolvedAt: e.resolvedAt, lastError: e.lastError };
  }

  /** Every FQDN address's current prefixes, by address name (eval's overlay). */
  contents(): Map<string, string[]> {
    return new Map([...this.names].map(([name, e]) => [name, e.resolved]));
  }

  private async refresh(name: string): Promise<void> {
    const e = this.names.get(name);
    if (!e || this.closed) return;
    let waitSec = this.opts.minSec;
    try {
      const [v4, v6] = await Promise.all([this.lookup(e.fqdn, 4), this.lookup(e.fqdn, 6)]);
      if (this.names.get(name) !== e) return; // removed or changed meanwhile
      const resolved = [...v4.ips.map((ip) => `${ip}/32`), ...v6.ips.map((ip) => `${ip}/128`)].sort();
      const ttl = Math.min(v4.ttl, v6.ttl);
      waitSec = Math.min(this.opts.maxSec, Math.max(this.opts.minSec, Number.isFinite(ttl) ? ttl : this.opts.maxSec));
      const changed = resolved.join() !== e.resolved.join();
      e.resolved = resolved;
      e.resolvedAt = Date.now();
      e.lastError = null;
      if (changed) {
        this.generation++;
        this.log.info({ address: name, fqdn: e.fqdn, resolved }, 'fqdn address resolved to new prefixes');
        await this.writeKernel(name, e);
      }
    } catch (err) {
      if (this.names.get(name) !== e) return;
      e.lastError = String((err as Error).message ?? err).slice(0, 200);
      this.generation++;
      this.log.warn({ address: name, fqdn: e.fqdn, err: e.lastError }, 'fqdn resolution failed; the last good answer stays');
    }
    if (this.closed || this.names.get(name) !== e) return;
    e.timer = setTimeout(() => void this.refresh(name), waitSec * 1000);
    e.timer.unref();
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

  private lines(name: string, e: FqdnState): string[] {
    const out: string[] = [];
    for (const family of [4, 6] as const) {
      const set = `inet ${NFT_TABLE} ${fqdnNftSetName(name, family)}`;
      const ips = e.resolved.filter((p) => (family === 4) === !p.includes(':'));
      // `add set` is a no-op for the set the table declares (same type and flags) and makes the
      // script valid when no rule names the address (an unused set, gone at the next full write)
      out.push(`add set ${set} { type ${family === 4 ? 'ipv4_addr' : 'ipv6_addr'}; flags interval; }`, `flush set ${set}`);
      if (ips.length) out.push(`add element ${set} { ${ips.join(', ')} }`);
    }
    return out;
  }

  /** Writes one address's resolution into its kernel sets (only the families a rule declared). */
  private async writeKernel(name: string, e: FqdnState): Promise<void> {
    if (!this.kernel) return;
    try {
      await this.kernel.run(`${this.lines(name, e).join('\n')}\n`);
    } catch (err) {
      // a set not declared (no rule names the address for that family): the next apply's refill writes it
      this.log.debug({ address: name, err: String(err) }, 'fqdn kernel set not written');
    }
  }

  /** Every resolution as one script, run after a table was written. */
  private refillScript(): string {
    const lines = [...this.names].flatMap(([name, e]) => (e.resolved.length ? this.lines(name, e) : []));
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  close(): void {
    this.closed = true;
    for (const e of this.names.values()) if (e.timer) clearTimeout(e.timer);
    this.resolver.cancel();
  }
}
