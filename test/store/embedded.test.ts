// The embedded store's own: its files, persistence across restarts and recovery from the
// states a crash can leave on disk. The Store contract both stores keep is in contract.ts
// (conformance.test.ts); the real kill -9 test is in crash.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EmbeddedStore } from '../../src/store/embedded';
import type { Store } from '../../src/store/types';
import { commitEdit, commitNext, editFor, entry, markerDoc, openStore, rejection, removeTmpDirs, sessionRec, tmpDir, versionRec } from './helpers';

afterAll(removeTmpDirs);

let dir: string;
let store: EmbeddedStore;

beforeEach(async () => {
  dir = await tmpDir();
  store = await openStore(dir);
});

afterEach(async () => {
  await store.close();
});

async function reopen(): Promise<EmbeddedStore> {
  await store.close();
  store = await openStore(dir);
  return store;
}

async function expectConflict(p: Promise<unknown>, re: RegExp): Promise<void> {
  const e = await rejection(p);
  expect(e.name).toBe('StoreConflict');
  expect(e.message).toMatch(re);
}

describe('a new store', () => {
  test('creates a missing directory (and parents) with private permissions', async () => {
    const nested = path.join(dir, 'a', 'b', 'data');
    const s = await openStore(nested);
    await s.putUser({ username: 'admin', hash: 'h', createdAt: 1, role: 'admin' });
    expect(fs.statSync(nested).mode & 0o777).toBe(0o700);
    for (const f of ['meta.json', 'history.log', 'versions/0.json', 'daemon.pid']) {
      expect(fs.statSync(path.join(nested, f)).mode & 0o777).toBe(0o600);
    }
    await s.close();
  });

  test('refuses calls before open and after close', async () => {
    const s = new EmbeddedStore({ dir: path.join(dir, 'other') });
    expect((await rejection(s.runningVersion())).code).toBe('ERR_SYS_4002');
    await s.open(() => markerDoc(0));
    await expect(s.open(() => markerDoc(0))).rejects.toThrow(/once/);
    await s.close();
    expect((await rejection(s.getSession())).code).toBe('ERR_SYS_4002');
    await s.close(); // twice is fine
  });
});

describe('session and journal', () => {
  test('returned state is a copy', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    const state = await store.getSession();
    state!.journal.push(entry(0));
    state!.session.owner = 'mallory';
    expect(await store.getSession()).toEqual({ session: rec, journal: [] });
  });

  test('concurrent appends are validated at call time and all become durable', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    const acks = Array.from({ length: 200 }, (_, i) => store.appendChange(rec.id, entry(i)));
    // a duplicate seq is refused at once, even though the earlier ones are not yet on disk
    await expectConflict(store.appendChange(rec.id, entry(100)), /has 200 changes/);
    await Promise.all(acks);
    await reopen();
    const state = await store.getSession();
    expect(state?.journal.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  test('appends may follow a begin that is not yet on disk', async () => {
    const rec = sessionRec();
    const begun = store.beginSession(rec);
    const appended = store.appendChange(rec.id, entry(0));
    expect(await begun).toBeNull();
    await appended;
    await reopen();
    expect((await store.getSession())?.journal).toHaveLength(1);
  });

  test('endSession ends only the active session', async () => {
    const rec = sessionRec();
    expect(await store.endSession(rec.id)).toBe(false);
    await store.beginSession(rec);
    expect(await store.endSession('other')).toBe(false);
    const pending = store.appendChange(rec.id, entry(0));
    expect(await store.endSession(rec.id)).toBe(true);
    await pending; // accepted before the end: still acknowledged
    expect(await store.getSession()).toBeNull();
    expect(await store.endSession(rec.id)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'session.log'))).toBe(false);
    const next = sessionRec();
    expect(await store.beginSession(next)).toBeNull();
    await reopen();
    expect((await store.getSession())?.session.id).toBe(next.id);
  });

  test('a new session right after an end survives a restart', async () => {
    const a = sessionRec();
    await store.beginSession(a);
    const ended = store.endSession(a.id);
    const b = sessionRec();
    const begun = store.beginSession(b);
    const appended = store.appendChange(b.id, entry(0));
    await Promise.all([ended, begun, appended]);
    await reopen();
    expect(await store.getSession()).toMatchObject({ session: { id: b.id }, journal: [{ seq: 0 }] });
  });
});

