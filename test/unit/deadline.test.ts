import { settledWithin } from '../../src/deadline';

test('true when the work settles in time, false when the deadline comes first, its error rethrown', async () => {
  expect(await settledWithin(new Promise((r) => setTimeout(r, 10)), 1000)).toBe(true);
  const never = new Promise(() => undefined);
  const t0 = Date.now();
  expect(await settledWithin(never, 50)).toBe(false);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
  await expect(settledWithin(Promise.reject(new Error('refused')), 1000)).rejects.toThrow('refused');
});
