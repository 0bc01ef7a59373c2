// BytePool: the reused memory of batch bodies and answers. A buffer is never handed out twice
// at the same time, is reused once given back, the smallest that fits is taken, and what the
// pool did not make (Node's shared slabs) is never taken in.
import { BytePool } from '../../src/byte-pool';
import { releaseAnswer } from '../../src/eval/answer-json';

test('a released buffer is reused; one in use is never handed out again', () => {
  const pool = new BytePool(4);
  const a = pool.take(3000);
  expect(a.byteLength).toBe(4096); // rounded up to a power of two
  const b = pool.take(3000);
  expect(b).not.toBe(a);
  pool.release(new Uint8Array(a, 10, 5)); // any view of it gives it back
  pool.release(new Uint8Array(a)); // twice: held once
  expect(pool.take(4000)).toBe(a);
  expect(pool.take(4000)).not.toBe(a);
});

test('the smallest buffer that fits is taken; when none fits, the smallest gives way', () => {
  const pool = new BytePool(3);
  const [small, mid, large] = [pool.take(1000), pool.take(100_000), pool.take(1_000_000)];
  for (const b of [large, small, mid]) pool.release(new Uint8Array(b));
  expect(pool.take(50_000)).toBe(mid);
  pool.release(new Uint8Array(mid));
  expect(pool.take(10)).toBe(small);
  pool.release(new Uint8Array(small));
  const huge = pool.take(3_000_000); // drops `small`
  expect(huge.byteLength).toBe(4 * 1024 * 1024);
  pool.release(new Uint8Array(huge));
  expect([pool.take(10), pool.take(10), pool.take(10)].sort((x, y) => x.byteLength - y.byteLength)).toEqual([mid, large, huge]);
});

test('only `keep` buffers are held, and none the pool did not make', () => {
  const pool = new BytePool(2);
  const made = [pool.take(10), pool.take(10), pool.take(10)];
  for (const b of made) pool.release(new Uint8Array(b));
  const slab = Buffer.from('x'); // a view of Node's shared 8 KB slab
  pool.release(slab);
  releaseAnswer(slab); // the answer pool ignores it too
  const again = [pool.take(10), pool.take(10), pool.take(10)];
  expect(again.filter((b) => made.includes(b))).toHaveLength(2);
  expect(again.some((b) => b === slab.buffer)).toBe(false);
});
