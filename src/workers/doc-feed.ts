// How a worker thread is sent configuration documents: whole the first time, then as the
// changes from one it already holds (config/doc-delta.ts). The compile pool and the deep
// analysis both feed their thread this way: at 100,000 policies, serializing the document for
// a thread cost the HTTP thread ~0.1 s (structured clone) per commit and the thread as much
// again to parse it, where a one-rule change travels in a few hundred bytes.
import { parseDoc, serializeDoc, type SerializedDoc } from '../config/document';
import { applyDelta, docDelta, type DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';

/** The whole document, or the changes from one the thread was sent before (`base`: its key). */
export type DocTask = { key?: number } & ({ doc: SerializedDoc } | { base: number; delta: DocDelta });

/** The reply's code when the thread does not hold the base document (it is then sent whole). */
export const NO_BASE = 'NO_BASE';

export const noBaseReply = { ok: false, code: NO_BASE, details: 'the base document is not held here', message: 'internal error' } as const;

/** The worker's side: the documents it was sent last, by key (a version's and a candidate's). */
export class HeldDocs {
  private readonly held = new Map<number, ConfigDoc>();

  constructor(private readonly max: number) {}

  /** The task's document; null when it is a delta on a base this thread does not hold. */
  take(task: DocTask): ConfigDoc | null {
    let doc: ConfigDoc;
    if ('doc' in task) doc = parseDoc(task.doc);
    else {
      const base = this.held.get(task.base);
      if (!base) return null;
      doc = applyDelta(base, task.delta);
      this.held.delete(task.base); // kept over older ones: the next task is likely on it again
      this.held.set(task.base, base);
    }
    if (task.key !== undefined) {
      this.held.delete(task.key);
      this.held.set(task.key, doc);
      for (const k of this.held.keys()) if (this.held.size > this.max) this.held.delete(k);
    }
    return doc;
  }
}

/**
 * The sender's side. `send` runs `run` with the delta from `base` when a thread was sent
 * `base` before (whichever thread: one that does not hold it answers NO_BASE, and the document
 * goes whole), and remembers `doc` as sent once a reply is not NO_BASE. Keys are by document
 * identity: only documents never changed after they are sent (running versions) are useful
 * bases, and a candidate becomes one by being committed.
 */
export class DocFeed {
  private readonly sent = new WeakMap<ConfigDoc, number>();
  private nextKey = 1;
  /** tasks sent with the whole document, and as changes (tests, benchmarks) */
  readonly counts = { whole: 0, delta: 0 };

  /** `delta`: docDelta(base, doc) when the caller already has it. */
  async send<R>(doc: ConfigDoc, base: ConfigDoc | undefined, run: (task: DocTask) => Promise<R>, delta?: DocDelta): Promise<R> {
    const key = this.nextKey++;
    const baseKey = base === undefined ? undefined : this.sent.get(base);
    const whole = () => {
      this.counts.whole++;
      return run({ key, doc: serializeDoc(doc) });
    };
    let reply: R;
    if (baseKey === undefined) reply = await whole();
    else {
      this.counts.delta++;
      reply = await run({ key, base: baseKey, delta: delta ?? docDelta(base!, doc) });
      if (isNoBase(reply)) reply = await whole();
    }
    if (!isNoBase(reply)) this.sent.set(doc, key);
    return reply;
  }
}

function isNoBase(reply: unknown): boolean {
  return typeof reply === 'object' && reply !== null && (reply as { code?: unknown }).code === NO_BASE;
}
