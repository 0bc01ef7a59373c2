// The Redis store's committed versions, whole (keyframes) or as deltas (version-deltas.ts):
// the commit script's write of either, the keyframe written after the answer when one is due,
// and the reads that put a version back together. Keys: keys.ts version / versionDelta.
import { metaOf } from '../records';
import { StoreConflict, type VersionRecord } from '../types';
import {
  deltaRecordOf, keyframeDue, rebuildVersion, storesAsDelta, type CommitId, type VersionChange, type VersionDeltaRecord,
} from '../version-deltas';
import { BULK_BYTES, getSized } from './bulk-lane';
import type { DurableWrites } from './durable-writes';
import type { keysOf } from './keys';
import type { Scripted } from './scripts';
import { conflictReason } from './decode';
import type { StoreEvent } from '../cluster-bus';

type Call = <T>(fn: () => Promise<T>) => Promise<T>;

/** A read of a version that found a record of its chain deleted meanwhile (a commit's retention) tries again this often. */
const READ_TRIES = 3;

export interface RedisVersionsOptions {
  versionsKeep: number;
  keyframeEvery?: number;
  /** told of a keyframe write that failed (the delta stays the version's record) */
  onKeyframeError?: (e: unknown) => void;
}

export class RedisVersions {
  constructor(
    private readonly redis: Scripted,
    private readonly writes: DurableWrites,
    private readonly keys: ReturnType<typeof keysOf>,
    private readonly call: Call,
    private readonly o: RedisVersionsOptions,
  ) {}

  /**
   * The commit script with the version's record: the delta when `change` is made on the
   * running commit as this instance knows it (the script checks it is still the one in
   * Redis: 'base' otherwise, and the version goes whole), else whole.
   */
  async commit(sessionId: string, journalLength: number, version: VersionRecord, change: VersionChange | undefined): Promise<void> {
    // the script checks the base is the running commit in Redis
    let delta = change !== undefined && storesAsDelta(version, change, change.base);
    for (;;) {
      const record = JSON.stringify(delta ? deltaRecordOf(version, change!) : version);
      const r = await this.write(sessionId, journalLength, version, record, delta ? change!.base : null);
      if (r === 'base' && delta) {
        delta = false;
        continue;
      }
      if (!r.startsWith('ok:')) throw new StoreConflict(`cannot commit session ${sessionId} as version ${version.version}: ${r}`, conflictReason(r));
      if (delta && keyframeDue(Number(r.slice(3)), Buffer.byteLength(record), this.o.keyframeEvery)) this.keyframe(version);
      return;
    }
  }

  private async write(sessionId: string, journalLength: number, version: VersionRecord, record: string, base: CommitId | null): Promise<string> {
    const k = this.keys, n = version.version;
    const event: StoreEvent = { type: 'version', version: n };
    const bytes = Buffer.byteLength(record);
    const commit = (w: Scripted) => w.fwCommit(
      k.session, k.journal, k.claim, k.running, k.history, base ? k.versionDelta(n) : k.version(n), k.lastCommit,
      sessionId, journalLength, n, record, JSON.stringify(metaOf(version)), k.channel, JSON.stringify(event), `${sessionId}:${journalLength}`,
      this.o.versionsKeep, k.versionPrefix, k.versionDeltaPrefix, base ? String(base.time) : '', base ? base.author : '',
    );
    // ERR_SYS_4006 (committed, not confirmed by enough replicas) goes to the pipeline, which
    // keeps the version; its keyframe is then left to a later commit's
    return (await (bytes > BULK_BYTES ? this.writes.durableBulk(bytes, commit) : this.writes.durable(commit))) as string;
  }

  /** After the answer: version whole beside its delta (the next reads start from it). */
  private keyframe(version: VersionRecord): void {
    const k = this.keys, n = version.version;
    const run = async () => {
      const record = JSON.stringify(version);
      await this.call(() => this.writes.bulk.run(Buffer.byteLength(record), (w) => w.fwKeyframe(k.history, k.version(n), k.versionDelta(n), n, String(version.time), record)));
    };
    run().catch((e: unknown) => this.o.onKeyframeError?.(e));
  }

  /** Version n whole, read from its keyframe and the deltas after it; undefined when not kept. */
  async get(n: number): Promise<VersionRecord | undefined> {
    if (!Number.isSafeInteger(n) || n < 0) return undefined;
    const k = this.keys;
    for (let tries = 0; ; tries++) {
      const base = (await this.call(() => this.redis.fwVersionBase(k.history, k.versionPrefix, k.versionDeltaPrefix, n))) as number | null;
      if (base === null) return undefined;
      const texts = await this.call(() => Promise.all([
        getSized(this.redis, this.writes.bulk, k.version(base)),
        ...Array.from({ length: n - base }, (_, i) => getSized(this.redis, this.writes.bulk, k.versionDelta(base + 1 + i))),
      ]));
      if (texts.every((t) => t !== null)) {
        const [whole, ...deltas] = texts as string[];
        return rebuildVersion(JSON.parse(whole) as VersionRecord, deltas.map((t) => JSON.parse(t) as VersionDeltaRecord));
      }
      // a commit's retention deleted part of the chain between the two reads: read again
      if (tries + 1 >= READ_TRIES) return undefined;
    }
  }

  /** Version n's delta record, when it was committed as one and is still stored. */
  async delta(n: number): Promise<VersionDeltaRecord | undefined> {
    if (!Number.isSafeInteger(n) || n < 1) return undefined;
    const t = await this.call(() => getSized(this.redis, this.writes.bulk, this.keys.versionDelta(n)));
    return t ? (JSON.parse(t) as VersionDeltaRecord) : undefined;
  }
}
