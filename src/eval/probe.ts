// Probe packets: a few packets of a rule's space (corners and random points) run through the
// compiled classifier. One that reaches the rule proves it is not covered, in microseconds,
// which decides almost every policy before any exact method runs.
import type { Family } from '../config/net';
import type { CompiledConfig } from './compiled';
import { bitsOf, type Region } from './coverage';
import type { RegionPiece } from './rule-space';
import { rng } from './prng';
import { draw6, randomIn32 } from './probe-draw';
import { PROTO_TCP, PROTO_UDP } from './types';

/** A value of number intervals (corner 0: the first, 1: the last). */
function randomInPorts(list: ReadonlyArray<[number, number]>, r: () => number, corner: number): number {
  if (corner === 0) return list[0][0];
  if (corner === 1) return list[list.length - 1][1];
  const [lo, hi] = list[Math.floor(r() * list.length)];
  return lo + Math.floor(r() * (hi - lo + 1));
}

const EVERY_PORT: ReadonlyArray<[number, number]> = [[0, 65535]];

/** Probe packets of R on the compiled classifier: does one of them reach policy i? With
 * source-port pieces, a packet's service key and source port come from one piece. */
export function probe(cfg: CompiledConfig, i: number, f: Family, R: Region, samples: number, seed: number, pieces: readonly RegionPiece[] | null = null): boolean {
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
    const piece = pieces ? pieces[Math.floor(r() * pieces.length)] : null;
    let key = randomIn32(piece ? piece.v : R.v, r, corner);
    q[9] = randomInPorts(piece ? piece.sp : EVERY_PORT, r, corner);
    const proto = key >> 16;
    if (proto !== PROTO_TCP && proto !== PROTO_UDP) key = proto << 16;
    q[8] = key;
    if (cls.first(sz, dz, 0) === i) return true;
  }
  return false;
}