describe('commit', () => {
  // what a commit records is the store contract's (contract.ts); here, its files and copies
  test('a commit removes the session log, and each read of a version is a fresh copy', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    await store.appendChange(rec.id, entry(0));
    const v1 = versionRec(1, 'first');
    await store.commit(rec.id, 1, v1);
    expect(fs.existsSync(path.join(dir, 'session.log'))).toBe(false);
    const copy = await store.getVersion(1);
    copy!.doc.routes.push('x');
    expect((await store.getVersion(1))!.doc).toEqual(v1.doc);
    expect(v1.doc.routes).toEqual([]);
  });

  test('while a commit runs, the session refuses appends, another commit and an end', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    const committing = store.commit(rec.id, 0, versionRec(1));
    await expectConflict(store.appendChange(rec.id, entry(0)), /being committed/);
    await expectConflict(store.commit(rec.id, 0, versionRec(1)), /already being committed/);
    expect(await store.endSession(rec.id)).toBe(false);
    expect(await store.beginSession(sessionRec())).toMatchObject({ id: rec.id }); // still active
    await committing;
    expect((await store.runningVersion()).version).toBe(1);
  });

  test('a commit waits for appends accepted before it', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    const acks = [0, 1, 2].map((i) => store.appendChange(rec.id, entry(i)));
    await store.commit(rec.id, 3, versionRec(1));
    await Promise.all(acks);
    await reopen();
    expect((await store.runningVersion()).version).toBe(1);
    expect(await store.getSession()).toBeNull();
  });

});

// the trail keeps each payload as its JSON text and parses it for the entries a listing
// answers (a heap snapshot diff of the soak found the payload objects and their hidden classes
// accumulating): every listing hands out its own copy, and the trail is never changed through one
test('audit payloads are kept as text: each listing answers a copy of its own', async () => {
  await store.audit({ at: 1, user: 'alice', action: 'change.create', details: 'address a1', payload: { name: 'a1', ips: ['10.0.0.1/32'] } });
  const [first] = await store.listAudit({ limit: 1 });
  (first.payload as { ips: string[] }).ips.push('10.9.9.9/32');
  const [again] = await store.listAudit({ limit: 1 });
  expect(again.payload).toEqual({ name: 'a1', ips: ['10.0.0.1/32'] });
  expect(again.payload).not.toBe(first.payload);
});

