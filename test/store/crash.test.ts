// kill -9 at a random moment: a child process works on the store and records every operation
// the store acknowledged; after the kill, everything recorded must be back, and what is back
// must be consistent (a journal 0..k, versions 0..running, a session or none).
// The record is a file the child writes synchronously, not its stdout (see
// fixtures/crash-child.ts): the check needs exactly what the child did up to the kill, give
// or take the one operation in flight, and a kill -9 loses what Node still queues for stdout.
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { EmbeddedStore } from '../../src/store/embedded';
import { openStore, removeTmpDirs, tmpDir } from './helpers';
import { CRASH_STORE_OPTIONS } from './fixtures/crash-child';

/** The child's FW_VERSIONS_KEEP (versions stored as deltas and keyframes are pruned too). */
const DEFAULT_VERSIONS_KEEP = CRASH_STORE_OPTIONS.versionsKeep;

afterAll(removeTmpDirs);

const CHILD = path.join(__dirname, 'fixtures', 'crash-child.js');

/**
 * Runs the child until a random moment after it starts working (or, with `afterAck`, after
 * its first acknowledged change), kills it, returns the lines of its record.
 */
async function runAndKill(dir: string, recordFile: string, delayMs: number, afterAck: boolean): Promise<string[][]> {
  const child = spawn(process.execPath, [CHILD, dir, 'work', recordFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let timer: NodeJS.Timeout | undefined;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (!timer && out.includes(afterAck ? 'acked\n' : 'working\n')) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  if (signal !== 'SIGKILL') throw new Error(`the child ended on its own (code ${code}): ${err}`);
  const lines = (await fsp.readFile(recordFile, 'utf8')).split('\n');
  lines.pop(); // only complete lines count (the kill may have cut the last write short)
  return lines.map((l) => l.split(' '));
}

async function checkRecovered(store: EmbeddedStore, lines: string[][]): Promise<void> {
  let lastB: string | undefined;
  let base = 0; // running version when lastB began
  let acked = new Set<number>();
  let intent: string | undefined; // "c" or "e" printed for lastB
  let ended = false; // "C" or "E" printed for lastB
  let maxC: number | undefined;
  const committed = new Map<number, string>();
  const users: string[] = [];
  for (const [kind, a, b] of lines) {
    if (kind === 'B') {
      lastB = a;
      base = Number(b);
      acked = new Set();
      intent = undefined;
      ended = false;
    } else if (kind === 'A') {
      expect(a).toBe(lastB);
      acked.add(Number(b));
    } else if (kind === 'c' || kind === 'e') intent = kind;
    else if (kind === 'C') {
      ended = true;
      maxC = Number(b);
      committed.set(Number(b), a);
    } else if (kind === 'E') ended = true;
    else if (kind === 'U') users.push(a);
  }

  const running = (await store.runningVersion()).version;
  const session = await store.getSession();
  if (maxC !== undefined) expect(running).toBeGreaterThanOrEqual(maxC);

  // the newest versions up to the retention (rounds add up past the child's FW_VERSIONS_KEEP),
  // each readable (from its keyframe and deltas) and the one its commit wrote
  const first = Math.max(0, running + 1 - DEFAULT_VERSIONS_KEEP);
  const versions = await store.listVersions();
  expect(versions.map((m) => m.version)).toEqual(Array.from({ length: running + 1 - first }, (_, i) => first + i));
  for (let v = first; v <= running; v++) expect((await store.getVersion(v))?.doc.counters.policy).toBe(v);
  if (first > 0) expect(await store.getVersion(first - 1)).toBeUndefined();
  for (const [v, id] of committed) if (v >= first) expect(versions[v - first].description).toBe(`s ${id}`);

  if (session) {
    const seqs = session.journal.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
    for (const e of session.journal) expect(e.change).toMatchObject({ body: { seq: e.seq } });
    if (session.session.id === lastB) {
      expect(ended).toBe(false);
      for (const seq of acked) expect(seq).toBeLessThan(seqs.length);
      expect(running).toBe(base);
    } else {
      // a session begun after the last line: nothing of it was acknowledged
      expect(lastB === undefined || ended).toBe(true);
      expect(seqs).toEqual([]);
    }
  } else if (lastB !== undefined && !ended) {
    // the session ended with the crash: only a commit or discard already under way does that
    expect(intent).toBeDefined();
    expect(running).toBe(intent === 'c' ? base + 1 : base);
  }
  for (const u of users) expect(await store.getUser(u)).toBeDefined();
}

test('every acknowledged operation survives kill -9 at a random moment', async () => {
  const dir = await tmpDir();
  const records = await tmpDir();
  let appends = 0;
  for (let round = 0; round < 10; round++) {
    // the last round makes sure that acknowledged changes were checked at least once
    const afterAck = round === 9 && appends === 0;
    const lines = await runAndKill(dir, path.join(records, `${round}.log`), 5 + Math.floor(Math.random() * 250), afterAck);
    appends += lines.filter((l) => l[0] === 'A').length;
    const store = await openStore(dir, CRASH_STORE_OPTIONS); // also takes over the dead child's lock
    try {
      await checkRecovered(store, lines);
    } finally {
      await store.close();
    }
  }
  expect(appends).toBeGreaterThan(0);
});
