// A list's encoding (src/session/encoded-list.ts): a big running list's bytes are kept while
// it is read and dropped a while after its last read, then encoded again on demand, the same
// bytes; a list encoded whole up front (the candidate's, whose items change after) is kept.
import { EncodedList, SLICE_ITEMS } from '../../src/session/encoded-list';

// the clock is jest's: the test never depends on how busy the machine is
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const wait = (ms: number) => jest.advanceTimersByTime(ms);

function list(count: number, keepMs: number) {
  const items = Array.from({ length: count }, (_, i) => ({ id: i }));
  let renders = 0;
  const l = new EncodedList(items, (x) => { renders++; return x; }, keepMs);
  const text = () => Array.from({ length: l.sliceCount }, (_, i) => l.slice(i).toString()).join('');
  return { items, l, text, renders: () => renders };
}

test('a big list is kept while read, dropped keepMs after its last read, and encoded again the same', () => {
  const { items, l, text, renders } = list(SLICE_ITEMS * 25, 1500);
  const first = text();
  expect(JSON.parse(first)).toEqual(items);
  expect(l.keptSlices).toBe(25);
  wait(1000);
  expect(text()).toBe(first); // a read within the window: the kept bytes
  expect(renders()).toBe(items.length);
  wait(1000);
  expect(l.keptSlices).toBe(25); // the second read moved the deadline
  wait(2000);
  expect(l.keptSlices).toBe(0);
  expect(text()).toBe(first);
  expect(renders()).toBe(2 * items.length);
});

test('a small list, and a list encoded whole up front, are kept', () => {
  const small = list(SLICE_ITEMS * 3, 20);
  small.text();
  const whole = list(SLICE_ITEMS * 25, 20);
  whole.l.encodeAll();
  whole.text();
  wait(100);
  expect(small.l.keptSlices).toBe(3);
  expect(whole.l.keptSlices).toBe(25);
  whole.items[0].id = -1; // the candidate changed after: its answer is the one encoded
  expect(JSON.parse(whole.text())[0]).toEqual({ id: 0 });
});
