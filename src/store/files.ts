// Durable file primitives of the embedded store: atomic replacement of a whole file, fsync'd
// appends with group commit, and reading JSON-lines files whose last line a crash may have
// torn. Nothing here knows what the files hold.
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { TEXT_PIECE, textPieces } from '../config/json-pieces';

/** Every file of the store: it holds password hashes and the JWT secret. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/** Suffix of temporary files; leftovers of a crash are removed on open. */
export const TMP_SUFFIX = '.tmp';

let tmpCounter = 0;

export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/** Makes a directory entry change (create, rename, unlink) durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fsp.open(dir, 'r');
  try {
    await fh.sync();
  } catch (e) {
    // a few file systems cannot fsync a directory; there is nothing more we can do there
    if (errCode(e) !== 'EINVAL' && errCode(e) !== 'ENOTSUP') throw e;
  } finally {
    await fh.close();
  }
}

/** Creates `file` if it is missing and makes its directory entry durable (a power cut must
 * not lose a log whose appends were acknowledged). */
/** Makes directories just made (`firstMade` the top one) durable: fsync of each new one's parent. */
export async function fsyncNewDirs(dir: string, firstMade: string): Promise<void> {
  let d = path.resolve(dir);
  const top = path.resolve(firstMade);
  for (;;) {
    await fsyncDir(path.dirname(d));
    if (d === top || path.dirname(d) === d) break;
    d = path.dirname(d);
  }
}

export async function ensureDurableFile(file: string): Promise<void> {
  try {
    await fsp.access(file);
    return;
  } catch {
    const fh = await fsp.open(file, 'a', FILE_MODE);
    await fh.close();
    await fsyncDir(path.dirname(file));
  }
}

/** Writes the whole buffer at the handle's position (the end, for an 'a' handle). */
export async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

/**
 * Writes `text` as UTF-8 at the handle's position: a long one a piece at a time (each piece
 * encoded in its own turn: a 15 MB journal entry, one Buffer.from, held the HTTP thread for
 * 30-100 ms; issue 38).
 */
export async function writeText(fh: FileHandle, text: string): Promise<void> {
  if (text.length <= TEXT_PIECE) return writeAll(fh, Buffer.from(text));
  for (const piece of textPieces(text)) await writeAll(fh, Buffer.from(piece));
}

/**
 * Replaces `file` atomically: a reader (or a restart after a crash) sees either the old
 * content or the new one. Temporary file, fsync, rename, fsync of the folder.
 */
