// The files of the embedded store and how they are read back at start-up, after a clean stop
// or after a crash at any moment. Every write of the store is an fsync'd append or an atomic
// replacement, so recovery only has to cut torn tails and drop what a crash left behind
// the commit point (see docs/store.md).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { ApiTokenRecord, JournalEntry, SessionRecord, StoredUser, VersionMeta, VersionRecord } from './types';
import { initialVersion, metaOf } from './records';
import type { SerializedDoc } from '../config/document';
import {
  CorruptFileError,
  TMP_SUFFIX,
  atomicWriteFile,
  durableTruncate,
  durableUnlink,
  errCode,
  fsyncDir,
  readJsonLines,
} from './files';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface Paths {
  dir: string;
  versions: string;
  meta: string;
  history: string;
  session: string;
  audit: string;
  /** saved answers of requests made with an Idempotency-Key */
  idempotency: string;
  /** a version stored whole (a keyframe) */
  version(n: number): string;
  /** a version stored as the delta from the one before it (version-deltas.ts) */
  versionDelta(n: number): string;
}

export function layout(dir: string): Paths {
  const versions = path.join(dir, 'versions');
  return {
    dir,
    versions,
    meta: path.join(dir, 'meta.json'),
    history: path.join(dir, 'history.log'),
    session: path.join(dir, 'session.log'),
    audit: path.join(dir, 'audit.log'),
    idempotency: path.join(dir, 'idempotency.log'),
    version: (n) => path.join(versions, `${n}.json`),
    versionDelta: (n) => path.join(versions, `${n}.delta.json`),
  };
}

/** meta.json: small, rewritten atomically; its rename is the commit point of a commit. */
export interface MetaFile {
  format: 1;
  running: number;
  /** The session the last commit ended: a session.log with this id is a leftover. */
  lastEndedSession: string | null;
  secret: string | null;
  users: StoredUser[];
  /** jti -> expiry (unix ms); expired entries are pruned at each write. */
  revoked: Record<string, number>;
  /** The last commit confirmed that was confirmed (absent in files of older daemons: 0). */
  confirmed?: number;
  /** absent in files written before API tokens existed */
  apiTokens?: ApiTokenRecord[];
}

export function newMeta(): MetaFile {
  return { format: 1, running: 0, lastEndedSession: null, secret: null, users: [], revoked: {} };
}

