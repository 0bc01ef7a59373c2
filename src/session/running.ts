// A running version and everything derived from it. The document never changes once it is
// running, so serialized read models and the compiled matchers are computed once per version.
import type { ConfigDoc } from '../config/types';
import type { VersionMeta } from '../store/types';

/** A read's answer made once per version: its UTF-8 bytes and its ETag header. */
export interface CachedAnswer {
  body: undefined;
  json: Buffer;
  headers: { ETag: string };
}

export class RunningState<C> {
  private readonly answers = new Map<string, CachedAnswer>();
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
}
