// The embedded store's committed versions: one file per version in versions/, their metas in
// history.log, the kept ones listed in memory and their texts in a small LRU (the running
// version's always stays). Retention forgets pruned versions in memory at the commit point's
// switch, then deletes their files oldest first, so no reader ever sees half a version.
import { promises as fsp } from 'node:fs';
import { FwError } from '../errors';
import { Lru } from '../lru';
import { GroupAppender, atomicWriteFile, fsyncDir, replaceAppendLog } from './files';
import { metaOf } from './records';
import { historyText, loadHistory, versionFiles, type Logger, type Paths } from './recovery';
import type { VersionMeta, VersionRecord } from './types';

export interface VersionFilesOptions {
  paths: Paths;
  log: Logger;
  /** Version documents kept in memory besides the running one. */
  cacheSize: number;
  /** FW_VERSIONS_KEEP: committed versions kept, the newest (0: all). */
  keep: number;
  /** Told of a failed write; returns the error to throw. */
  fail: (e: unknown) => Error;
}

export class EmbeddedVersions {
  /** The running version as readers see it: switched once a commit is durable. */
  private running!: VersionMeta;
  /** The kept versions, oldest first; the running one is the last. */
  private metas: VersionMeta[] = [];
  /** The lowest version whose file may still exist (pruning deletes from here up). */
  private lowestFile = 0;
  /** Lines in history.log (it is rewritten with the kept versions once it holds twice as many). */
  private historyLines = 0;
  private readonly cache: Lru<number, Promise<string>>;
  private history: GroupAppender | null = null;

  constructor(private readonly o: VersionFilesOptions) {
    this.cache = new Lru(o.cacheSize, (n) => n === this.running?.version);
  }

  /** Reads history.log from the oldest version file left up to `running`, which must be readable. */
  async open(running: number): Promise<void> {
    const p = this.o.paths;
    // pruning deletes the oldest files first: the lowest file left is the oldest kept version
    this.lowestFile = (await versionFiles(p))[0] ?? running;
    this.metas = await loadHistory(p, this.lowestFile, running, this.o.log);
    this.historyLines = this.metas.length;
    this.running = this.metas[this.metas.length - 1];
    // a crash between a commit point and the deletion of what it pruned (or a lowered
    // FW_VERSIONS_KEEP) leaves more versions than kept: forget them now, their files go at the next commit
    this.forgetPruned();
    await this.text(running); // the running document must be readable now
  }

  /** history.log for appends, once recovery is done with it. */
  openHistory(): void {
    this.history = GroupAppender.open(this.o.paths.history, this.o.fail);
  }

  async close(): Promise<void> {
    await this.history?.close().catch(() => undefined);
  }

  get runningMeta(): VersionMeta {
    return this.running;
  }

  list(): VersionMeta[] {
    return this.metas.map((m) => ({ ...m }));
  }

  /** A fresh copy of a committed version each call (callers may mutate it). */
  async get(version: number): Promise<VersionRecord | undefined> {
    if (!this.kept(version)) return undefined;
    let text: string;
    try {
      text = await this.text(version);
    } catch (e) {
      if (!this.kept(version)) return undefined; // pruned while it was being read: as if not found
      throw e;
    }
    return JSON.parse(text) as VersionRecord;
  }

  /**
   * Writes the version's file and appends its meta to history.log; `switchTo` makes it the
   * running one once the commit point is durable. Returns what switchTo takes.
   */
  async write(version: VersionRecord, text: string): Promise<VersionMeta> {
    const meta = metaOf(version);
    await atomicWriteFile(this.o.paths.version(version.version), text);
    await this.history!.append(JSON.stringify(meta) + '\n');
    return meta;
  }

  /** Readers see `meta` as running from now on; versions past retention are forgotten. */
  switchTo(meta: VersionMeta, text: string): void {
    this.running = meta;
    this.metas.push(meta);
    this.historyLines++;
    this.cache.set(meta.version, Promise.resolve(text)); // evicts the previous running version's text when it is not recent
    this.forgetPruned();
  }

  /** Whether `version` is one of the kept versions (not pruned, not above running). */
  private kept(version: number): boolean {
    return Number.isSafeInteger(version) && version >= this.metas[0].version && version <= this.running.version;
  }

  /** The JSON of a version file, from the LRU cache. */
  private text(n: number): Promise<string> {
    let text = this.cache.get(n);
    if (!text) {
      text = fsp.readFile(this.o.paths.version(n), 'utf8');
      text.catch(() => this.cache.delete(n));
      text = text.catch((e: unknown) => {
        throw new FwError('ERR_SYS_4002', `version ${n} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      });
      this.cache.set(n, text);
    }
    return text;
  }

  /**
   * Retention, in memory (synchronously at the commit point's switch): the versions older than
   * the newest `keep` stop being listed and read (get answers undefined, 404) before any of
   * their files is deleted.
   */
  private forgetPruned(): void {
    if (this.o.keep === 0 || this.metas.length <= this.o.keep) return;
    this.metas = this.metas.slice(-this.o.keep);
    const oldest = this.metas[0].version;
    this.cache.deleteWhere((n) => n < oldest);
  }

  /**
   * Retention, on disk (after the commit): the files of pruned versions, oldest first (a crash
   * leaves the kept versions contiguous), and history.log rewritten with the kept versions
   * once it holds twice as many lines. A file that cannot be deleted is tried again after the
   * next commit.
   */
  async deletePrunedFiles(): Promise<void> {
    const oldest = this.metas[0].version;
    if (this.lowestFile >= oldest) return;
    const p = this.o.paths;
    for (; this.lowestFile < oldest; this.lowestFile++) {
      try {
        await fsp.rm(p.version(this.lowestFile), { force: true });
      } catch (e) {
        this.o.log.warn({ err: String(e), version: this.lowestFile }, 'could not delete a pruned version file');
        return;
      }
    }
    await fsyncDir(p.versions);
    if (this.historyLines < 2 * this.metas.length) return;
    const { appender, done } = replaceAppendLog(this.history!, p.history, () => historyText(this.metas), this.o.fail);
    this.history = appender;
    await done;
    this.historyLines = this.metas.length;
  }
}