function refuse(file: string, reason: string): Error {
  return new Error(`${file}: ${reason}; refusing to start (restore it from a backup or move it away)`);
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isStr = (v: unknown): v is string => typeof v === 'string';

export async function loadMeta(file: string): Promise<MetaFile | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if (errCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  let m: MetaFile;
  try {
    m = JSON.parse(text) as MetaFile;
  } catch (e) {
    throw refuse(file, `not valid JSON (${(e as Error).message})`);
  }
  const ok =
    typeof m === 'object' &&
    m !== null &&
    m.format === 1 &&
    isInt(m.running) &&
    (m.lastEndedSession === null || isStr(m.lastEndedSession)) &&
    (m.secret === null || isStr(m.secret)) &&
    Array.isArray(m.users) &&
    m.users.every((u) => isStr(u?.username) && isStr(u.hash) && typeof u.createdAt === 'number' && (u.role === undefined || isStr(u.role)) &&
      (u.id === undefined || isStr(u.id)) && (u.epoch === undefined || isInt(u.epoch))) &&
    (m.apiTokens === undefined || (Array.isArray(m.apiTokens) && m.apiTokens.every((t) => isStr(t?.hash) && isStr(t.name) && isStr(t.owner) && isStr(t.role)))) &&
    typeof m.revoked === 'object' &&
    m.revoked !== null;
  if (!ok) throw refuse(file, 'unexpected content');
  return m;
}

/** Removes temporary files a crash left behind (they were never renamed into place). */
export async function removeTmpFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await fsp.readdir(dir)) {
    if (!name.endsWith(TMP_SUFFIX)) continue;
    await fsp.rm(path.join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** The versions in versions/: those with a whole file (N.json), those with a delta file (N.delta.json). */
export async function versionFileKinds(p: Paths): Promise<{ wholes: Set<number>; deltas: Set<number> }> {
  const wholes = new Set<number>(), deltas = new Set<number>();
  for (const name of await fsp.readdir(p.versions)) {
    const m = /^(0|[1-9][0-9]*)(\.delta)?\.json$/.exec(name);
    if (m) (m[2] ? deltas : wholes).add(Number(m[1]));
  }
  return { wholes, deltas };
}

/** Version numbers that have a file (of either kind) in versions/. */
export async function versionFiles(p: Paths): Promise<number[]> {
  const { wholes, deltas } = await versionFileKinds(p);
  return [...new Set([...wholes, ...deltas])].sort((a, b) => a - b);
}

/**
 * Deletes the version files above the running one: written by a commit that crashed before
 * its commit point, never acknowledged.
 */
export async function dropUncommittedVersions(p: Paths, running: number): Promise<number[]> {
  const dropped = (await versionFiles(p)).filter((n) => n > running);
  for (const n of dropped) await removeVersionFiles(p, n);
  if (dropped.length) await fsyncDir(p.versions);
  return dropped;
}

/** Deletes both files a version may have (the caller fsyncs the folder). */
export async function removeVersionFiles(p: Paths, n: number): Promise<void> {
  await fsp.rm(p.version(n), { force: true });
  await fsp.rm(p.versionDelta(n), { force: true });
}

/** The meta of version n from its file: the whole one, else the delta (both hold the meta). */
async function readVersionMeta(p: Paths, n: number): Promise<VersionMeta> {
  let rec: VersionRecord;
  let file = p.version(n);
  try {
    const text = await fsp.readFile(file, 'utf8').catch((e: unknown) => {
      if (errCode(e) !== 'ENOENT') throw e;
      return fsp.readFile((file = p.versionDelta(n)), 'utf8');
    });
    rec = JSON.parse(text) as VersionRecord;
  } catch (e) {
    throw refuse(file, `committed version ${n} cannot be read (${(e as Error).message})`);
  }
  if (rec?.version !== n) throw refuse(file, `holds version ${String(rec?.version)}`);
  return metaOf(rec);
}

/**
 * The metas of the kept versions oldest..running (oldest: the lowest version file; older ones
 * were pruned), from history.log (one line per commit, appended before the commit point). The
 * last line of a version wins; lines above running (a commit that did not reach its commit
 * point) are dropped; a version missing from the log is read from its file. Lines of pruned
 * versions are dropped too. When anything was dropped or fixed, history.log is rewritten.
 */
export async function loadHistory(p: Paths, oldest: number, running: number, log: Logger): Promise<VersionMeta[]> {
  const lines = await readJsonLines(p.history);
  const metas: Array<VersionMeta | undefined> = new Array(running - oldest + 1).fill(undefined);
  let dirty = !lines || lines.tornBytes > 0;
  let pruned = false;
  for (const v of lines?.values ?? []) {
    const m = v as VersionMeta;
    if (!isInt(m?.version)) throw refuse(p.history, 'a line without a version number');
    if (m.version > running) dirty = true;
    else if (m.version < oldest) pruned = true;
    else {
      if (metas[m.version - oldest]) dirty = true;
      metas[m.version - oldest] = metaOf(m);
    }
  }
  for (let n = oldest; n <= running; n++) {
    if (metas[n - oldest]) continue;
    metas[n - oldest] = await readVersionMeta(p, n);
    dirty = true;
  }
  if (dirty && lines) log.warn({ file: p.history }, 'repairing the commit history index');
  if (dirty || pruned) await atomicWriteFile(p.history, historyText(metas as VersionMeta[]));
  return metas as VersionMeta[];
}

/** history.log holding exactly `metas`. */
export function historyText(metas: VersionMeta[]): string {
  return metas.map((m) => JSON.stringify(m) + '\n').join('');
}

export interface RecoveredSession {
  record: SessionRecord;
  journal: JournalEntry[];
}

function isSessionRecord(v: unknown): v is SessionRecord {
  const s = v as SessionRecord;
  return (
    typeof s === 'object' &&
    s !== null &&
    isStr(s.id) &&
    s.id !== '' &&
    isStr(s.owner) &&
    typeof s.startedAt === 'number' &&
    typeof s.lastChangeAt === 'number' &&
    isInt(s.baseVersion)
  );
}

/**
 * Replays session.log: the SessionRecord, then one JournalEntry a line. A torn tail (crash
 * mid-append, never acknowledged) is cut off; a bad line in the middle refuses start. A log
 * whose session the last commit ended (crash after the commit point) is deleted.
 */
export async function loadSession(p: Paths, lastEnded: string | null, log: Logger): Promise<RecoveredSession | null> {
  const lines = await readJsonLines(p.session);
  if (!lines) return null;
  const [first, ...rest] = lines.values;
  if (first === undefined) {
    // the begin line is written atomically, so this is an empty file: no session
    await durableUnlink(p.session);
    return null;
  }
  if (!isSessionRecord(first)) throw new CorruptFileError(p.session, 1, 'not a session record');
  if (first.id === lastEnded) {
    await durableUnlink(p.session);
    log.info({ session: first.id }, 'removed the log of a session that its commit had ended');
    return null;
  }
  const journal: JournalEntry[] = [];
  for (const v of rest) {
    const e = v as JournalEntry;
    const ok = typeof e === 'object' && e !== null && e.seq === journal.length && typeof e.at === 'number' && isStr(e.user) && typeof e.change === 'object' && e.change !== null;
    if (!ok) throw new CorruptFileError(p.session, journal.length + 2, `expected journal entry ${journal.length}`);
    journal.push({ seq: e.seq, at: e.at, user: e.user, change: e.change });
  }
  if (lines.tornBytes > 0) {
    await durableTruncate(p.session, lines.validBytes);
    log.warn({ file: p.session, bytes: lines.tornBytes }, 'cut a torn, unacknowledged append off the session log');
  }
  const record: SessionRecord = { ...first };
  if (journal.length) record.lastChangeAt = journal[journal.length - 1].at;
  return { record, journal };
}

/** A new data directory: version 0, then meta.json (written last: it marks the store as made). */
export async function initializeDataDir(p: Paths, initialDoc: SerializedDoc, log: Logger): Promise<MetaFile> {
  const leftovers = (await versionFiles(p)).filter((n) => n !== 0);
  if (leftovers.length) {
    throw new Error(`${p.dir} holds committed versions but no meta.json; refusing to start (restore meta.json from a backup)`);
  }
  const rec = initialVersion(initialDoc);
  await atomicWriteFile(p.version(0), JSON.stringify(rec));
  await atomicWriteFile(p.history, JSON.stringify(metaOf(rec)) + '\n');
  await fsp.rm(p.session, { force: true });
  const meta = newMeta();
  await atomicWriteFile(p.meta, JSON.stringify(meta));
  log.info({ dir: p.dir }, 'initialized a new data directory');
  return meta;
}