describe('retention (FW_VERSIONS_KEEP, FW_AUDIT_KEEP)', () => {
  async function retaining(opts: { versionsKeep?: number; auditKeep?: number; versionCacheSize?: number; keyframeEvery?: number }): Promise<EmbeddedStore> {
    await store.close();
    store = new EmbeddedStore({ dir, ...opts });
    await store.open(() => markerDoc(0));
    return store;
  }

  const versionFiles = () => fs.readdirSync(path.join(dir, 'versions')).map((f) => Number(f.replace('.json', ''))).sort((a, b) => a - b);
  const lines = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean).length;

  // what is listed and read is the store contract's (contract.ts); here, what is left on disk
  test('pruned versions leave the disk: their files at once, their history.log lines at the next open', async () => {
    await retaining({ versionsKeep: 3 });
    for (let i = 0; i < 9; i++) await commitNext(store);
    await store.close(); // waits for the deletion of the pruned files
    expect(versionFiles()).toEqual([7, 8, 9]);
    expect(lines('history.log')).toBeLessThanOrEqual(6);
    await retaining({ versionsKeep: 3 });
    expect((await store.runningVersion()).version).toBe(9);
    expect(lines('history.log')).toBe(3);
  });

  // the crash test's finding: a kill -9 between a commit point and the deletion of the version
  // it pruned left keep + 1 versions listed after the restart, as a lowered setting does
  test('more versions on disk than kept (a crash before the deletion, a lowered setting) are pruned at open', async () => {
    await retaining({ versionsKeep: 0 });
    for (let i = 0; i < 5; i++) await commitNext(store);
    await retaining({ versionsKeep: 2 });
    expect((await store.listVersions()).map((m) => m.version)).toEqual([4, 5]);
    expect(await store.getVersion(3)).toBeUndefined();
    expect((await store.getVersion(4))?.doc.counters.policy).toBe(4);
  });

  test('a lowered setting deletes the files of the versions it prunes at the next commit', async () => {
    await retaining({ versionsKeep: 0 });
    for (let i = 0; i < 5; i++) await commitNext(store);
    await retaining({ versionsKeep: 2 });
    expect(versionFiles()).toEqual([0, 1, 2, 3, 4, 5]);
    await commitNext(store);
    await store.close();
    expect(versionFiles()).toEqual([5, 6]);
  });

  test('a version committed with its change is a delta file, with a keyframe beside every few; pruning keeps what kept versions are read from', async () => {
    await retaining({ versionsKeep: 3, keyframeEvery: 3 });
    const written = [];
    for (let v = 1; v <= 7; v++) written.push(await commitEdit(store, editFor(v)));
    await store.close(); // waits for the keyframe and the deletions
    const files = fs.readdirSync(path.join(dir, 'versions')).sort((a, b) => parseFloat(a) - parseFloat(b) || a.length - b.length);
    // keyframes of 3 and 6 (three deltas each since the last); 5, the oldest kept, is read from 3
    expect(files).toEqual(['3.json', '3.delta.json', '4.delta.json', '5.delta.json', '6.json', '6.delta.json', '7.delta.json']);
    // the deltas are small: version 7's (one address deleted, one added) is those two
    expect(fs.statSync(path.join(dir, 'versions', '7.delta.json')).size).toBeLessThan(400);
    // a raised setting lists again what is on disk and readable: from the lowest keyframe
    await retaining({ versionsKeep: 100 });
    expect((await store.listVersions()).map((m) => m.version)).toEqual([3, 4, 5, 6, 7]);
    for (const w of written.slice(2)) expect(JSON.stringify(await store.getVersion(w.version))).toBe(JSON.stringify(w));
  });

  test('a delta whose keyframe a crash deleted mid-pruning is neither listed nor read, and goes at the next commit', async () => {
    await retaining({ versionsKeep: 0, keyframeEvery: 3 });
    for (let v = 1; v <= 7; v++) await commitEdit(store, editFor(v));
    await store.close();
    // as a crash between the deletion of 3.json and of 3.delta.json (0..2 already deleted) leaves it
    for (const f of ['0.json', '1.delta.json', '2.delta.json', '3.json']) fs.rmSync(path.join(dir, 'versions', f));
    await retaining({ versionsKeep: 2 });
    expect((await store.listVersions()).map((m) => m.version)).toEqual([6, 7]);
    await retaining({ versionsKeep: 100 });
    expect((await store.listVersions()).map((m) => m.version)).toEqual([6, 7]);
    expect(await store.getVersion(5)).toBeUndefined();
    await commitEdit(store, editFor(8));
    await store.close();
    expect(fs.readdirSync(path.join(dir, 'versions')).filter((f) => parseFloat(f) < 6)).toEqual([]);
  });

  test('a read racing the pruning of its version finds it whole or not at all', async () => {
    await retaining({ versionsKeep: 2, versionCacheSize: 0 }); // every read goes to the file
    await commitNext(store);
    for (let i = 0; i < 10; i++) {
      const oldest = (await store.listVersions())[0].version;
      const read = store.getVersion(oldest);
      await commitNext(store);
      const got = await read;
      if (got !== undefined) expect(got.doc.counters.policy).toBe(oldest);
    }
    expect((await store.listVersions()).map((m) => m.version)).toEqual([10, 11]);
  });

  test('audit.log is rewritten with the kept entries; their ids survive the rewrite', async () => {
    await retaining({ auditKeep: 4 });
    for (let i = 1; i <= 20; i++) await store.audit({ at: i, user: 'alice', action: 'user.create', details: `u${i}` });
    await store.close();
    expect(lines('audit.log')).toBeLessThanOrEqual(5);
    await retaining({ auditKeep: 4 });
    expect((await store.listAudit({ limit: 100 })).map((e) => e.id)).toEqual([20, 19, 18, 17]);
  });
});

