// The group append of a shared store: changes applied while a group is in flight go in the
// next one; a refused group is undone newest first together with everything applied on top
// of it, and none of that is ever sent; a group made but unconfirmed (ERR_SYS_4006) is kept
// and what waits goes on; an unknown outcome marks the candidate for a rebuild.
import { GroupAppend } from '../../src/session/group-append';
import { StoreConflict, type JournalEntry } from '../../src/store/types';
import { FwError } from '../../src/errors';

const entry = (seq: number): JournalEntry => ({ seq, at: seq, user: 'admin', change: { op: 'delete', kind: 'addresses', key: `a${seq}` } as never });

function harness() {
  const sent: number[][] = [];
  const answers: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  const undone: number[] = [];
  let uncertain = 0;
  const g = new GroupAppend(
    (_id, entries) => new Promise<void>((resolve, reject) => {
      sent.push(entries.map((e) => e.seq));
      answers.push({ resolve, reject });
    }),
    () => { uncertain++; },
    (e) => e instanceof StoreConflict,
  );
  const outcomes: Record<number, string> = {};
  const add = (seq: number) => g.append('s', entry(seq), () => undone.push(seq)).then(() => { outcomes[seq] = 'ok'; }, (e: Error) => { outcomes[seq] = (e as FwError).code ?? e.name; });
  const tick = () => new Promise((r) => setImmediate(r));
  return { sent, answers, undone, outcomes, add, tick, uncertain: () => uncertain };
}

test('changes arriving together go as one group; those arriving meanwhile go as the next', async () => {
  const h = harness();
  const done = [h.add(0), h.add(1), h.add(2)];
  await h.tick();
  expect(h.sent).toEqual([[0, 1, 2]]);
  done.push(h.add(3), h.add(4));
  await h.tick();
  expect(h.sent).toHaveLength(1); // one group in flight at a time
  h.answers[0].resolve();
  await h.tick();
  await h.tick();
  expect(h.sent).toEqual([[0, 1, 2], [3, 4]]);
  h.answers[1].resolve();
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
  h.answers[0].reject(new FwError('ERR_SYS_4006', '0 of the 1 replicas required'));
  await done[0];
  await h.tick();
  await h.tick();
  expect(h.sent).toEqual([[0], [1]]);
  h.answers[1].resolve();
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
