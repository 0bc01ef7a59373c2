// A running version and everything derived from it. The document never changes once it is
// running, so serialized read models and the compiled matchers are computed once per version.
import type { ConfigDoc } from '../config/types';
import type { VersionMeta } from '../store/types';
import { EncodedList } from './encoded-list';

/** A read's answer made once per version: its UTF-8 bytes and its ETag header. */
export interface CachedAnswer {
  body: undefined;
  json: Buffer;
  headers: { ETag: string };
}

export class RunningState<C> {
  private readonly answers = new Map<string, CachedAnswer>();
  private readonly lists = new Map<string, EncodedList>();
  /** The ETag of every read of this version: its number and commit time name it exactly. */
  readonly etag: string;

  constructor(
    readonly meta: VersionMeta,
    readonly doc: ConfigDoc,
    /** the compiled matchers and analysis warnings, built in the worker pool */
    readonly compiled: Promise<{ compiled: C; warnings: string[] }>,
  ) {
    this.etag = `"v${meta.version}.${meta.time.toString(36)}"`;
    // a failed background compile is reported where it is awaited, not as an unhandled rejection
    compiled.catch(() => undefined);
  }

  /**
   * A read model's whole answer, built on first use and kept for the life of the version:
   * serialized and encoded once, so a cached read writes bytes and allocates nothing.
   */
  cachedAnswer(key: string, build: () => unknown): CachedAnswer {
    let a = this.answers.get(key);
    if (a === undefined) {
      a = Object.freeze({ body: undefined, json: Buffer.from(JSON.stringify(build())), headers: Object.freeze({ ETag: this.etag }) });
      this.answers.set(key, a);
    }
    return a;
  }

  /** A list answer of this version, encoded a slice at a time as it is read (encoded-list.ts). */
  encodedList<T>(key: string, items: () => readonly T[], render: (item: T) => unknown): EncodedList {
    let l = this.lists.get(key);
    if (l === undefined) {
      l = new EncodedList(items(), render) as EncodedList;
      this.lists.set(key, l);
    }
    return l;
  }
}
