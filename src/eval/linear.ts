// The baseline the benchmark compares against: first match by scanning the rule table in
// order over the same typed arrays the compiled leaves use (zones as ints, prefix entries as
// word/mask pairs, service intervals). No tree, no zone partition.
import type { Family } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { policySpecs } from './compile';
import { inPieces } from './classifier';
import { buildFamilyTable, type FamilyTable } from './rules';

export class LinearClassifier {
  readonly q = new Int32Array(10); // as FamilyClassifier's: q[9] the source port
  private readonly t: Record<Family, FamilyTable>;

  constructor(t4: FamilyTable, t6: FamilyTable) {
    this.t = { 4: t4, 6: t6 };
  }

  static policies(doc: ConfigDoc): LinearClassifier {
    const specs = policySpecs(doc);
    return new LinearClassifier(buildFamilyTable(specs, 4), buildFamilyTable(specs, 6));
  }

  bytes(): number {
    let n = 0;
    for (const t of [this.t[4], this.t[6]]) {
      for (const v of Object.values(t)) if (v instanceof Int32Array) n += v.byteLength;
    }
    return n;
  }

  /** The first rule >= min matching q (see FamilyClassifier) with zones sz, dz (0: none), or -1. */
  first(family: Family, sz: number, dz: number, min = 0): number {
    return family === 4 ? this.first4(this.t[4], sz, dz, min) : this.first6(this.t[6], sz, dz, min);
  }

  private first4(t: FamilyTable, sz: number, dz: number, min: number): number {
    const q = this.q, s = q[0], d = q[4], v = q[8];
    const tsz = t.sz, tdz = t.dz, so = t.srcOff, sc = t.srcCnt, dof = t.dstOff, dc = t.dstCnt, vo = t.svcOff, vc = t.svcCnt;
    const aw = t.addrWords, am = t.addrMask, lo = t.svcLo, hi = t.svcHi;
    next: for (let r = 0, n = t.count; r < n; r++) {
      if (t.rule[r] < min) continue;
      const a = tsz[r], b = tdz[r];
      if ((a >= 0 && a !== sz) || (b >= 0 && b !== dz)) continue;
      let j = so[r], e = j + sc[r];
      while (j < e && ((s ^ aw[j]) & am[j]) !== 0) j++;
      if (j === e) continue;
      j = dof[r];
      e = j + dc[r];
      while (j < e && ((d ^ aw[j]) & am[j]) !== 0) j++;
      if (j === e) continue;
      for (j = vo[r], e = j + vc[r]; j < e; j++) if (v >= lo[j] && v <= hi[j]) break;
      if (j < e && (t.spAt[r] === 0 || inPieces(t.spData, t.spAt[r] - 1, v, q[9]))) return t.rule[r];
      continue next;
    }
    return -1;
  }

  private first6(t: FamilyTable, sz: number, dz: number, min: number): number {
    const q = this.q, v = q[8];
    const aw = t.addrWords, am = t.addrMask, lo = t.svcLo, hi = t.svcHi;
    const inSet = (off: number, cnt: number, at: number) => {
      for (let j = off * 4, e = (off + cnt) * 4; j < e; j += 4) {
        if (((q[at] ^ aw[j]) & am[j]) === 0 && ((q[at + 1] ^ aw[j + 1]) & am[j + 1]) === 0 && ((q[at + 2] ^ aw[j + 2]) & am[j + 2]) === 0 && ((q[at + 3] ^ aw[j + 3]) & am[j + 3]) === 0) return true;
      }
      return false;
    };
    for (let r = 0; r < t.count; r++) {
      if (t.rule[r] < min) continue;
      const a = t.sz[r], b = t.dz[r];
      if ((a >= 0 && a !== sz) || (b >= 0 && b !== dz)) continue;
      if (!inSet(t.srcOff[r], t.srcCnt[r], 0) || !inSet(t.dstOff[r], t.dstCnt[r], 4)) continue;
      let j = t.svcOff[r];
      const e = j + t.svcCnt[r];
      while (j < e && !(v >= lo[j] && v <= hi[j])) j++;
      if (j < e && (t.spAt[r] === 0 || inPieces(t.spData, t.spAt[r] - 1, v, q[9]))) return t.rule[r];
    }
    return -1;
  }
}
