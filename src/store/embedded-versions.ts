// The embedded store's committed versions: one file per version in versions/, whole (N.json,
// a keyframe) or as the delta from the version before it (N.delta.json, version-deltas.ts),
// their metas in history.log, the kept ones listed in memory and their file texts in a small
// LRU (the running version's always stays). Retention forgets pruned versions in memory at
// the commit point's switch, then deletes their files oldest first, and never the keyframe
// and deltas a kept version is read from, so no reader ever sees half a version.
import { promises as fsp } from 'node:fs';
import { FwError } from '../errors';
import { Lru } from '../lru';
import { GroupAppender, atomicWriteFile, fsyncDir, replaceAppendLog } from './files';
import { metaOf } from './records';
import { historyText, loadHistory, removeVersionFiles, versionFileKinds, type Logger, type Paths } from './recovery';
import type { VersionMeta, VersionRecord } from './types';
import {
  deltaRecordOf, keyframeDue, rebuildVersion, storesAsDelta, type VersionChange, type VersionDeltaRecord,
} from './version-deltas';

export interface VersionFilesOptions {
  paths: Paths;
  log: Logger;
  /** Version files kept in memory besides the running one's. */
  cacheSize: number;
  /** FW_VERSIONS_KEEP: committed versions kept, the newest (0: all). */
  keep: number;
  /** Deltas after which a keyframe is written (version-deltas.ts KEYFRAME_EVERY). */
  keyframeEvery?: number;
  /** Told of a failed write; returns the error to throw. */
  fail: (e: unknown) => Error;
}

/** A version ready to be written: its record's text is taken at the commit's call (a snapshot). */
export interface PreparedVersion {
  record: VersionRecord;
  meta: VersionMeta;
  /** stored as a delta (else whole) */
  delta: boolean;
  text: string;
}

/** The cache key of a version's file: whole and delta files of one version apart. */
const fileKey = (n: number, delta: boolean): number => 2 * n + (delta ? 1 : 0);

export class EmbeddedVersions {
  /** The running version as readers see it: switched once a commit is durable. */
  private running!: VersionMeta;
  private runningDelta = false;
  /** The kept versions, oldest first; the running one is the last. */
  private metas: VersionMeta[] = [];
  /** The lowest version whose file may still exist (pruning deletes from here up). */
  private lowestFile = 0;
  /** The versions with a whole file, and those with a delta file. */
  private wholes = new Set<number>();
  private deltas = new Set<number>();
  /** Lines in history.log (it is rewritten with the kept versions once it holds twice as many). */
  private historyLines = 0;
  private readonly cache: Lru<number, Promise<string>>;
  private history: GroupAppender | null = null;

  constructor(private readonly o: VersionFilesOptions) {
    this.cache = new Lru(o.cacheSize, (k) => this.running !== undefined && k === fileKey(this.running.version, this.runningDelta));
  }

  /** Reads history.log from the oldest readable version up to `running`, which must be readable. */
  async open(running: number): Promise<void> {
    const p = this.o.paths;
    ({ wholes: this.wholes, deltas: this.deltas } = await versionFileKinds(p));
    const has = (n: number) => this.wholes.has(n) || this.deltas.has(n);
    // pruning deletes the oldest files first: the files left are contiguous up to running.
    // Listed are those from the lowest keyframe on: below it, deltas whose base was deleted
    // (kept for a version pruned since, or left by a crash mid-pruning) go at the next commit
    this.lowestFile = running;
    while (this.lowestFile > 0 && has(this.lowestFile - 1)) this.lowestFile--;
    let listed = this.lowestFile;
    while (listed < running && !this.wholes.has(listed)) listed++;
    this.runningDelta = !this.wholes.has(running) && this.deltas.has(running);
    this.metas = await loadHistory(p, listed, running, this.o.log);
    this.historyLines = this.metas.length;
    this.running = this.metas[this.metas.length - 1];
    // a crash between a commit point and the deletion of what it pruned (or a lowered
    // FW_VERSIONS_KEEP) leaves more versions than kept: forget them now, their files go at the next commit
    this.forgetPruned();
    await this.read(running); // the running document must be readable now
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
    try {
      return await this.read(version);
    } catch (e) {
      if (!this.kept(version)) return undefined; // pruned while it was being read: as if not found
      throw e;
    }
  }

  /** A kept version's delta record, when it was committed as one. */
  async delta(version: number): Promise<VersionDeltaRecord | undefined> {
    if (!this.kept(version) || !this.deltas.has(version)) return undefined;
    try {
      return JSON.parse(await this.text(version, true)) as VersionDeltaRecord;
    } catch (e) {
      if (!this.kept(version)) return undefined;
      throw e;
    }
  }