describe('users, secret, revocation, audit', () => {
  const user = (username: string, hash = 'scrypt$1', role = 'admin') => ({ username, hash, createdAt: 1000, role, id: `id-${username}`, epoch: 0 });

  test('the last user cannot be deleted', async () => {
    await store.putUser(user('alice'));
    await store.putUser(user('bob'));
    expect(await store.deleteUser('carol')).toBe(true); // nothing to delete
    expect(await store.deleteUser('bob')).toBe(true);
    expect(await store.deleteUser('alice')).toBe(false);
    expect((await store.listUsers()).map((u) => u.username)).toEqual(['alice']);
    await reopen();
    expect((await store.listUsers()).map((u) => u.username)).toEqual(['alice']);
  });

  test('revoked tokens stay revoked until they expire', async () => {
    const exp = Date.now() + 3600_000;
    await store.revokeToken('jti-ms', exp);
    await store.revokeToken('jti-sec', Math.floor(exp / 1000)); // unix seconds are understood
    await store.revokeToken('jti-old', Date.now() - 1000); // already expired: nothing to keep
    // a minute ahead: even a loaded machine does not stall that long between here and the write
    await store.revokeToken('jti-soon', Date.now() + 60_000);
    expect(await store.isRevoked('jti-ms')).toBe(true);
    expect(await store.isRevoked('jti-sec')).toBe(true);
    expect(await store.isRevoked('jti-soon')).toBe(true);
    expect(await store.isRevoked('jti-old')).toBe(false);
    expect(await store.isRevoked('other')).toBe(false);
    // two minutes later: the clock is moved rather than waited for
    const realNow = Date.now.bind(Date);
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 120_000);
    try {
      await reopen();
      expect(await store.isRevoked('jti-ms')).toBe(true);
      expect(await store.isRevoked('jti-sec')).toBe(true);
      expect(await store.isRevoked('jti-soon')).toBe(false);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
      await store.putUser(user('x')); // any write prunes expired revocations
      expect(Object.keys(meta.revoked).sort()).toEqual(['jti-ms', 'jti-sec', 'jti-soon']);
      const pruned = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
      expect(Object.keys(pruned.revoked).sort()).toEqual(['jti-ms', 'jti-sec']);
    } finally {
      clock.mockRestore();
    }
  });

  test('audit events are appended as JSON lines', async () => {
    await store.audit({ at: 1, user: 'alice', action: 'session.force-discard', details: 'owner: bob' });
    await store.audit({ at: 2, user: 'alice', action: 'user.delete', details: 'bob' });
    const lines = fs.readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.action)).toEqual(['session.force-discard', 'user.delete']);
  });
});

