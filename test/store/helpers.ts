// Shared set-up of the store tests: temporary data directories and small records.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStore, type EmbeddedStoreOptions } from '../../src/store/embedded';
import type { JournalEntry, SessionRecord, Store, VersionRecord } from '../../src/store/types';
import { markerDoc } from './fixtures/crash-child';
import { parseDoc, serializeDoc, workingCopy } from '../../src/config/document';
import { docDelta } from '../../src/config/doc-delta';
import { packDelta } from '../../src/store/version-deltas';
import type { ConfigDoc } from '../../src/config/types';

export { markerDoc };

const dirs: string[] = [];

export async function tmpDir(): Promise<string> {
  const d = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'fw-store-'));
  dirs.push(d);
  return d;
}

export async function removeTmpDirs(): Promise<void> {
  for (const d of dirs.splice(0)) await fs.promises.rm(d, { recursive: true, force: true });
}

export async function openStore(dir: string, opts: Omit<EmbeddedStoreOptions, 'dir'> = {}): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ dir, ...opts });
  await store.open(() => markerDoc(0));
  return store;
}

let sessions = 0;
export function sessionRec(owner = 'admin', baseVersion = 0): SessionRecord {
  const now = Date.now();
  return { id: `s-${process.pid}-${++sessions}`, owner, startedAt: now, lastChangeAt: now, baseVersion };
}

export function entry(seq: number, at = Date.now()): JournalEntry {
  return { seq, at, user: 'admin', change: { op: 'create', kind: 'address', body: { name: `a${seq}`, ips: ['10.0.0.1'] } } };
}

export function versionRec(version: number, description = `v${version}`): VersionRecord {
  return { version, author: 'admin', time: Date.now(), description, summary: '1 added, 0 changed, 0 deleted', doc: markerDoc(version) };
}

/** Catches a rejection and returns the error (fails when the promise resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

/** Commits the next version (a session begun on the running one, no change): its number. */
export async function commitNext(s: Store): Promise<number> {
  const v = (await s.runningVersion()).version + 1;
  const rec = sessionRec('admin', v - 1);
  await s.beginSession(rec);
  await s.commit(rec.id, 0, versionRec(v));
  return v;
}

/**
 * The document of version `v`'s commit in the delta tests: every kind of change docDelta
 * records (an object added, replaced, deleted; a rule replaced in place, rules added and
 * reordered: a table whole), one kind a version.
 */
export function editFor(v: number): (doc: ConfigDoc) => void {
  return (doc) => {
    const addresses = doc.addresses as Map<string, unknown>;
    const policies = doc.policies as unknown as Array<{ id: number; name: string; note?: string }>;
    switch (v % 4) {
      case 1:
        addresses.set(`a${v}`, { name: `a${v}`, ips: [`10.0.${v}.0/24`] });
        doc.policies = [...policies, { id: v, name: `p${v}` }] as never;
        doc.counters = { ...doc.counters, policy: v };
        break;
      case 2:
        addresses.set(`a${v - 1}`, { name: `a${v - 1}`, ips: [`10.1.${v}.0/24`], description: 'changed' });
        if (policies.length) doc.policies = [{ ...policies[0], note: `v${v}` }, ...policies.slice(1)] as never;
        break;
      case 3:
        addresses.delete(`a${v - 2}`);
        addresses.set(`b${v}`, { name: `b${v}`, ips: ['10.2.0.1'] });
        break;
      default:
        doc.policies = [...policies].reverse() as never;
    }
  };
}

/**
 * Commits the next version as the commit pipeline does: the running document with `edit`
 * applied, with the change from the running version (`change` false: without, stored whole as
 * before deltas; 'other': made on another commit than the running one). Returns the record
 * as it is stored whole, which every read of the version must give back.
 */
export async function commitEdit(s: Store, edit: (doc: ConfigDoc) => void, change: boolean | 'other' = true): Promise<VersionRecord> {
  const running = await s.runningVersion();
  const baseDoc = parseDoc((await s.getVersion(running.version))!.doc);
  const doc = workingCopy(baseDoc);
  edit(doc);
  const v = running.version + 1;
  const rec = sessionRec('admin', v - 1);
  await s.beginSession(rec);
  const version: VersionRecord = { version: v, author: 'admin', time: Date.now(), description: `v${v}`, summary: '', doc: serializeDoc(doc) };
  const base = change === 'other' ? { ...running, time: running.time + 1 } : running;
  // as the pipeline stores it (versionChange): a reordered table as its order
  await s.commit(rec.id, 0, version, change ? { base, delta: packDelta(baseDoc, docDelta(baseDoc, doc)) } : undefined);
  return version;
}
