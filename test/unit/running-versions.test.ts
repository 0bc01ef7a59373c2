// After a network split, the losing side's unconfirmed commits took version numbers that the
// winning side later gives to other documents. An instance that read such a version while it
// talked to the losing side must not serve that document under the number afterwards (the
// partition suite found version 3 served as the lost side's document after healing).
import pino from 'pino';
import { FwError } from '../../src/errors';
import { emptyDoc, serializeDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { RunningVersions } from '../../src/session/running-versions';
import type { Compiler } from '../../src/session/types';
import type { VersionMeta, VersionRecord } from '../../src/store/types';
import type { VersionDeltaRecord } from '../../src/store/version-deltas';
import { docDelta } from '../../src/config/doc-delta';
import { parseDoc } from '../../src/config/document';

function record(version: number, time: number, addresses: string[]): VersionRecord {
  const doc = emptyDoc(['eth0']);
  for (const name of addresses) doc.addresses.set(name, { name, ips: ['10.0.0.1/32'] } as never);
  return { version, author: 'admin', time, description: `v${version}@${time}`, summary: '', doc: serializeDoc(doc) };
}

/** A store whose history can be replaced, as a failover to the winning side does. */
function fakeStore(initial: VersionRecord[]) {
  const history = new Map(initial.map((r) => [r.version, r]));
  const deltas = new Map<number, VersionDeltaRecord>();
  const meta = (r: VersionRecord): VersionMeta => ({ version: r.version, author: r.author, time: r.time, description: r.description, summary: r.summary });
  return {
    history,
    runningVersion: async () => meta(history.get(Math.max(...history.keys()))!),
    getVersion: async (n: number) => history.get(n),
    deltas,
    versionDelta: async (n: number) => deltas.get(n),
  };
}

const compiler: Compiler<number> = { compile: (doc: ConfigDoc) => Promise.resolve({ compiled: doc.addresses.size, warnings: [] }) };
const names = (doc: ConfigDoc) => [...doc.addresses.keys()].sort();

test('a version number the lost side used is read again from the store once the history went back', async () => {
  // the losing side: versions 0..3, this instance serving 3 and having read 2 and 3
  const store = fakeStore([record(0, 1, []), record(1, 2, ['a']), record(2, 3, ['a', 'lost2']), record(3, 4, ['a', 'lost2', 'lost3'])]);
  const versions = new RunningVersions(store, compiler, pino({ level: 'silent' }));
  await versions.init();
  expect(names(await versions.versionDoc(2))).toEqual(['a', 'lost2']);
  // healed: the winning side's history ends at 1, then commits its own 2 and 3
  store.history.delete(3);
  store.history.delete(2);
  await versions.refresh();
  expect(versions.current().meta.version).toBe(1);
  store.history.set(2, record(2, 10, ['a', 'won2']));
  store.history.set(3, record(3, 11, ['a', 'won2', 'won3']));
  await versions.refresh();
  expect(versions.current().meta.version).toBe(3);
  expect(names(versions.current().doc)).toEqual(['a', 'won2', 'won3']);
  expect(names(await versions.versionDoc(2))).toEqual(['a', 'won2']);
});

test('versions committed elsewhere as deltas are applied to the one served, only on the commit they were made on', async () => {
  const store = fakeStore([record(0, 1, []), record(1, 2, ['a'])]);
  const versions = new RunningVersions(store, compiler, pino({ level: 'silent' }));
  await versions.init();
  const served = versions.current().doc;
  const deltaOf = (from: VersionRecord, to: VersionRecord): VersionDeltaRecord => {
    const { doc: _doc, ...meta } = to;
    return { ...meta, base: { version: from.version, time: from.time, author: from.author }, delta: docDelta(parseDoc(from.doc), parseDoc(to.doc)) };
  };
  const v2 = record(2, 5, ['a', 'b']), v3 = record(3, 6, ['a', 'b', 'c']);
  // the whole records answer a different document: only the deltas can give b and c
  store.history.set(2, record(2, 5, ['whole2']));
  store.history.set(3, record(3, 6, ['whole3']));
  store.deltas.set(2, deltaOf(record(1, 2, ['a']), v2));
  store.deltas.set(3, deltaOf(v2, v3));
  await versions.refresh();
  expect(versions.current().meta.version).toBe(3);
  expect(names(versions.current().doc)).toEqual(['a', 'b', 'c']);
  expect(versions.current().doc.addresses.get('a')).toBe(served.addresses.get('a')); // shared, not parsed again
  // version 4 made on another commit numbered 3 (the lost side of a split): read whole
  store.history.set(4, record(4, 8, ['a', 'b', 'c', 'whole4']));
  store.deltas.set(4, deltaOf(record(3, 7, ['a', 'b', 'c']), record(4, 8, ['a', 'b', 'c', 'd'])));
  await versions.refresh();
  expect(names(versions.current().doc)).toEqual(['a', 'b', 'c', 'whole4']);
});

// CI (issue 30's large-config test on a loaded host): a daemon starting just as Redis was slow
// to send the 2.7 MB running version failed to start on that one timed-out read.
test('a start asks again while the store is unavailable, and gives up after its wait', async () => {
  const store = fakeStore([record(0, 1, []), record(1, 2, ['a'])]);
  let failures = 2;
  const flaky = {
    runningVersion: store.runningVersion,
    versionDelta: store.versionDelta,
    getVersion: async (n: number) => {
      if (failures-- > 0) throw new FwError('ERR_SYS_4002', 'the Redis store is unreachable: Command timed out');
      return store.getVersion(n);
    },
  };
  const versions = new RunningVersions(flaky, compiler, pino({ level: 'silent' }), 5_000);
  await versions.init();
  expect(failures).toBe(-1);
  expect(names(versions.current().doc)).toEqual(['a']);

  // an error that is not the store's unavailability, and a store that stays unavailable, end the start
  const broken = { runningVersion: store.runningVersion, versionDelta: store.versionDelta, getVersion: async () => { throw new Error('corrupt'); } };
  await expect(new RunningVersions(broken, compiler, pino({ level: 'silent' }), 5_000).init()).rejects.toThrow('corrupt');
  const down = { runningVersion: async () => { throw new FwError('ERR_SYS_4002', 'down'); }, getVersion: store.getVersion, versionDelta: store.versionDelta };
  const t0 = Date.now();
  await expect(new RunningVersions(down, compiler, pino({ level: 'silent' }), 600).init()).rejects.toMatchObject({ code: 'ERR_SYS_4002' });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
});
