// A running version and everything derived from it. The document never changes once it is
// running, so serialized read models and the compiled matchers are computed once per version.
import type { ConfigDoc } from '../config/types';
import type { VersionMeta } from '../store/types';

export class RunningState<C> {
  private readonly rendered = new Map<string, string>();

  constructor(
    readonly meta: VersionMeta,
    readonly doc: ConfigDoc,
    /** the compiled matchers and analysis warnings, built in the worker pool */
    readonly compiled: Promise<{ compiled: C; warnings: string[] }>,
  ) {
    // a failed background compile is reported where it is awaited, not as an unhandled rejection
    compiled.catch(() => undefined);
  }

  /** A serialized read model, built on first use and kept for the life of the version. */
  cachedJson(key: string, build: () => unknown): string {
    let json = this.rendered.get(key);
    if (json === undefined) {
      json = JSON.stringify(build());
      this.rendered.set(key, json);
    }
    return json;
  }
}
