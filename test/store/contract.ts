// The Store contract (src/store/types.ts), written once against the port: conformance.test.ts
// runs it on every store, so that a rule that differs between the embedded store's
// TypeScript and the Redis store's Lua fails here rather than in a cluster. What only one
// store has (files and their recovery, group appends with footprints) stays in that store's
// own tests.
import { StoreConflict, type ApiTokenRecord, type AuditQuery, type ConflictReason, type JournalEntry, type Store, type UserRecord } from '../../src/store/types';
import { journalDigest, lineDigest } from '../../src/store/journal-digest';
import { journalLine } from '../../src/store/redis/decode';
import { commitEdit, commitNext, editFor, entry, markerDoc, rejection, sessionRec, versionRec } from './helpers';
import type { VersionRecord } from '../../src/store/types';

export interface StoreOptions {
  versionsKeep?: number;
  keyframeEvery?: number;
  auditKeep?: number;
  auditLoginFailuresKeep?: number;
}

/** One store implementation as the contract drives it. */
export interface Backend {
  name: string;
  /** A new, empty store, opened with the marker document of version 0. */
  fresh(opts?: StoreOptions): Promise<Store>;
  /** The same store closed and opened again (a restart), with these options. */
  reopen(store: Store, opts?: StoreOptions): Promise<Store>;
  /** Closes every store it opened. */
  closeAll(): Promise<void>;
}

/** A refused compare-and-set: its reason is the contract (the message is each store's own). */
async function expectConflict(p: Promise<unknown>, reason: ConflictReason): Promise<void> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(StoreConflict);
  expect((e as StoreConflict).reason).toBe(reason);
}

/** Entries as appended: without the digest a shared store marks them with (checked apart). */
const plain = (entries: JournalEntry[] | null | undefined) => entries?.map(({ digest: _digest, ...e }) => e);

const user = (username: string, hash = 'scrypt$1', role = 'admin'): UserRecord => ({ username, hash, createdAt: 1000, role, id: `id-${username}`, epoch: 0 });

function token(owner: string, name: string, hash = `h-${owner}-${name}`): ApiTokenRecord {
  return { hash, name, owner, role: 'viewer', createdAt: 1000, expiresAt: null, lastUsedAt: null };
}