describe('restart', () => {
  test('a clean restart restores everything', async () => {
    await store.putUser({ username: 'admin', hash: 'scrypt$h', createdAt: 5, role: 'admin' });
    await store.getOrCreateSecret(() => 'the-secret');
    await store.revokeToken('t1', Date.now() + 60_000);
    const s1 = sessionRec();
    await store.beginSession(s1);
    await store.appendChange(s1.id, entry(0));
    await store.commit(s1.id, 1, versionRec(1));
    const s2 = sessionRec('admin', 1);
    await store.beginSession(s2);
    await store.appendChange(s2.id, entry(0, 111));
    await store.appendChange(s2.id, entry(1, 222));
    const before = {
      running: await store.runningVersion(),
      versions: await store.listVersions(),
      v1: await store.getVersion(1),
      session: await store.getSession(),
      users: await store.listUsers(),
    };
    const s: Store = await reopen();
    expect(await s.runningVersion()).toEqual(before.running);
    expect(await s.listVersions()).toEqual(before.versions);
    expect(await s.getVersion(1)).toEqual(before.v1);
    expect(await s.getSession()).toEqual(before.session);
    expect((await s.getSession())?.session.lastChangeAt).toBe(222);
    expect(await s.listUsers()).toEqual(before.users);
    expect(await s.getOrCreateSecret(() => 'other')).toBe('the-secret');
    expect(await s.isRevoked('t1')).toBe(true);
    // the recovered session goes on
    await s.appendChange(s2.id, entry(2));
    await s.commit(s2.id, 3, versionRec(2));
    expect((await s.runningVersion()).version).toBe(2);
  });
});

