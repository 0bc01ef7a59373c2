// Where the entries of dynamic address sets are kept (issue 40): the same contract on both
// stores. Embedded: in memory and in one JSON file of the data directory, written whole
// (temp file and rename) before a change is answered, so entries survive a restart. Redis: a
// hash per set (field: the prefix, value: its expiry), changed by a script that also enforces
// the set's bound, and a notice on the firewall's channel so that every instance re-reads the
// set and pushes it to its kernel.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { FwError } from '../errors';

/** One entry: a canonical prefix and when it expires (unix ms; 0: never). */
export interface DynamicEntry {
  ip: string;
  expiresAt: number;
}

export interface AddResult {
  /** entries that were not in the set */
  added: number;
  /** entries already there, their expiry set anew */
  refreshed: number;
  /** live entries after the change */
  size: number;
}

export interface DynamicEntryStore {
  /**
   * Adds or refreshes the entries of `set`, all or none: refused (ERR_NET_1008) when the live
   * entries would then be more than `max`.
   */
  add(set: string, entries: DynamicEntry[], max: number, now: number): Promise<AddResult>;
  /** Removes these prefixes; how many were there. */
  remove(set: string, ips: string[]): Promise<number>;
  /** Removes every entry (the set left the configuration); how many there were. */
  clear(set: string): Promise<number>;
  /** The live entries of `set`, sorted by prefix. */
  list(set: string, now: number): Promise<DynamicEntry[]>;
  /** Called with a set's name when any instance changed it (this one's too). */
  onChange(fn: (set: string) => void): void;
  close(): Promise<void>;
}

const live = (e: DynamicEntry, now: number) => e.expiresAt === 0 || e.expiresAt > now;
const byIp = (a: DynamicEntry, b: DynamicEntry) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);

function full(set: string, max: number, size: number, added: number): FwError {
  return new FwError('ERR_NET_1008', `dynamic set "${set}" holds at most ${max} entries: it holds ${size}, and ${added} would be new`);
}

/** The embedded store's entries: memory, and a file written whole after every change. */
export class FileEntryStore implements DynamicEntryStore {
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly listeners: Array<(set: string) => void> = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'dynamic-sets.json');
  }

  /** Reads the file (absent: no entries). */
  async open(): Promise<void> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const data = JSON.parse(text) as Record<string, Record<string, number>>;
    for (const [set, entries] of Object.entries(data)) this.sets.set(set, new Map(Object.entries(entries)));
  }

  private table(set: string): Map<string, number> {
    let t = this.sets.get(set);
    if (!t) this.sets.set(set, (t = new Map()));
    return t;
  }

  private purge(t: Map<string, number>, now: number): void {
    for (const [ip, at] of t) if (at !== 0 && at <= now) t.delete(ip);
  }

  /** Writes the whole file after the previous write (a temp file renamed: never half a file). */
  private save(set: string): Promise<void> {
    const data: Record<string, Record<string, number>> = {};
    for (const [name, t] of this.sets) if (t.size) data[name] = Object.fromEntries(t);
    const text = JSON.stringify(data);
    const write = this.writing.then(async () => {
      const tmp = `${this.file}.tmp`;
      await fs.writeFile(tmp, text, { mode: 0o600 });
      await fs.rename(tmp, this.file);
    });
    this.writing = write.catch(() => undefined);
    return write.then(() => { for (const fn of this.listeners) fn(set); });
  }

  async add(set: string, entries: DynamicEntry[], max: number, now: number): Promise<AddResult> {
    const t = this.table(set);
    this.purge(t, now);
    const fresh = entries.filter((e) => !t.has(e.ip)).length;
    if (t.size + fresh > max) throw full(set, max, t.size, fresh);
    for (const e of entries) t.set(e.ip, e.expiresAt);
    await this.save(set);
    return { added: fresh, refreshed: entries.length - fresh, size: t.size };
  }

  async remove(set: string, ips: string[]): Promise<number> {
    const t = this.table(set);
    let n = 0;
    for (const ip of ips) if (t.delete(ip)) n++;
    if (n) await this.save(set);
    return n;
  }

  async clear(set: string): Promise<number> {
    const n = this.sets.get(set)?.size ?? 0;
    this.sets.delete(set);
    if (n) await this.save(set);
    return n;
  }

  async list(set: string, now: number): Promise<DynamicEntry[]> {
    const out: DynamicEntry[] = [];
    for (const [ip, expiresAt] of this.sets.get(set) ?? []) if (live({ ip, expiresAt }, now)) out.push({ ip, expiresAt });
    return out.sort(byIp);
  }

  onChange(fn: (set: string) => void): void {
    this.listeners.push(fn);
  }

  async close(): Promise<void> {
    await this.writing;
  }
}

