// External lists at run time (issue 40, docs/dynamic-objects.md): every address of the
// running version with a `url` is fetched every `refresh` seconds (no more often than
// FW_LIST_REFRESH_MIN) by the instance that claims it (list-share.ts), and every instance
// takes the published result: into eval (DynamicSets overlays it, like a set's entries), into
// the kernel (the address's named sets, flushed and written in one transaction) and into the
// read model, without a commit. A failed fetch keeps the last good list and says why.
//
// Capacity: the entries of every list and every dynamic set stay within FW_DYNAMIC_MAX_ENTRIES.
// Dynamic sets come first (a POST past the limit is refused whole); lists share what is left,
// in name order, and what does not fit is cut from the end of the list, counted in `cut`.
import type { Logger } from 'pino';
import { listNftSetName } from '../dataplane/nft';
import { NFT_TABLE } from '../dataplane/names';
import { union } from '../dataplane/ranges';
import { addrElements } from '../dataplane/nft-sets';
import { parseCidr, type Cidr } from '../config/net';
import { contains } from '../config/dynamic-entries';
import type { EventInput } from '../events/types';
import type { DynamicKernel } from './kernel-sets';
import type { RunningDoc } from './service';
import { fetchList, type FetchLimits } from './list-fetch';
import type { ListShare, ListState } from './list-share';
import type { ListView } from '../config/render/objects';

export interface ListsOptions extends FetchLimits {
  /** FW_LIST_REFRESH_MIN: no list is fetched more often, whatever its refresh */
  minRefreshSec: number;
  /** FW_DYNAMIC_MAX_ENTRIES: over every list and set */
  totalMax: number;
}


interface Held {
  url: string;
  refresh: number;
  state: ListState | null;
  /** the prefixes in force and how many were cut */
  inForce: string[];
  cut: number;
  /** inForce parsed (the tracer's lookups), built when first asked */
  parsed: Cidr[] | null;
  timer: NodeJS.Timeout | null;
}

/** Elements per `add element` line: one transaction either way, shorter lines for nft's parser. */
const CHUNK = 4096;
/** How often the budget is checked against the dynamic sets' entries (they change on their own). */
const BALANCE_MS = 2000;

export class ExternalLists {
  private readonly lists = new Map<string, Held>();
  /** bumped at every change of what any list holds in force (eval's overlay) */
  generation = 0;
  /** bumped at every change of what the read model shows besides (fetch times, errors) */
  shown = 0;
  /** the live entries of every dynamic set (their share of FW_DYNAMIC_MAX_ENTRIES) */
  setEntries: () => number = () => 0;
  /** GET /api/events: a list's content changed, or its fetch failed (set by the app) */
  events: ((e: EventInput) => void) | null = null;
  readonly fetches = { ok: 0, failed: 0 };
  private closed = false;
  private readonly balance: NodeJS.Timeout;

  constructor(
    private readonly running: () => RunningDoc,
    private readonly share: ListShare,
    private readonly kernel: DynamicKernel | undefined,
    private readonly opts: ListsOptions,
    private readonly log: Logger,
  ) {
    share.onPut((name) => void this.adoptShared(name));
    if (kernel) {
      const before = kernel.refill;
      kernel.refill = () => (before?.() ?? '') + this.refillScript();
    }
    this.balance = setInterval(() => this.rebalance(), BALANCE_MS);
    this.balance.unref();
  }

  /** Starts the lists of the running version, stops the ones it no longer has. */
  async sync(): Promise<void> {
    const want = new Map<string, { url: string; refresh: number }>();
    for (const a of this.running().doc.addresses.values()) if (a.url) want.set(a.name, { url: a.url, refresh: a.refresh ?? 3600 });
    for (const [name, h] of this.lists) {
      const w = want.get(name);
      if (w?.url === h.url) { h.refresh = w.refresh; continue; }
      if (h.timer) clearTimeout(h.timer);
      this.lists.delete(name);
      this.generation++;
    }
    const fresh = [...want].filter(([name]) => !this.lists.has(name));
    for (const [name, w] of fresh) this.lists.set(name, { ...w, state: null, inForce: [], cut: 0, parsed: null, timer: null });
    // the kept state first (a restart enforces the last good list at once), then the schedule
    await Promise.all(fresh.map(async ([name]) => {
      const kept = await this.share.get(name).catch(() => null);
      const h = this.lists.get(name);
      if (!h || this.closed) return;
      if (kept?.url === h.url) h.state = kept;
      this.schedule(name, h, kept?.url === h.url ? kept.triedAt + this.periodMs(h) - Date.now() : 0);
    }));
    // a new version may name a list in a rule for the first time: its sets get the entries
    this.rebalance(true);
  }

