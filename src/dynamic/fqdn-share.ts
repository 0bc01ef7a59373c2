// Where FQDN addresses' resolutions are kept and how the cluster shares them (issue 40): one
// instance resolves (it holds a lease, as the deep analysis' pass: src/cluster/shared-analysis.ts)
// and publishes each answer; every instance, the resolver too, applies what was published. So
// every node enforces and evaluates the same prefixes, and the last good answer survives a
// restart: the embedded store keeps it in a file of the data directory, Redis as shared work.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../store/files';
import type { SharedWork } from '../store/cluster-bus';

/** One address's resolution as published. Times are unix ms (0: never). */
export interface FqdnRecord {
  /** the name resolved (an address whose name changed does not take the old name's answer) */
  fqdn: string;
  /** the prefixes in use (/32 and /128), sorted: the last good answer */
  resolved: string[];
  /** the last good answer */
  resolvedAt: number;
  /** the answer that made `resolved` what it is (the last change) */
  changedAt: number;
  /** the last try, good or not: orders records (a late reader never goes back to an older one) */
  triedAt: number;
  lastError: string | null;
  /** when the next resolution is due (the TTL bounded): a new resolver starts from there */
  nextAt: number;
}

export interface FqdnShare {
  /** True when this instance is the one that resolves (took or renewed the lease). */
  claim(): Promise<boolean>;
  /** Gives the lease up (a stopping instance: another takes over at once). */
  release(): Promise<void>;
  /** The published record of an address (null: none). */
  get(address: string): Promise<FqdnRecord | null>;
  /** Publishes a record; every instance's onChange listeners are called with the address. */
  put(address: string, rec: FqdnRecord): Promise<void>;
  onChange(fn: (address: string) => void): void;
  /** How often the lease is renewed, or tried by an instance that does not hold it, in ms. */
  readonly renewMs: number;
}

/** The embedded store: this instance is the only one; the records live in one file. */
export class FileFqdnShare implements FqdnShare {
  readonly renewMs = 5000;
  private readonly records = new Map<string, FqdnRecord>();
  private readonly listeners: Array<(address: string) => void> = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'fqdn-resolutions.json');
  }

  /** Reads the file (absent or unreadable: no records; they are resolved again). */
  async open(): Promise<void> {
    try {
      const data = JSON.parse(await fsp.readFile(this.file, 'utf8')) as Record<string, FqdnRecord>;
      for (const [a, r] of Object.entries(data)) this.records.set(a, r);
    } catch {
      // none yet
    }
  }

  async claim(): Promise<boolean> {
    return true;
  }

  async release(): Promise<void> {
    await this.writing;
  }

  async get(address: string): Promise<FqdnRecord | null> {
    return this.records.get(address) ?? null;
  }

  async put(address: string, rec: FqdnRecord): Promise<void> {
    this.records.set(address, rec);
    const text = JSON.stringify(Object.fromEntries(this.records));
    const write = this.writing.then(() => atomicWriteFile(this.file, text));
    this.writing = write.catch(() => undefined);
    await write;
    for (const fn of this.listeners) fn(address);
  }

  onChange(fn: (address: string) => void): void {
    this.listeners.push(fn);
  }
}

/** How long a resolver's lease holds without renewal: a dead resolver is replaced after this. */
export const FQDN_LEASE_MS = 15_000;
/** How long a published record is kept (a name no longer resolved is forgotten after it). */
const KEEP_MS = 30 * 24 * 3600_000;
const LEASE = 'fqdn-resolver';
const PREFIX = 'fqdn:';

/** The cluster (Redis): the lease and the records are shared work, a record's notice a 'shared' one. */
export class SharedFqdnShare implements FqdnShare {
  readonly renewMs: number;

  constructor(
    private readonly work: SharedWork,
    onNotice: (listener: (what: string) => void) => void,
    private readonly nodeId: string,
    private readonly leaseMs = FQDN_LEASE_MS,
  ) {
    this.renewMs = Math.max(50, Math.floor(leaseMs / 3));
    onNotice((what) => {
      if (what.startsWith(PREFIX)) for (const fn of this.listeners) fn(what.slice(PREFIX.length));
    });
  }

  private readonly listeners: Array<(address: string) => void> = [];

  claim(): Promise<boolean> {
    return this.work.claim(LEASE, this.nodeId, this.leaseMs);
  }

  release(): Promise<void> {
    return this.work.release(LEASE, this.nodeId);
  }

  async get(address: string): Promise<FqdnRecord | null> {
    const text = await this.work.get(PREFIX + address);
    if (text === null) return null;
    try {
      return JSON.parse(text) as FqdnRecord;
    } catch {
      return null; // resolved again by the resolver
    }
  }

  put(address: string, rec: FqdnRecord): Promise<void> {
    return this.work.put(PREFIX + address, JSON.stringify(rec), KEEP_MS);
  }

  onChange(fn: (address: string) => void): void {
    this.listeners.push(fn);
  }
}