/** KEYS hash; ARGV now, max, then ip and expiry pairs: {added, refreshed, size}, or {-1, size, new} when over max. */
const ADD = `local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local size = 0
local have = {}
for i = 1, #all, 2 do
  local at = tonumber(all[i + 1])
  if at == 0 or at > now then have[all[i]] = true size = size + 1 else redis.call('HDEL', KEYS[1], all[i]) end
end
local new = 0
for i = 3, #ARGV, 2 do if not have[ARGV[i]] then new = new + 1 end end
if size + new > max then return {-1, size, new} end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return {new, (#ARGV - 2) / 2 - new, size + new}`;

/** The cluster's entries: a hash per set, a notice per change on the firewall's channel. */
export class RedisEntryStore implements DynamicEntryStore {
  private readonly listeners: Array<(set: string) => void> = [];

  /**
   * `redis`: the store's command connection; `prefix`: the firewall's key prefix; `publish`
   * sends the change notice; `onNotice` registers for the notices of every instance.
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly publish: (what: string) => Promise<void>,
    onNotice: (fn: (what: string) => void) => void,
  ) {
    onNotice((what) => {
      if (what.startsWith(NOTICE)) for (const fn of this.listeners) fn(what.slice(NOTICE.length));
    });
  }

  private key(set: string): string {
    return `${this.prefix}dyn:${set}`;
  }

  async add(set: string, entries: DynamicEntry[], max: number, now: number): Promise<AddResult> {
    const args = entries.flatMap((e) => [e.ip, String(e.expiresAt)]);
    const r = (await this.call(() => this.redis.eval(ADD, 1, this.key(set), String(now), String(max), ...args))) as number[];
    if (r[0] === -1) throw full(set, max, r[1], r[2]);
    await this.publish(NOTICE + set);
    return { added: r[0], refreshed: r[1], size: r[2] };
  }

  async remove(set: string, ips: string[]): Promise<number> {
    if (ips.length === 0) return 0;
    const n = await this.call(() => this.redis.hdel(this.key(set), ...ips));
    if (n) await this.publish(NOTICE + set);
    return n;
  }

  async clear(set: string): Promise<number> {
    const n = await this.call(() => this.redis.hlen(this.key(set)));
    if (n) {
      await this.call(() => this.redis.del(this.key(set)));
      await this.publish(NOTICE + set);
    }
    return n;
  }

  async list(set: string, now: number): Promise<DynamicEntry[]> {
    const all = await this.call(() => this.redis.hgetall(this.key(set)));
    const out: DynamicEntry[] = [];
    for (const [ip, at] of Object.entries(all)) {
      const e = { ip, expiresAt: Number(at) };
      if (live(e, now)) out.push(e);
    }
    return out.sort(byIp);
  }

  onChange(fn: (set: string) => void): void {
    this.listeners.push(fn);
  }

  async close(): Promise<void> {
    // the connection is the store's
  }
}

/** The prefix of a dynamic set's change notice ('shared' notices of the ClusterBus). */
export const NOTICE = 'dynamic-set:';