describe('recovery from what a crash leaves on disk', () => {
  const sessionLog = () => path.join(dir, 'session.log');

  async function sessionWith(n: number): Promise<string> {
    const rec = sessionRec();
    await store.beginSession(rec);
    for (let i = 0; i < n; i++) await store.appendChange(rec.id, entry(i));
    await store.close();
    return rec.id;
  }

  test('a torn last line of the session log is cut away', async () => {
    const id = await sessionWith(3);
    const size = fs.statSync(sessionLog()).size;
    fs.appendFileSync(sessionLog(), '{"seq":3,"at":17,"us');
    store = await openStore(dir);
    expect(fs.statSync(sessionLog()).size).toBe(size);
    expect((await store.getSession())?.journal.map((e) => e.seq)).toEqual([0, 1, 2]);
    await store.appendChange(id, entry(3));
    await reopen();
    expect((await store.getSession())?.journal.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
  });

  test('a tail of zero bytes (size written, data not) is cut away', async () => {
    await sessionWith(2);
    fs.appendFileSync(sessionLog(), Buffer.alloc(300));
    store = await openStore(dir);
    expect((await store.getSession())?.journal).toHaveLength(2);
  });

  test('a corrupt line in the middle refuses start and releases the lock', async () => {
    await sessionWith(3);
    const lines = fs.readFileSync(sessionLog(), 'utf8').split('\n');
    lines[2] = lines[2].slice(0, 10);
    fs.writeFileSync(sessionLog(), lines.join('\n'));
    const s = new EmbeddedStore({ dir });
    await expect(s.open(() => markerDoc(0))).rejects.toThrow(/session\.log is corrupt at line 3/);
    expect(fs.existsSync(path.join(dir, 'daemon.pid'))).toBe(false);
    fs.rmSync(sessionLog());
    store = await openStore(dir);
    expect(await store.getSession()).toBeNull();
  });

  test('a journal with a gap refuses start', async () => {
    await sessionWith(3);
    const lines = fs.readFileSync(sessionLog(), 'utf8').split('\n');
    lines.splice(2, 1);
    fs.writeFileSync(sessionLog(), lines.join('\n'));
    await expect(new EmbeddedStore({ dir }).open(() => markerDoc(0))).rejects.toThrow(/expected journal entry 1/);
    store = new EmbeddedStore({ dir }); // for afterEach
  });

  test('files of a commit that crashed before its commit point are ignored', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    await store.appendChange(rec.id, entry(0));
    await store.close();
    // version 1 written and indexed, meta.json not yet renamed
    fs.writeFileSync(path.join(dir, 'versions', '1.json'), JSON.stringify(versionRec(1, 'lost')));
    fs.appendFileSync(path.join(dir, 'history.log'), JSON.stringify({ ...versionRec(1, 'lost'), doc: undefined }) + '\n');
    fs.writeFileSync(path.join(dir, 'meta.json.123.9.tmp'), '{"half');
    store = await openStore(dir);
    expect((await store.runningVersion()).version).toBe(0);
    expect(await store.listVersions()).toHaveLength(1);
    expect(await store.getVersion(1)).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'versions', '1.json'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'meta.json.123.9.tmp'))).toBe(false);
    expect((await store.getSession())?.journal).toHaveLength(1); // the session is still open
    await store.commit(rec.id, 1, versionRec(1, 'real'));
    await reopen();
    expect((await store.listVersions()).map((m) => m.description)).toEqual(['initial configuration', 'real']);
    expect((await store.getVersion(1))?.description).toBe('real');
  });

  test('a session log left after the commit point is dropped', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    await store.appendChange(rec.id, entry(0));
    const saved = fs.readFileSync(sessionLog());
    await store.commit(rec.id, 1, versionRec(1));
    await store.close();
    fs.writeFileSync(sessionLog(), saved); // as if the crash came before the unlink
    store = await openStore(dir);
    expect((await store.runningVersion()).version).toBe(1);
    expect(await store.getSession()).toBeNull();
    expect(fs.existsSync(sessionLog())).toBe(false);
  });

  test('a lost history index is rebuilt from the version files', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    await store.commit(rec.id, 0, versionRec(1, 'one'));
    const before = await store.listVersions();
    await store.close();
    fs.rmSync(path.join(dir, 'history.log'));
    store = await openStore(dir);
    expect(await store.listVersions()).toEqual(before);
  });

  test('meta.json missing beside committed versions refuses start', async () => {
    const rec = sessionRec();
    await store.beginSession(rec);
    await store.commit(rec.id, 0, versionRec(1));
    await store.close();
    fs.rmSync(path.join(dir, 'meta.json'));
    await expect(new EmbeddedStore({ dir }).open(() => markerDoc(0))).rejects.toThrow(/no meta\.json/);
    store = new EmbeddedStore({ dir });
  });

  test('a torn audit line is cut before the next append', async () => {
    await store.audit({ at: 1, user: 'a', action: 'x', details: '' });
    await store.close();
    fs.appendFileSync(path.join(dir, 'audit.log'), '{"at":2,"us');
    store = await openStore(dir);
    await store.audit({ at: 3, user: 'a', action: 'y', details: '' });
    const lines = fs.readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.at)).toEqual([1, 3]);
  });
});

describe('a failed write', () => {
  test('rejects the append and fails the store until a restart', async () => {
    await store.close();
    const failures: Error[] = [];
    store = new EmbeddedStore({ dir, onFailure: (e) => failures.push(e) });
    await store.open(() => markerDoc(0));
    const rec = sessionRec();
    const realOpen = fs.promises.open;
    const spy = jest.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof realOpen>) => {
      const fh = await realOpen(...args);
      if (String(args[0]).endsWith('session.log') && args[1] === 'a') {
        fh.datasync = () => Promise.reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
      }
      return fh;
    });
    try {
      await store.beginSession(rec);
      const e = await rejection(store.appendChange(rec.id, entry(0)));
      expect(e.code).toBe('ERR_SYS_4002');
      expect(e).toMatchObject({ details: expect.stringMatching(/EIO/) });
      expect((await rejection(store.getSession())).code).toBe('ERR_SYS_4002');
      expect((await rejection(store.putUser({ username: 'x', hash: 'h', createdAt: 0, role: 'admin' }))).code).toBe('ERR_SYS_4002');
      expect(failures).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
    await reopen(); // a restart recovers what is on disk
    expect((await store.getSession())?.session.id).toBe(rec.id);
  });
});
