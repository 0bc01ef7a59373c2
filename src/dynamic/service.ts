// Dynamic address sets at run time (issue 40): the entries every instance holds in memory
// (re-read from the shared store at each change notice), written to the kernel within a
// moment of the change, expired on the clock, and given to eval and the packet tracer.
//
// Eval: the running configuration is compiled once more with each set standing for its
// current entries (overlay.ts), lazily, at most once per change of the entries: the committed
// version's compiled matchers and analysis see a set as everything of its family instead.
import type { Logger } from 'pino';
import type { ConfigDoc, DynamicSetObj } from '../config/types';
import { CompiledConfig } from '../eval/compiled';
import type { DynamicEntry, DynamicEntryStore } from './entry-store';
import { addLines, deleteLines, type DynamicKernel } from './kernel-sets';
import { overlayDoc } from './overlay';
import type { FqdnResolver } from './fqdn';
import { hasFqdn, hasList } from '../config/groups';
import type { ExternalLists } from './lists';

/** How often expired entries leave memory (the kernel expires its own elements). */
const SWEEP_MS = 1000;

export interface RunningDoc {
  doc: ConfigDoc;
  version: number;
}

export class DynamicSets {
  /** live entries by set, as last read from the store */
  private readonly entries = new Map<string, DynamicEntry[]>();
  /** bumped at every change of any set's entries */
  private generation = 0;
  private overlay: { key: string; doc: ConfigDoc; compiled: CompiledConfig } | null = null;
  private readonly sweep: NodeJS.Timeout;
  private reloads = new Map<string, Promise<void>>();
  /** FQDN addresses' resolutions (issue 40), overlaid on eval like a set's entries */
  fqdn: FqdnResolver | null = null;
  /** external lists' prefixes (issue 40), overlaid the same way */
  lists: ExternalLists | null = null;

  constructor(
    readonly store: DynamicEntryStore,
    private readonly running: () => RunningDoc,
    private readonly kernel: DynamicKernel | undefined,
    private readonly log: Logger,
  ) {
    store.onChange((set) => void this.reload(set));
    if (kernel) kernel.refill = () => this.refillScript();
    this.sweep = setInterval(() => this.expire(Date.now()), SWEEP_MS);
    this.sweep.unref();
  }

  /** Reads every set of the running version (at start, and when a version brings new sets). */
  async loadAll(): Promise<void> {
    const { doc } = this.running();
    for (const name of [...this.entries.keys()]) if (!doc.dynamicSets.has(name)) this.entries.delete(name);
    await Promise.all([...doc.dynamicSets.keys()].map((name) => this.reload(name)));
  }

  /** The set of the running version, or undefined. */
  set(name: string): DynamicSetObj | undefined {
    return this.running().doc.dynamicSets.get(name);
  }

  /** The live entries of `name` held here. */
  current(name: string, now = Date.now()): DynamicEntry[] {
    return (this.entries.get(name) ?? []).filter((e) => e.expiresAt === 0 || e.expiresAt > now);
  }

  /** Re-reads a set from the store and writes the difference to the kernel (one read at a time per set). */
  reload(name: string): Promise<void> {
    const before = this.reloads.get(name) ?? Promise.resolve();
    const next = before.then(() => this.reloadNow(name)).catch((e: unknown) => {
      this.log.warn({ set: name, err: String(e) }, 'dynamic set reload failed');
    });
    this.reloads.set(name, next);
    return next;
  }