export function storeContract(backend: Backend): void {
  let store: Store;
  const restart = async (opts?: StoreOptions) => (store = await backend.reopen(store, opts));

  beforeEach(async () => {
    store = await backend.fresh();
  });
  afterEach(() => backend.closeAll());

  describe(`${backend.name}: a new store`, () => {
    test('holds version 0 from the initial document, no session, no user', async () => {
      const running = await store.runningVersion();
      expect(running).toMatchObject({ version: 0, author: 'system', description: 'initial configuration', summary: '' });
      expect(typeof running.time).toBe('number');
      expect(await store.listVersions()).toEqual([running]);
      expect(await store.getVersion(0)).toEqual({ ...running, doc: markerDoc(0) });
      for (const v of [1, -1, 0.5]) expect(await store.getVersion(v)).toBeUndefined();
      expect(await store.getSession()).toBeNull();
      expect(await store.sessionHead()).toBeNull();
      expect(await store.listUsers()).toEqual([]);
      await expect(store.ping()).resolves.toBeUndefined();
    });

    test('a restart keeps version 0 as it was', async () => {
      const before = await store.getVersion(0);
      await restart();
      expect(await store.getVersion(0)).toEqual(before);
    });
  });

  describe(`${backend.name}: session and journal`, () => {
    test('begin, append, read back, also after a restart', async () => {
      const rec = sessionRec();
      expect(await store.beginSession(rec)).toBeNull();
      expect(await store.getSession()).toEqual({ session: rec, journal: [] });
      await store.appendChange(rec.id, entry(0, rec.startedAt + 10));
      await store.appendChange(rec.id, entry(1, rec.startedAt + 20));
      const state = await store.getSession();
      expect(plain(state?.journal)).toEqual([entry(0, rec.startedAt + 10), entry(1, rec.startedAt + 20)]);
      expect(state?.session).toEqual({ ...rec, lastChangeAt: rec.startedAt + 20 });
      expect(await store.sessionHead()).toMatchObject({ session: { id: rec.id }, length: 2 });
      expect(plain(await store.journalSince(rec.id, 1))).toEqual([entry(1, rec.startedAt + 20)]);
      expect(await store.journalSince('other', 0)).toBeNull();
      await restart();
      expect((await store.getSession())?.journal.map((e) => e.seq)).toEqual([0, 1]);
    });

    test('a second begin returns the active session and changes nothing', async () => {
      const rec = sessionRec('alice');
      await store.beginSession(rec);
      expect(await store.beginSession(sessionRec('bob'))).toEqual(rec);
      expect((await store.getSession())?.session.owner).toBe('alice');
    });

    test('every append conflict is a StoreConflict and changes nothing', async () => {
      await expectConflict(store.appendChange('none', entry(0)), 'session');
      const rec = sessionRec();
      await store.beginSession(rec);
      await expectConflict(store.appendChange('other', entry(0)), 'session');
      await expectConflict(store.appendChange(rec.id, entry(1)), 'length');
      await store.appendChange(rec.id, entry(0));
      await expectConflict(store.appendChange(rec.id, entry(0)), 'length');
      await expectConflict(store.appendChange(rec.id, entry(5)), 'length');
      expect((await store.getSession())?.journal).toHaveLength(1);
      await store.endSession(rec.id);
      await expectConflict(store.appendChange(rec.id, entry(1)), 'session');
    });

    test('appends in flight together are taken in order and all kept', async () => {
      const rec = sessionRec();
      await store.beginSession(rec);
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendChange(rec.id, entry(i))));
      await restart();
      expect((await store.getSession())?.journal.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    test('endSession ends only the active session', async () => {
      const rec = sessionRec();
      expect(await store.endSession(rec.id)).toBe(false);
      await store.beginSession(rec);
      expect(await store.endSession('other')).toBe(false);
      expect(await store.endSession(rec.id)).toBe(true);
      expect(await store.getSession()).toBeNull();
      expect(await store.endSession(rec.id)).toBe(false);
      const next = sessionRec();
      expect(await store.beginSession(next)).toBeNull();
      await restart();
      expect((await store.getSession())?.session.id).toBe(next.id);
    });
  });

  describe(`${backend.name}: commit`, () => {
    test('records the version, makes it running and ends the session', async () => {
      const rec = sessionRec();
      await store.beginSession(rec);
      await store.appendChange(rec.id, entry(0));
      const v1 = versionRec(1, 'first');
      await store.commit(rec.id, 1, v1);
      const { doc: _doc, ...meta } = v1;
      expect(await store.runningVersion()).toEqual(meta);
      expect((await store.listVersions()).map((m) => m.version)).toEqual([0, 1]);
      expect(await store.getVersion(1)).toEqual(v1);
      expect(await store.getSession()).toBeNull();
      await restart();
      expect(await store.runningVersion()).toEqual(meta);
    });

    test('every commit conflict is a StoreConflict and changes nothing', async () => {
      await expectConflict(store.commit('none', 0, versionRec(1)), 'session');
      const rec = sessionRec();
      await store.beginSession(rec);
      await store.appendChange(rec.id, entry(0));
      await expectConflict(store.commit('other', 1, versionRec(1)), 'session');
      await expectConflict(store.commit(rec.id, 0, versionRec(1)), 'length');
      await expectConflict(store.commit(rec.id, 2, versionRec(1)), 'length');
      await expectConflict(store.commit(rec.id, 1, versionRec(0)), 'session');
      await expectConflict(store.commit(rec.id, 1, versionRec(2)), 'session');
      expect((await store.runningVersion()).version).toBe(0);
      expect((await store.getSession())?.journal).toHaveLength(1);
      await store.commit(rec.id, 1, versionRec(1));
      await expectConflict(store.commit(rec.id, 1, versionRec(2)), 'session');
    });

    test('a claimed commit holds the session against appends until released', async () => {
      const rec = sessionRec();
      await store.beginSession(rec);
      await store.claimCommit(rec.id, 0, 60_000);
      await expectConflict(store.appendChange(rec.id, entry(0)), 'committing');
      await store.releaseCommit(rec.id, 0);
      await store.appendChange(rec.id, entry(0));
      expect((await store.getSession())?.journal).toHaveLength(1);
    });

    test('a claim answers the digest of the journal it claims (a shared store), the digests its reads and appends carry', async () => {
      const rec = sessionRec();
      await store.beginSession(rec);
      const appended = [entry(0, rec.startedAt + 1), entry(1, rec.startedAt + 2)];
      await store.appendChanges(rec.id, appended, { keys: null, unknownFrom: 0, tag: 't' });
      const digest = await store.claimCommit(rec.id, 2, 60_000);
      if (store.soleWriter) {
        // the sole writer's cache is its journal: nothing to compare
        expect(digest).toBeNull();
        return;
      }
      const read = (await store.journalSince(rec.id, 0))!;
      // each line's digest is that of the line the store holds: what it read back, what it appended
      for (const e of read) expect(e.digest).toBe(lineDigest(journalLine(e)));
      expect(appended.map((e) => e.digest)).toEqual(read.map((e) => e.digest));
      expect(digest).toBe(journalDigest(read.map((e) => e.digest!)));
      // another journal of the same length has another digest
      await store.releaseCommit(rec.id, 2);
      await store.endSession(rec.id);
      const other = sessionRec();
      await store.beginSession(other);
      await store.appendChanges(other.id, [entry(0, rec.startedAt + 1), entry(1, rec.startedAt + 3)], { keys: null, unknownFrom: 0, tag: 't' });
      expect(await store.claimCommit(other.id, 2, 60_000)).not.toBe(digest);
    });

    test('keeps many versions readable', async () => {
      for (let v = 1; v <= 20; v++) await commitNext(store);
      await restart();
      expect((await store.listVersions()).map((m) => m.version)).toEqual(Array.from({ length: 21 }, (_, i) => i));
      for (let v = 0; v <= 20; v++) expect((await store.getVersion(v))?.doc.counters.policy).toBe(v);
    });

    test('a version is confirmed or reverted, never both, and reverted by one claimer', async () => {
      await commitNext(store);
      expect(await store.claimRevert(1, 60_000)).toBe(true);
      expect(await store.claimRevert(1, 60_000)).toBe(false); // one instance reverts
      expect(await store.confirmVersion(1)).toBe(false); // too late: its revert is under way
      expect(await store.confirmedVersion()).toBe(0);
      await commitNext(store);
      expect(await store.confirmVersion(2)).toBe(true);
      expect(await store.confirmedVersion()).toBe(2);
      expect(await store.claimRevert(2, 60_000)).toBe(false); // confirmed: nothing to revert
      await restart();
      expect(await store.confirmedVersion()).toBe(2);
    });
  });

  describe(`${backend.name}: versions stored as deltas`, () => {
    /** Every version of `written` reads back byte for byte as it was written whole. */
    const readsBack = async (written: VersionRecord[]) => {
      for (const w of written) expect(JSON.stringify(await store.getVersion(w.version))).toBe(JSON.stringify(w));
    };

    test('versions committed with their change read back exactly, through keyframes and deltas, also after a restart', async () => {
      await restart({ keyframeEvery: 3 });
      const written = [(await store.getVersion(0))!];
      for (let v = 1; v <= 13; v++) written.push(await commitEdit(store, editFor(v)));
      await readsBack(written);
      expect(await store.versionDelta(0)).toBeUndefined();
      for (let v = 1; v <= 13; v++) {
        const d = await store.versionDelta(v);
        expect(d).toMatchObject({ version: v, description: `v${v}`, base: { version: v - 1, time: written[v - 1].time } });
      }
      // a one-address change is a delta of that address, not the document
      expect((await store.versionDelta(5))?.delta.named).toEqual({ addresses: { set: [['a5', { name: 'a5', ips: ['10.0.5.0/24'] }]], del: [] } });
      // reordered policies are their ids in the new order, no rule again
      expect((await store.versionDelta(8))?.delta.rules).toEqual({ policies: { order: { ids: [5, 1], set: [] } } });
      await restart({ keyframeEvery: 3 });
      await readsBack(written);
      written.push(await commitEdit(store, editFor(14)));
      await readsBack(written.slice(-3));
    });

    test('versions stored whole (as before deltas) and deltas follow one another; a change made on another commit is stored whole', async () => {
      const written = [(await store.getVersion(0))!];
      for (let v = 1; v <= 3; v++) written.push(await commitEdit(store, editFor(v), false));
      for (let v = 4; v <= 6; v++) written.push(await commitEdit(store, editFor(v)));
      written.push(await commitEdit(store, editFor(7), 'other'));
      written.push(await commitEdit(store, editFor(8)));
      await restart();
      await readsBack(written);
      for (const v of [1, 2, 3, 7]) expect(await store.versionDelta(v)).toBeUndefined();
      for (const v of [4, 5, 6, 8]) expect(await store.versionDelta(v)).toBeDefined();
    });

    test('retention keeps the keyframe and deltas a kept version is read from, and never lists or reads a pruned one', async () => {
      await restart({ versionsKeep: 3, keyframeEvery: 4 });
      const written = [(await store.getVersion(0))!];
      for (let v = 1; v <= 11; v++) written.push(await commitEdit(store, editFor(v)));
      expect((await store.listVersions()).map((m) => m.version)).toEqual([9, 10, 11]);
      for (let v = 0; v <= 8; v++) expect(await store.getVersion(v)).toBeUndefined();
      await readsBack(written.slice(9));
      await restart({ versionsKeep: 3, keyframeEvery: 4 });
      expect((await store.listVersions()).map((m) => m.version)).toEqual([9, 10, 11]);
      for (let v = 0; v <= 8; v++) expect(await store.getVersion(v)).toBeUndefined();
      await readsBack(written.slice(9));
      for (let v = 12; v <= 20; v++) written.push(await commitEdit(store, editFor(v)));
      expect((await store.listVersions()).map((m) => m.version)).toEqual([18, 19, 20]);
      await readsBack(written.slice(18));
    });
  });

  describe(`${backend.name}: retention (FW_VERSIONS_KEEP, FW_AUDIT_KEEP)`, () => {
    test('keeps the newest versions in listings and reads, also after a restart', async () => {
      await restart({ versionsKeep: 3 });
      for (let i = 0; i < 9; i++) await commitNext(store);
      expect((await store.listVersions()).map((m) => m.version)).toEqual([7, 8, 9]);
      expect(await store.getVersion(6)).toBeUndefined();
      expect((await store.getVersion(7))?.doc.counters.policy).toBe(7);
      await restart({ versionsKeep: 3 });
      expect((await store.listVersions()).map((m) => m.version)).toEqual([7, 8, 9]);
      expect((await store.runningVersion()).version).toBe(9);
    });

    test('0 keeps every version; a lowered setting prunes at the next commit', async () => {
      await restart({ versionsKeep: 0 });
      for (let i = 0; i < 5; i++) await commitNext(store);
      expect((await store.listVersions()).map((m) => m.version)).toEqual([0, 1, 2, 3, 4, 5]);
      await restart({ versionsKeep: 2 });
      await commitNext(store);
      expect((await store.listVersions()).map((m) => m.version)).toEqual([5, 6]);
    });

    test('the audit trail lists the newest entries, newest first, with ids that survive a restart', async () => {
      await restart({ auditKeep: 4 });
      for (let i = 1; i <= 20; i++) await store.audit({ at: i, user: 'alice', action: 'user.create', details: `u${i}` });
      const ids = async () => (await store.listAudit({ limit: 100 })).map((e) => e.id);
      expect(await ids()).toEqual([20, 19, 18, 17]);
      expect((await store.listAudit({ limit: 100, before: 18 })).map((e) => e.details)).toEqual(['u17']);
      await restart({ auditKeep: 4 });
      expect(await ids()).toEqual([20, 19, 18, 17]);
      await store.audit({ at: 21, user: 'bob', action: 'user.delete', details: 'u21' });
      expect(await ids()).toEqual([21, 20, 19, 18]);
      expect((await store.listAudit({ limit: 100, user: 'bob' })).map((e) => e.details)).toEqual(['u21']);
      expect((await store.listAudit({ limit: 100, action: 'user' })).length).toBe(4);
      expect((await store.listAudit({ limit: 100, action: 'user.delete' })).map((e) => e.id)).toEqual([21]);
    });

    test('failed logins are kept within a budget of their own: many never push other entries out; a listing merges both kinds by id', async () => {
      await restart({ auditKeep: 4, auditLoginFailuresKeep: 3 });
      const change = (at: number, action: string) => store.audit({ at, user: 'alice', action, details: `c${at}` });
      const failure = (at: number) => store.audit({ at, user: at % 2 ? 'ghost' : 'alice', action: 'auth.login-failed', details: `f${at}` });
      await change(1, 'user.create');
      await change(2, 'config.commit');
      await change(3, 'user.create');
      await Promise.all(Array.from({ length: 50 }, (_, i) => failure(4 + i))); // ids 4-53, in call order
      await change(54, 'config.commit');
      await failure(55);
      await change(56, 'user.delete');
      for (let at = 57; at <= 60; at++) await failure(at);
      const ids = async (q: Omit<AuditQuery, 'limit'> & { limit?: number } = {}) => (await store.listAudit({ limit: 100, ...q })).map((e) => e.id);
      // the newest 4 of the 5 others, the newest 3 of the 55 failed logins
      const all = [60, 59, 58, 56, 54, 3, 2];
      expect(await ids()).toEqual(all);
      expect((await store.listAudit({ limit: 100 })).map((e) => e.at)).toEqual(all); // each entry under its own id
      expect(await ids({ limit: 4 })).toEqual([60, 59, 58, 56]);
      expect(await ids({ before: 59, limit: 3 })).toEqual([58, 56, 54]);
      expect(await ids({ before: 57 })).toEqual([56, 54, 3, 2]);
      expect(await ids({ action: 'auth' })).toEqual([60, 59, 58]);
      expect(await ids({ action: 'auth.login-failed', before: 60 })).toEqual([59, 58]);
      expect(await ids({ action: 'config' })).toEqual([54, 2]);
      expect(await ids({ user: 'ghost' })).toEqual([59]);
      expect(await ids({ user: 'alice', before: 58 })).toEqual([56, 54, 3, 2]);
      await restart({ auditKeep: 4, auditLoginFailuresKeep: 3 });
      expect(await ids()).toEqual(all);
      await change(61, 'user.delete');
      await failure(62);
      expect(await ids()).toEqual([62, 61, 60, 59, 56, 54, 3]);
    });

    test('a listing merges both kinds across many entries (Redis reads its streams 500 at a time)', async () => {
      // ids 1-1400: odd ones failed logins, even ones changes; every 100th of each kind by bob
      await Promise.all(Array.from({ length: 1400 }, (_, i) => store.audit({
        at: i + 1, user: i % 200 < 2 ? 'bob' : 'alice', action: i % 2 ? 'config.commit' : 'auth.login-failed', details: `e${i + 1}`,
      })));
      const all = await store.listAudit({ limit: 2000 });
      expect(all.map((e) => e.id)).toEqual(Array.from({ length: 1400 }, (_, i) => 1400 - i));
      expect(all.every((e) => e.details === `e${e.id}`)).toBe(true);
      expect(all.filter((e) => e.user === 'bob')).toHaveLength(14);
      expect((await store.listAudit({ limit: 2000, user: 'bob' })).map((e) => e.id)).toEqual(all.filter((e) => (e.id - 1) % 200 < 2).map((e) => e.id));
      expect((await store.listAudit({ limit: 3, before: 900, action: 'config' })).map((e) => e.id)).toEqual([898, 896, 894]);
      expect((await store.listAudit({ limit: 600, before: 1001 })).map((e) => e.id)).toEqual(Array.from({ length: 600 }, (_, i) => 1000 - i));
    });
  });

  describe(`${backend.name}: users, tokens, secret, revocation`, () => {
    test('put, get, list in code unit order (not the locale\'s), replace', async () => {
      // the locale's order would put 'alice' before 'Zed' and 'a-b' after 'ab': the stores
      // once differed here ('<' on one, localeCompare on the other)
      for (const name of ['bob', 'alice', 'Zed', 'ab', 'a-b', 'a_b']) await store.putUser(user(name));
      expect(await store.getUser('bob')).toEqual(user('bob'));
      expect(await store.getUser('carol')).toBeUndefined();
      expect((await store.listUsers()).map((u) => u.username)).toEqual(['Zed', 'a-b', 'a_b', 'ab', 'alice', 'bob']);
      await store.putUser(user('bob', 'scrypt$2', 'viewer'));
      expect(await store.getUser('bob')).toEqual(user('bob', 'scrypt$2', 'viewer'));
      expect(await store.listUsers()).toHaveLength(6);
    });

    test('the last admin cannot be deleted nor demoted', async () => {
      await store.putUser(user('alice'));
      await store.putUser(user('bob', 'h', 'viewer'));
      expect(await store.deleteUser('carol')).toBe(true); // nothing to delete
      expect(await store.deleteUser('alice')).toBe(false);
      expect(await store.putUser(user('alice', 'h', 'viewer'))).toBe(false);
      expect(await store.getUser('alice')).toEqual(user('alice'));
      expect(await store.deleteUser('bob')).toBe(true);
      await restart();
      expect((await store.listUsers()).map((u) => u.username)).toEqual(['alice']);
    });

    test('an account stored without an id (an older daemon\'s) reads with one from its name and creation, the same after a restart', async () => {
      await store.putUser({ username: 'old', hash: 'scrypt$1', createdAt: 1000, role: 'admin' });
      const got = (await store.getUser('old'))!;
      expect(got).toMatchObject({ epoch: 0, id: expect.stringMatching(/^legacy-/) });
      await restart();
      expect((await store.getUser('old'))!.id).toBe(got.id);
      // a write naming it replaces it (the record without an id is matched by its creation time)
      expect(await store.putUser({ ...got, epoch: 1 }, got)).toBe(true);
      expect(await store.getUser('old')).toEqual({ ...got, epoch: 1 });
    });

    test('a write naming the account it read: refused once the name is taken, or the account deleted or created again', async () => {
      await store.putUser(user('alice'));
      const bob = { ...user('bob'), id: 'bob-1' };
      expect(await store.putUser(bob, null)).toBe(true);
      expect((await rejection(store.putUser({ ...bob, id: 'bob-2' }, null))).code).toBe('ERR_NET_2006');
      expect(await store.putUser({ ...bob, role: 'viewer' }, bob)).toBe(true);
      expect(await store.deleteUser('bob')).toBe(true);
      expect((await rejection(store.putUser(bob, bob))).code).toBe('ERR_NET_1003');
      await store.putUser({ ...bob, id: 'bob-2' }, null);
      expect((await rejection(store.putUser({ ...bob, role: 'admin' }, bob))).code).toBe('ERR_NET_1003');
      expect(await store.getUser('bob')).toEqual({ ...bob, id: 'bob-2' });
    });

    test('API tokens: added once per owner and name, found by hash, listed in order, deleted with their owner', async () => {
      await store.putUser(user('alice'));
      await store.putUser(user('bob'));
      expect(await store.addApiToken(token('bob', 'ci'))).toBe(true);
      expect(await store.addApiToken(token('bob', 'ci', 'other-hash'))).toBe(false);
      expect(await store.addApiToken(token('alice', 'zz'))).toBe(true);
      expect(await store.addApiToken(token('alice', 'aa'))).toBe(true);
      expect(await store.getApiToken('h-bob-ci')).toEqual(token('bob', 'ci'));
      expect((await store.listApiTokens()).map((t) => `${t.owner}/${t.name}`)).toEqual(['alice/aa', 'alice/zz', 'bob/ci']);
      expect((await store.listApiTokens('alice')).map((t) => t.name)).toEqual(['aa', 'zz']);
      await store.touchApiTokens(new Map([['h-alice-aa', 5000]]));
      expect((await store.getApiToken('h-alice-aa'))?.lastUsedAt).toBe(5000);
      expect(await store.deleteApiToken('alice', 'zz')).toEqual(token('alice', 'zz'));
      expect(await store.deleteApiToken('alice', 'zz')).toBeUndefined();
      expect(await store.deleteUser('bob')).toBe(true);
      expect(await store.getApiToken('h-bob-ci')).toBeUndefined();
      await restart();
      expect((await store.listApiTokens()).map((t) => `${t.owner}/${t.name}`)).toEqual(['alice/aa']);
    });

    test('the secret is made once and kept', async () => {
      const made: string[] = [];
      const gen = () => {
        made.push('secret-1');
        return 'secret-1';
      };
      expect(await store.getOrCreateSecret(gen)).toBe('secret-1');
      expect(await store.getOrCreateSecret(() => 'secret-2')).toBe('secret-1');
      await restart();
      expect(await store.getOrCreateSecret(() => 'secret-3')).toBe('secret-1');
      expect(made).toEqual(['secret-1']);
    });

    test('revoked tokens stay revoked until they expire; unix seconds are understood', async () => {
      const exp = Date.now() + 3600_000;
      await store.revokeToken('jti-ms', exp);
      await store.revokeToken('jti-sec', Math.floor(exp / 1000));
      await store.revokeToken('jti-old', Date.now() - 1000);
      expect(await store.isRevoked('jti-ms')).toBe(true);
      expect(await store.isRevoked('jti-sec')).toBe(true);
      expect(await store.isRevoked('jti-old')).toBe(false);
      expect(await store.isRevoked('other')).toBe(false);
      await restart();
      expect(await store.isRevoked('jti-ms')).toBe(true);
    });
  });

  describe(`${backend.name}: idempotency keys`, () => {
    const answer = { status: 201, body: '{"ok":true}', headers: { Location: '/x' } };

    test('a claim, its answer, a replay; another fingerprint sees the first', async () => {
      expect(await store.claimIdempotencyKey('alice:k1', 'fp1', 60_000)).toBeNull();
      expect(await store.claimIdempotencyKey('alice:k1', 'fp1', 60_000)).toEqual({ fingerprint: 'fp1', answer: null });
      await store.saveIdempotentAnswer('alice:k1', 'fp1', answer, 60_000);
      expect(await store.claimIdempotencyKey('alice:k1', 'fp1', 60_000)).toEqual({ fingerprint: 'fp1', answer });
      expect(await store.claimIdempotencyKey('alice:k1', 'fp2', 60_000)).toEqual({ fingerprint: 'fp1', answer });
      expect(await store.claimIdempotencyKey('bob:k1', 'fp1', 60_000)).toBeNull(); // another scope
      await restart();
      expect(await store.claimIdempotencyKey('alice:k1', 'fp1', 60_000)).toEqual({ fingerprint: 'fp1', answer });
    });

    test('a released claim can be taken again', async () => {
      expect(await store.claimIdempotencyKey('alice:k2', 'fp1', 60_000)).toBeNull();
      await store.releaseIdempotencyKey('alice:k2', 'fp1');
      expect(await store.claimIdempotencyKey('alice:k2', 'fp1', 60_000)).toBeNull();
    });
  });
}