  private periodMs(h: Held): number {
    return Math.max(h.refresh, this.opts.minRefreshSec) * 1000;
  }

  private schedule(name: string, h: Held, delayMs: number): void {
    if (this.closed) return;
    if (h.timer) clearTimeout(h.timer);
    h.timer = setTimeout(() => void this.tick(name, h), Math.max(0, delayMs));
    h.timer.unref();
  }

  /** One refresh: fetched here when this instance claims the list, else left to the instance that did. */
  private async tick(name: string, h: Held): Promise<void> {
    try {
      if (await this.share.claim(name, this.periodMs(h))) await this.fetchNow(name, h);
    } catch (e) {
      this.log.warn({ address: name, err: String(e) }, 'external list refresh failed');
    }
    if (this.lists.get(name) === h) this.schedule(name, h, this.periodMs(h));
  }

  private async fetchNow(name: string, h: Held): Promise<void> {
    const old = h.state;
    const now = Date.now();
    let next: ListState;
    try {
      const got = await fetchList(h.url, this.opts);
      next = { url: h.url, entries: got.entries, listed: got.listed, fetchedAt: now, triedAt: now, lastError: null };
      this.fetches.ok++;
    } catch (e) {
      const lastError = (e as Error).message;
      next = { url: h.url, entries: old?.entries ?? [], listed: old?.listed ?? 0, fetchedAt: old?.fetchedAt ?? 0, triedAt: now, lastError };
      this.fetches.failed++;
      if (old?.lastError !== lastError) this.log.warn({ address: name, url: h.url, err: lastError }, 'external list fetch failed; the last good list stays');
    }
    if (this.lists.get(name) !== h) return;
    await this.share.put(name, next);
    this.adopt(name, h, next);
    this.announce(name, h, old, next);
  }

  /** The events of a fetch: a change of content, or a new reason of failure (not every failed retry). */
  private announce(name: string, h: Held, old: ListState | null, next: ListState): void {
    if (next.lastError !== null) {
      if (old?.lastError !== next.lastError) this.events?.({ type: 'list', address: name, url: h.url, state: 'failed', entries: next.entries.length, added: 0, removed: 0, error: next.lastError });
      return;
    }
    const before = new Set(old?.entries ?? []);
    const added = next.entries.filter((e) => !before.has(e)).length;
    const removed = before.size - (next.entries.length - added);
    if (added || removed || !old || old.fetchedAt === 0) {
      this.log.info({ address: name, url: h.url, entries: next.entries.length, added, removed }, 'external list changed');
      this.events?.({ type: 'list', address: name, url: h.url, state: 'updated', entries: next.entries.length, added, removed });
    }
  }

  /** Another instance (or this one) published a list: taken when it is of the address's URL. */
  private async adoptShared(name: string): Promise<void> {
    const h = this.lists.get(name);
    if (!h) return;
    try {
      const s = await this.share.get(name);
      if (s && s.url === h.url && this.lists.get(name) === h && s.triedAt >= (h.state?.triedAt ?? 0)) this.adopt(name, h, s);
    } catch (e) {
      this.log.warn({ address: name, err: String(e) }, 'external list not read from the store');
    }
  }

  private adopt(name: string, h: Held, s: ListState): void {
    const shown = h.state?.lastError !== s.lastError || h.state?.fetchedAt !== s.fetchedAt;
    h.state = s;
    if (shown) this.shown++;
    this.rebalance();
  }

