// The group append of a shared store: changes applied while a group is in flight go in the
// next one; a refused group is undone newest first together with everything applied on top
// of it, and none of that is ever sent; a group made but unconfirmed (ERR_SYS_4006) is kept
// and what waits goes on; an unknown outcome marks the candidate for a rebuild. A group that
// lands after other instances' entries moves what waits along and tells the candidate.
import { GroupAppend } from '../../src/session/group-append';
import { StoreConflict, type AppendReach, type JournalEntry } from '../../src/store/types';
import { FwError } from '../../src/errors';

const entry = (seq: number): JournalEntry => ({ seq, at: seq, user: 'admin', change: { op: 'delete', kind: 'addresses', key: `a${seq}` } as never });

function harness() {
  const sent: number[][] = [];
  const reaches: AppendReach[] = [];
  const answers: Array<{ resolve: (at: number) => void; reject: (e: unknown) => void }> = [];
  const undone: number[] = [];
  const landings: Array<[number, number]> = [];
  let uncertain = 0;
  const g = new GroupAppend(
    (_id, entries, reach) => new Promise<number>((resolve, reject) => {
      sent.push(entries.map((e) => e.seq));
      reaches.push(reach);
      answers.push({ resolve, reject });
    }),
    {
      reach: (_id, expected) => ({ unknownFrom: Math.min(expected, landings.find(([e, at]) => at > e)?.[0] ?? expected), tag: 'me' }),
      landed: (_id, expected, at) => { landings.push([expected, at]); },
      uncertain: () => { uncertain++; },
      isRefusal: (e) => e instanceof StoreConflict,
    },
  );
  const outcomes: Record<number, string> = {};
  const add = (seq: number, keys: string[] | null = null) => g.append('s', entry(seq), keys, () => undone.push(seq)).then(() => { outcomes[seq] = 'ok'; }, (e: Error) => { outcomes[seq] = (e as FwError).code ?? e.name; });
  const tick = () => new Promise((r) => setImmediate(r));
  return { sent, reaches, answers, undone, landings, outcomes, add, tick, uncertain: () => uncertain };
}

test('changes arriving together go as one group; those arriving meanwhile go as the next', async () => {
  const h = harness();
  const done = [h.add(0), h.add(1), h.add(2)];
  await h.tick();
  expect(h.sent).toEqual([[0, 1, 2]]);
  done.push(h.add(3), h.add(4));
  await h.tick();
  expect(h.sent).toHaveLength(1); // one group in flight at a time
  h.answers[0].resolve(0);
  await h.tick();
  await h.tick();
  expect(h.sent).toEqual([[0, 1, 2], [3, 4]]);
  h.answers[1].resolve(h.sent[1][0]);
  await Promise.all(done);
  expect(h.outcomes).toEqual({ 0: 'ok', 1: 'ok', 2: 'ok', 3: 'ok', 4: 'ok' });
  expect(h.undone).toEqual([]);
});

test('a refused group and everything applied on top of it are undone newest first and never sent', async () => {
  const h = harness();
  const done = [h.add(0), h.add(1)];
  await h.tick();
  done.push(h.add(2), h.add(3));
  h.answers[0].reject(new StoreConflict('length:5', 'length'));
  await Promise.all(done);
  expect(h.undone).toEqual([3, 2, 1, 0]);
  expect(h.sent).toEqual([[0, 1]]);
  expect(h.outcomes).toEqual({ 0: 'StoreConflict', 1: 'StoreConflict', 2: 'StoreConflict', 3: 'StoreConflict' });
  expect(h.uncertain()).toBe(0);
});

test('made but unconfirmed: kept (no undo), answered 4006, and what waits still goes', async () => {
  const h = harness();
  const done = [h.add(0)];
  await h.tick();
  done.push(h.add(1));
  h.answers[0].reject(Object.assign(new FwError('ERR_SYS_4006', '0 of the 1 replicas required'), { written: 0 }));
  await done[0];
  await h.tick();
  await h.tick();
  expect(h.sent).toEqual([[0], [1]]);
  h.answers[1].resolve(h.sent[1][0]);
  await Promise.all(done);
  expect(h.outcomes).toEqual({ 0: 'ERR_SYS_4006', 1: 'ok' });
  expect(h.undone).toEqual([]);
});

test('an unknown outcome (Redis unreachable): the candidate is marked for a rebuild and what waits is refused unsent', async () => {
  const h = harness();
  const done = [h.add(0)];
  await h.tick();
  done.push(h.add(1));
  h.answers[0].reject(new FwError('ERR_SYS_4002', 'unreachable'));
  await Promise.all(done);
  expect(h.uncertain()).toBe(1);
  expect(h.sent).toEqual([[0]]);
  expect(h.outcomes).toEqual({ 0: 'ERR_SYS_4002', 1: 'ERR_SYS_4002' });
  expect(h.undone).toEqual([]);
});

test('a group landing after unseen entries: what waits moves along, the candidate learns the gap, the next group says what it may lack', async () => {
  const h = harness();
  const done = [h.add(0, ['address:a']), h.add(1, ['address:b', 'address:a'])];
  await h.tick();
  expect(h.reaches[0]).toEqual({ keys: ['address:a', 'address:b'], unknownFrom: 0, tag: 'me' });
  done.push(h.add(2, ['address:c']), h.add(3, ['service:d']));
  h.answers[0].resolve(5); // five entries of other instances landed first, at 0-4
  await h.tick();
  await h.tick();
  expect(h.landings).toEqual([[0, 5]]);
  // the waiting changes were numbered 2 and 3: they now expect positions 7 and 8
  expect(h.sent).toEqual([[0, 1], [7, 8]]);
  expect(h.reaches[1]).toEqual({ keys: ['address:c', 'service:d'], unknownFrom: 0, tag: 'me' });
  h.answers[1].resolve(7);
  await Promise.all(done);
  expect(h.outcomes).toEqual({ 0: 'ok', 1: 'ok', 2: 'ok', 3: 'ok' });
  expect(h.landings).toEqual([[0, 5], [7, 7]]);
});

test('one change that may touch anything makes its whole group so', async () => {
  const h = harness();
  const done = [h.add(0, ['address:a']), h.add(1, null)];
  await h.tick();
  expect(h.reaches[0].keys).toBeNull();
  h.answers[0].resolve(0);
  await Promise.all(done);
});

test('made but unconfirmed with no position known: treated as an unknown outcome', async () => {
  const h = harness();
  const done = [h.add(0)];
  await h.tick();
  h.answers[0].reject(new FwError('ERR_SYS_4006', '0 of the 1 replicas required'));
  await Promise.all(done);
  expect(h.uncertain()).toBe(1);
  expect(h.outcomes).toEqual({ 0: 'ERR_SYS_4006' });
});
