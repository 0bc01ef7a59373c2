// Probe packets: a few packets of a rule's space (corners and random points) run through the
// compiled classifier. One that reaches the rule proves it is not covered, in microseconds,
// which decides almost every policy before any exact method runs.
import type { Family } from '../config/net';
import type { CompiledConfig } from './compiled';
import { bitsOf, type Region } from './coverage';
import { rng } from './prng';
import { draw6, randomIn32 } from './probe-draw';
import { PROTO_TCP, PROTO_UDP } from './types';

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
      draw6(R.s, r, corner, q, 0);
      draw6(R.d, r, corner, q, 4);
    }
    let key = randomIn32(R.v, r, corner);
    const proto = key >> 16;
    if (proto !== PROTO_TCP && proto !== PROTO_UDP) key = proto << 16;
    q[8] = key;
    if (cls.first(sz, dz, 0) === i) return true;
  }
  return false;
}