export async function atomicWriteFile(file: string, data: string | Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.${++tmpCounter}${TMP_SUFFIX}`;
  const fh = await fsp.open(tmp, 'w', FILE_MODE);
  try {
    await writeAll(fh, typeof data === 'string' ? Buffer.from(data) : data);
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await fsp.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

/** Removes a file and makes the removal durable; a missing file is not an error. */
export async function durableUnlink(file: string): Promise<boolean> {
  try {
    await fsp.unlink(file);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return false;
    throw e;
  }
  await fsyncDir(path.dirname(file));
  return true;
}

/** Cuts a file to `length` bytes, durably. */
export async function durableTruncate(file: string, length: number): Promise<void> {
  const fh = await fsp.open(file, 'r+');
  try {
    await fh.truncate(length);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

interface Pending {
  data: string;
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * An append-only file with group commit. Each append resolves only once its bytes are
 * written and fdatasync'd. Appends that arrive while a write + fdatasync is in flight are
 * queued and go out together in the next single write + fdatasync. After a failed write the
 * appender is broken: that batch, everything queued and every later append are rejected,
 * and `onFailure` is told once.
 */
export class GroupAppender {
  private queue: Pending[] = [];
  private loop: Promise<void> | null = null;
  private failure: Error | null = null;
  private closed = false;

  constructor(
    private readonly handle: Promise<FileHandle>,
    private readonly onFailure: (e: Error) => void = () => undefined,
  ) {
    handle.catch(() => undefined); // reported through the first append or close
  }

  /** Opens `file` for appending (created 0600 when missing). */
  static open(file: string, onFailure?: (e: Error) => void): GroupAppender {
    return new GroupAppender(fsp.open(file, 'a', FILE_MODE), onFailure);
  }

  append(data: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('appender is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data, resolve, reject });
      if (!this.loop) this.loop = this.run();
    });
  }

  /** Waits until everything appended so far is durable (or has failed). */
  async drain(): Promise<void> {
    while (this.loop) await this.loop;
    if (this.failure) throw this.failure;
  }

  /** Drains, then closes the file. Rejects when an append failed. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.drain();
    } finally {
      const fh = await this.handle.catch(() => null);
      await fh?.close().catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    try {
      const fh = await this.handle;
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const text = batch.length === 1 ? batch[0].data : batch.map((p) => p.data).join('');
        try {
          await writeText(fh, text);
          await fh.datasync();
        } catch (e) {
          this.queue = batch.concat(this.queue);
          throw e;
        }
        for (const p of batch) p.resolve();
      }
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
    } finally {
      this.loop = null;
    }
  }

  private fail(e: Error): void {
    this.failure = e;
    const queued = this.queue;
    this.queue = [];
    for (const p of queued) p.reject(e);
    this.onFailure(e);
  }
}

/**
 * Replaces an append-only file (compaction) while appends go on. `old` is drained and closed;
 * then, once the callers of its last appends have run (they record what they appended),
 * `content()` is computed and replaces the file atomically. The returned appender appends to
 * the new file; what is appended to it meanwhile waits for the replacement. A crash leaves
 * the old file or the new one. `done` settles with the replacement (rejects when it failed;
 * the new appender is then broken too).
 */
export function replaceAppendLog(old: GroupAppender, file: string, content: () => string, onFailure?: (e: Error) => void): { appender: GroupAppender; done: Promise<void> } {
  const handle = (async () => {
    await old.close();
    await new Promise((resolve) => setImmediate(resolve));
    await atomicWriteFile(file, content());
    return fsp.open(file, 'a', FILE_MODE);
  })();
  return { appender: new GroupAppender(handle, onFailure), done: handle.then(() => undefined) };
}

export class CorruptFileError extends Error {
  constructor(file: string, line: number, reason: string) {
    super(`${file} is corrupt at line ${line}: ${reason}; refusing to start (restore it from a backup or move it away)`);
    this.name = 'CorruptFileError';
  }
}

export interface JsonLines {
  values: unknown[];
  /** Bytes of the complete, parseable lines; the rest is a torn tail to cut off. */
  validBytes: number;
  /** Bytes after validBytes (a line torn by a crash mid-write), 0 when none. */
  tornBytes: number;
}

/**
 * Parses a JSON-lines buffer. Only newline-terminated lines count. The text after the last
 * newline, or a last terminated line that does not parse (a write torn by a crash, e.g. a
 * tail of zero bytes), is reported as torn. A line that does not parse followed by more
 * lines is corruption, not a crash: CorruptFileError.
 */
export function parseJsonLines(buf: Buffer, file: string): JsonLines {
  const values: unknown[] = [];
  let start = 0;
  let line = 0;
  let badLine = -1;
  let badStart = 0;
  let badReason = '';
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    line++;
    if (badLine >= 0) throw new CorruptFileError(file, badLine, badReason);
    try {
      values.push(JSON.parse(buf.toString('utf8', start, nl)));
    } catch (e) {
      badLine = line;
      badStart = start;
      badReason = e instanceof Error ? e.message : String(e);
    }
    start = nl + 1;
  }
  const validBytes = badLine >= 0 ? badStart : start;
  return { values, validBytes, tornBytes: buf.length - validBytes };
}

/** Reads a JSON-lines file (undefined when it does not exist). */
export async function readJsonLines(file: string): Promise<JsonLines | undefined> {
  let buf: Buffer;
  try {
    buf = await fsp.readFile(file);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  return parseJsonLines(buf, file);
}

/**
 * Cuts an append-only file back to its last newline when a crash left a partial line, so
 * that the next append starts on a line of its own. Reads only the tail. Returns the bytes cut.
 */
export async function cutPartialLastLine(file: string): Promise<number> {
  let fh: FileHandle;
  try {
    fh = await fsp.open(file, 'r+');
  } catch (e) {
    if (errCode(e) === 'ENOENT') return 0;
    throw e;
  }
  try {
    const { size } = await fh.stat();
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const len = Math.min(chunk.length, end);
      await fh.read(chunk, 0, len, end - len);
      const nl = chunk.subarray(0, len).lastIndexOf(0x0a);
      if (nl >= 0) {
        end = end - len + nl + 1;
        break;
      }
      end -= len;
    }
    if (end === size) return 0;
    await fh.truncate(end);
    await fh.sync();
    return size - end;
  } finally {
    await fh.close();
  }
}
