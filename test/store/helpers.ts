// Shared set-up of the store tests: temporary data directories and small records.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStore } from '../../src/store/embedded';
import type { JournalEntry, SessionRecord, Store, VersionRecord } from '../../src/store/types';
import { markerDoc } from './fixtures/crash-child';

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

export async function openStore(dir: string): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ dir });
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