  /** The version's file text, now (the caller may reuse its objects after the call). */
  prepare(version: VersionRecord, change?: VersionChange): PreparedVersion {
    const delta = storesAsDelta(version, change, this.running);
    return { record: version, meta: metaOf(version), delta, text: JSON.stringify(delta ? deltaRecordOf(version, change) : version) };
  }

  /** Writes the version's file and appends its meta to history.log; `switchTo` makes it the
   * running one once the commit point is durable. */
  async write(w: PreparedVersion): Promise<void> {
    const n = w.meta.version;
    await atomicWriteFile(w.delta ? this.o.paths.versionDelta(n) : this.o.paths.version(n), w.text);
    await this.history!.append(JSON.stringify(w.meta) + '\n');
  }

  /** Readers see the version as running from now on; versions past retention are forgotten. */
  switchTo(w: PreparedVersion): void {
    this.running = w.meta;
    this.runningDelta = w.delta;
    (w.delta ? this.deltas : this.wholes).add(w.meta.version);
    this.metas.push(w.meta);
    this.historyLines++;
    this.cache.set(fileKey(w.meta.version, w.delta), Promise.resolve(w.text)); // evicts the previous running version's text when it is not recent
    this.forgetPruned();
  }

  /**
   * After the commit's answer: the keyframe of the version just committed as a delta when one
   * is due (a crash in its write leaves a temporary file that open() removes; the delta stays
   * the version's record), then the files retention no longer needs.
   */
  async afterCommit(w: PreparedVersion): Promise<void> {
    const n = w.meta.version;
    if (w.delta && this.kept(n) && !this.wholes.has(n) && keyframeDue(n - this.keyframeOf(n), w.text.length, this.o.keyframeEvery)) {
      await atomicWriteFile(this.o.paths.version(n), JSON.stringify(w.record));
      this.wholes.add(n);
    }
    await this.deletePrunedFiles();
  }

  /** The keyframe at or below version `n`; 0 when there is none (the walk stops there, as a read does). */
  private keyframeOf(n: number): number {
    while (n > 0 && !this.wholes.has(n)) n--;
    return n;
  }

  /** Whether `version` is one of the kept versions (not pruned, not above running). */
  private kept(version: number): boolean {
    return Number.isSafeInteger(version) && version >= this.metas[0].version && version <= this.running.version;
  }

  /** Version n whole: its keyframe, or the keyframe below it with the deltas up to it applied. */
  private async read(n: number): Promise<VersionRecord> {
    const deltas: VersionDeltaRecord[] = [];
    let v = n;
    for (; !this.wholes.has(v); v--) {
      if (!this.deltas.has(v)) throw new FwError('ERR_SYS_4002', `version ${n} cannot be read: version ${v} it is stored on has no file`);
      deltas.push(JSON.parse(await this.text(v, true)) as VersionDeltaRecord);
    }
    return rebuildVersion(JSON.parse(await this.text(v, false)) as VersionRecord, deltas.reverse());
  }

  /** The JSON of a version file, from the LRU cache. */
  private text(n: number, delta: boolean): Promise<string> {
    const key = fileKey(n, delta);
    let text = this.cache.get(key);
    if (!text) {
      text = fsp.readFile(delta ? this.o.paths.versionDelta(n) : this.o.paths.version(n), 'utf8');
      text.catch(() => this.cache.delete(key));
      text = text.catch((e: unknown) => {
        throw new FwError('ERR_SYS_4002', `version ${n} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      });
      this.cache.set(key, text);
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
    this.cache.deleteWhere((k) => Math.floor(k / 2) < oldest);
  }

  /**
   * Retention, on disk (after the commit): the files of pruned versions below the keyframe the
   * oldest kept version is read from, oldest first (a crash leaves the files contiguous), and
   * history.log rewritten with the kept versions once it holds twice as many lines. A file
   * that cannot be deleted is tried again after the next commit.
   */
  async deletePrunedFiles(): Promise<void> {
    const needed = this.keyframeOf(this.metas[0].version);
    if (this.lowestFile >= needed) return;
    const p = this.o.paths;
    for (; this.lowestFile < needed; this.lowestFile++) {
      try {
        await removeVersionFiles(p, this.lowestFile);
      } catch (e) {
        this.o.log.warn({ err: String(e), version: this.lowestFile }, 'could not delete a pruned version file');
        return;
      }
      this.wholes.delete(this.lowestFile);
      this.deltas.delete(this.lowestFile);
    }
    await fsyncDir(p.versions);
    if (this.historyLines < 2 * this.metas.length) return;
    const { appender, done } = replaceAppendLog(this.history!, p.history, () => historyText(this.metas), this.o.fail);
    this.history = appender;
    await done;
    this.historyLines = this.metas.length;
  }
}
