// Where the last fetch of each external list is kept (issue 40), so that it survives a restart
// and, in a cluster, is fetched by one instance and enforced by all. Embedded: a file per list
// in the data directory (temp file and rename). Redis: the cluster's shared work (a lease per
// list held for a refresh period by the instance that fetches, the result under its own key
// with a notice on the firewall's channel), as the deep analysis of a version is shared.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SharedWork } from '../store/cluster-bus';

/** One list as last fetched: what every instance enforces. */
export interface ListState {
  /** the URL fetched: a state of another URL (the address was changed) is not taken */
  url: string;
  /** canonical prefixes, at most FW_LIST_MAX_ENTRIES (the last good fetch) */
  entries: string[];
  /** distinct prefixes the last good body listed (more than entries: cut by FW_LIST_MAX_ENTRIES) */
  listed: number;
  /** ms of the last good fetch; 0: none yet */
  fetchedAt: number;
  /** ms of the last try, good or not */
  triedAt: number;
  /** why the last try failed; null when it succeeded */
  lastError: string | null;
}

export interface ListShare {
  /** True when this instance is to fetch `name` now (it holds the list's lease for `ms`). */
  claim(name: string, ms: number): Promise<boolean>;
  /** Keeps `state` and tells every instance (this one too). */
  put(name: string, state: ListState): Promise<void>;
  /** The kept state of `name`, if any. */
  get(name: string): Promise<ListState | null>;
  /** Calls `fn` with a list's name when some instance put a new state. */
  onPut(fn: (name: string) => void): void;
}

function parse(text: string | null): ListState | null {
  if (text === null) return null;
  try {
    const s = JSON.parse(text) as ListState;
    return typeof s.url === 'string' && Array.isArray(s.entries) ? s : null;
  } catch {
    return null; // a damaged file or value: fetched again
  }
}

/** The embedded store's lists: one file each under <data dir>/lists/; this instance fetches all. */
export class FileListShare implements ListShare {
  private readonly listeners: Array<(name: string) => void> = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'lists');
  }

  private file(name: string): string {
    return path.join(this.dir, `${encodeURIComponent(name)}.json`);
  }

  async claim(): Promise<boolean> {
    return true;
  }

  put(name: string, state: ListState): Promise<void> {
    const text = JSON.stringify(state);
    const write = this.writing.then(async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.file(name)}.tmp`;
      await fs.writeFile(tmp, text, { mode: 0o600 });
      await fs.rename(tmp, this.file(name));
    });
    this.writing = write.catch(() => undefined);
    return write.then(() => { for (const fn of this.listeners) fn(name); });
  }

  async get(name: string): Promise<ListState | null> {
    try {
      return parse(await fs.readFile(this.file(name), 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  onPut(fn: (name: string) => void): void {
    this.listeners.push(fn);
  }
}

/** How long a fetched list is kept in Redis without a newer fetch (a list not refreshed for this long is fetched anew). */
const KEEP_MS = 30 * 86400_000;
const what = (name: string) => `list:${name}`;

/** The cluster's lists: the instance that holds a list's lease fetches it and publishes the result. */
export class SharedListShare implements ListShare {
  private readonly listeners: Array<(name: string) => void> = [];

  constructor(private readonly work: SharedWork, onNotice: (fn: (what: string) => void) => void, private readonly nodeId: string) {
    onNotice((w) => {
      if (w.startsWith('list:')) for (const fn of this.listeners) fn(w.slice(5));
    });
  }

  claim(name: string, ms: number): Promise<boolean> {
    return this.work.claim(what(name), this.nodeId, ms);
  }

  put(name: string, state: ListState): Promise<void> {
    return this.work.put(what(name), JSON.stringify(state), KEEP_MS);
  }

  async get(name: string): Promise<ListState | null> {
    return parse(await this.work.get(what(name)));
  }

  onPut(fn: (name: string) => void): void {
    this.listeners.push(fn);
  }
}
