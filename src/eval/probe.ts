// Probe packets: a few packets of a rule's space (corners and random points) run through the
// compiled classifier. One that reaches the rule proves it is not covered, in microseconds,
// which decides almost every policy before any exact method runs.
import type { Family } from '../config/net';
import type { CompiledConfig } from './compiled';
import { bitsOf, type Region } from './coverage';
import { rng } from './prng';
import type { Interval } from './sets';
import { PROTO_TCP, PROTO_UDP } from './types';

/** randomIn for a field below 2^32 (IPv4, service keys) in numbers: the same value from the
 * same draws of r (a probe runs 24 packets for most of 20,000 policies; BigInt was most of it). */
function randomIn32(list: Interval[], r: () => number, corner: number): number {
  if (corner === 0) return Number(list[0][0]);
  if (corner === 1) return Number(list[list.length - 1][1]);
  const [lo, hi] = list[Math.floor(r() * list.length)];
  const span = Number(hi - lo) + 1;
  return Number(lo) + Math.floor(r() * span);
}

function randomIn(list: Interval[], r: () => number, corner: number): bigint {
  if (corner === 0) return list[0][0];
  if (corner === 1) return list[list.length - 1][1];
  const [lo, hi] = list[Math.floor(r() * list.length)];
  const span = hi - lo + 1n;
  if (span <= 0x10000000000000n) return lo + BigInt(Math.floor(r() * Number(span)));
  let x = 0n;
  for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(Math.floor(r() * 4294967296));
  return lo + (x % span);
}

/** Probe packets of R on the compiled classifier: does one of them reach policy i? */
export function probe(cfg: CompiledConfig, i: number, f: Family, R: Region, samples: number, seed: number): boolean {
  const cls = cfg.policyClassifier(f);
  const q = cls.q;
  const r = rng(seed);
  const zsList = bitsOf(R.zs);
  const zdList = bitsOf(R.zd);
  const nw = f === 4 ? 1 : 4;
  for (let k = 0; k < samples; k++) {
    const corner = k < 2 ? k : 2;
    const sz = zsList[Math.floor(r() * zsList.length)];
    const dz = zdList[Math.floor(r() * zdList.length)];
    if (nw === 1) {
      q[0] = randomIn32(R.s, r, corner) | 0;
      q[4] = randomIn32(R.d, r, corner) | 0;
    } else {
      const s = randomIn(R.s, r, corner);
      const d = randomIn(R.d, r, corner);
      for (let w = 0; w < nw; w++) {
        const sh = BigInt(32 * (nw - 1 - w));
        q[w] = Number((s >> sh) & 0xffffffffn) | 0;
        q[4 + w] = Number((d >> sh) & 0xffffffffn) | 0;
      }
    }
    let key = randomIn32(R.v, r, corner);
    const proto = key >> 16;
    if (proto !== PROTO_TCP && proto !== PROTO_UDP) key = proto << 16;
    q[8] = key;
    if (cls.first(sz, dz, 0) === i) return true;
  }
  return false;
}