  /**
   * Shares FW_DYNAMIC_MAX_ENTRIES, less the sets' entries, among the lists in name order, and
   * writes every list whose prefixes in force changed (all of them with `all`) to the kernel.
   */
  rebalance(all = false): void {
    let left = Math.max(0, this.opts.totalMax - this.setEntries());
    const names = [...this.lists.keys()].sort();
    for (const name of names) {
      const h = this.lists.get(name)!;
      const entries = h.state?.entries ?? [];
      const take = Math.min(entries.length, left);
      left -= take;
      const cut = (h.state ? h.state.listed - entries.length : 0) + (entries.length - take);
      const next = take === entries.length ? entries : entries.slice(0, take);
      const same = h.inForce === next || sameList(h.inForce, next);
      if (cut > h.cut) this.log.warn({ address: name, cut, max: this.opts.maxEntries, totalMax: this.opts.totalMax }, 'external list cut: more entries than FW_LIST_MAX_ENTRIES or FW_DYNAMIC_MAX_ENTRIES allow');
      if (!same || cut !== h.cut) this.generation++;
      h.cut = cut;
      if (!same) {
        h.inForce = next;
        h.parsed = null;
      }
      if (!same || all) void this.writeKernel(name, h);
    }
  }

  /** The read model's view of address `name`, or undefined when it is no list of the running version. */
  state(name: string): ListView | undefined {
    const h = this.lists.get(name);
    if (!h) return undefined;
    return { fetchedAt: h.state?.fetchedAt ?? 0, entries: h.inForce.length, cut: h.cut, lastError: h.state?.lastError ?? null };
  }

  /** Every list's prefixes in force, by address name (eval's overlay). */
  contents(): Map<string, string[]> {
    return new Map([...this.lists].map(([name, h]) => [name, h.inForce]));
  }

  /** The entry of list `name` that holds `addr`, with the list's fetch time (the tracer). */
  entryOf(name: string, addr: Cidr): { entry: string; fetchedAt: number; url: string } | null {
    const h = this.lists.get(name);
    if (!h) return null;
    h.parsed ??= h.inForce.map((p) => parseCidr(p)!);
    const i = h.parsed.findIndex((c) => contains(c, addr));
    return i < 0 ? null : { entry: h.inForce[i], fetchedAt: h.state?.fetchedAt ?? 0, url: h.url };
  }

  /** Entries in force over every list, and entries cut. */
  totals(): { entries: number; cut: number } {
    let entries = 0;
    let cut = 0;
    for (const h of this.lists.values()) { entries += h.inForce.length; cut += h.cut; }
    return { entries, cut };
  }

  private lines(name: string, h: Held): string[] {
    const out: string[] = [];
    h.parsed ??= h.inForce.map((p) => parseCidr(p)!);
    for (const family of [4, 6] as const) {
      const set = `inet ${NFT_TABLE} ${listNftSetName(name, family)}`;
      // a list may hold 10.0.0.0/8 and 10.1.2.3: an interval set holds disjoint ranges only
      const ips = addrElements(family, union(family, h.parsed.filter((c) => c.family === family)));
      // as an FQDN address's sets (fqdn.ts): declared when no rule names the family, flushed, filled
      out.push(`add set ${set} { type ${family === 4 ? 'ipv4_addr' : 'ipv6_addr'}; flags interval; }`, `flush set ${set}`);
      for (let i = 0; i < ips.length; i += CHUNK) out.push(`add element ${set} { ${ips.slice(i, i + CHUNK).join(', ')} }`);
    }
    return out;
  }

  private async writeKernel(name: string, h: Held): Promise<void> {
    if (!this.kernel) return;
    try {
      await this.kernel.run(`${this.lines(name, h).join('\n')}\n`);
    } catch (err) {
      this.log.warn({ address: name, err: String(err).slice(0, 300) }, 'external list not written to the kernel');
    }
  }

  /** Every list as one script, run after a table was written. */
  private refillScript(): string {
    const lines = [...this.lists].flatMap(([name, h]) => (h.inForce.length ? this.lines(name, h) : []));
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  close(): void {
    this.closed = true;
    clearInterval(this.balance);
    for (const h of this.lists.values()) if (h.timer) clearTimeout(h.timer);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