  private async reloadNow(name: string): Promise<void> {
    const set = this.set(name);
    if (!set) return;
    const now = Date.now();
    const fresh = await this.store.list(name, now);
    const old = new Map((this.entries.get(name) ?? []).map((e) => [e.ip, e.expiresAt]));
    const added = fresh.filter((e) => old.get(e.ip) !== e.expiresAt);
    const freshIps = new Set(fresh.map((e) => e.ip));
    const removed = [...old.keys()].filter((ip) => !freshIps.has(ip));
    this.entries.set(name, fresh);
    this.generation++;
    if (!this.kernel || (added.length === 0 && removed.length === 0)) return;
    const script = [...deleteLines(set, removed), ...addLines(set, added, now)];
    await this.kernel.run(`${script.join('\n')}\n`);
    // new entries of a set a deny policy names end their established connections too
    const newIps = added.filter((e) => !old.has(e.ip)).map((e) => e.ip);
    if (newIps.length && this.namedByDeny(name)) {
      const cut = await this.kernel.cut(set.family, newIps);
      if (cut) this.log.info({ set: name, connections: cut }, 'connections of new dynamic set entries cut');
    }
  }

  private namedByDeny(name: string): boolean {
    return this.running().doc.policies.some((p) => p.action === 'deny' && !p.disabled && (p.srcAddr === name || p.dstAddr === name));
  }

  /** Every entry of every running set, as one nft script (after the table was written). */
  private refillScript(): string {
    const { doc } = this.running();
    const now = Date.now();
    const lines: string[] = [];
    for (const [name, set] of doc.dynamicSets) lines.push(...addLines(set, this.current(name, now), now));
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  private expire(now: number): void {
    for (const [name, list] of this.entries) {
      const keep = list.filter((e) => e.expiresAt === 0 || e.expiresAt > now);
      if (keep.length !== list.length) {
        this.entries.set(name, keep);
        this.generation++;
      }
    }
  }

  /**
   * The running configuration compiled with every set standing for its current entries, or
   * null when no policy names a set (the version's own compiled matchers answer then).
   */
  compiledNow(): { compiled: CompiledConfig; version: number; doc: ConfigDoc } | null {
    const { doc, version } = this.running();
    const fqdn = this.fqdn && this.usesFqdn(doc) ? this.fqdn : null;
    const lists = this.lists && this.usesLists(doc) ? this.lists : null;
    if (!doc.dynamicSets.size && !fqdn && !lists) return null;
    const now = Date.now();
    this.expire(now);
    const key = `${version}:${this.generation}:${fqdn?.generation ?? 0}:${lists?.generation ?? 0}`;
    if (this.overlay?.key !== key) {
      const contents = new Map([...doc.dynamicSets.keys()].map((n) => [n, this.current(n, now).map((e) => e.ip)]));
      if (fqdn) for (const [n, ips] of fqdn.contents()) contents.set(n, ips);
      if (lists) for (const [n, ips] of lists.contents()) contents.set(n, ips);
      const over = overlayDoc(doc, contents);
      this.overlay = { key, doc: over, compiled: CompiledConfig.compile(over) };
    }
    return { compiled: this.overlay.compiled, version, doc: this.overlay.doc };
  }

  private fqdnMemo: { doc: ConfigDoc; has: boolean } | null = null;
  /** Whether the running document has an FQDN address (looked for once per version). */
  usesFqdn(doc: ConfigDoc): boolean {
    if (this.fqdnMemo?.doc !== doc) this.fqdnMemo = { doc, has: hasFqdn(doc) };
    return this.fqdnMemo.has;
  }

  private listMemo: { doc: ConfigDoc; has: boolean } | null = null;
  /** Whether the running document has an external list (looked for once per version). */
  usesLists(doc: ConfigDoc): boolean {
    if (this.listMemo?.doc !== doc) this.listMemo = { doc, has: hasList(doc) };
    return this.listMemo.has;
  }

  /** Live entries over every dynamic set (their share of FW_DYNAMIC_MAX_ENTRIES). */
  totalEntries(now = Date.now()): number {
    let n = 0;
    for (const list of this.entries.values()) for (const e of list) if (e.expiresAt === 0 || e.expiresAt > now) n++;
    return n;
  }

  close(): void {
    this.lists?.close();
    this.fqdn?.close();
    clearInterval(this.sweep);
  }
}
