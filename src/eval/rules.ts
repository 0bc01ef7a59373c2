// An ordered rule table (policies or NAT rules) as numbers, for one address family: zones
// as small ints, and each field as a run of entries in a shared pool. This is the input of
// the decision-tree builder (tree.ts) and of the linear baseline (linear.ts); the pools
// (addrWords, addrMask, svcLo, svcHi) are also what the compiled leaves check against.
import type { Family } from '../config/net';
import { GrowI32 } from './grow';
import { eachPrefix32, FIELD_BITS, intervalPrefixes, SVC_BITS, type AddrSet, type Interval, type SportPiece } from './sets';

/** Zone field of a rule: a zone index 1..Z, ANY_ZONE, or NEVER (a zone that does not exist). */
export const ANY_ZONE = -1;
export const NEVER = -2;

export interface RuleSpec {
  sz: number;
  dz: number;
  src: AddrSet;
  dst: AddrSet;
  svc: Array<[number, number]>; // service key intervals (sets.ts), merged
  /** source-port pieces (sets.ts): absent or null, every source port; else `svc` is their union */
  sport?: SportPiece[] | null;
  /** pool sharing: equal keys mean equal sets */
  srcKey: string;
  dstKey: string;
  svcKey: string;
  families: number; // bit 1: IPv4, bit 2: IPv6
}

export const familyBit = (f: Family) => (f === 4 ? 1 : 2);

/** a column or pool of a table: it starts small (a NAT table has a few rows) */
const grow = () => new GrowI32(64);

export interface FamilyTable {
  family: Family;
  nw: number; // 32-bit words per address: 1 or 4
  count: number;
  rule: Int32Array; // index in the ordered table, ascending
  sz: Int32Array;
  dz: Int32Array;
  srcOff: Int32Array; srcCnt: Int32Array;
  dstOff: Int32Array; dstCnt: Int32Array;
  svcOff: Int32Array; svcCnt: Int32Array; // into svcLo/svcHi
  pfxOff: Int32Array; pfxCnt: Int32Array; // into the service prefix pool
  // address entries: disjoint prefixes in address order; a set's prefixes are one run
  addrLen: Int32Array;
  addrWords: Int32Array; // nw words each, big-endian
  addrMask: Int32Array;
  // service intervals (what a leaf checks) and their prefixes (what the builder cuts):
  // a prefix is a 32-bit value whose top 8 bits are zero, so lengths run 8..32
  svcLo: Int32Array;
  svcHi: Int32Array;
  pfxLen: Int32Array;
  pfxWord: Int32Array;
  pfxIv: Int32Array; // the interval a prefix belongs to
  // source ports: per row 0 (every source port) or 1 + the offset of its pieces in spData,
  // [pieces, (svcCount, (lo, hi) * svcCount, spCount, (lo, hi) * spCount) * pieces]
  spAt: Int32Array;
  spData: Int32Array;
}

/** Writes a rule's pieces into `out` (the spData layout above); returns 1 + their offset. */
function pushPieces(out: GrowI32, pieces: readonly SportPiece[]): number {
  const at = out.length;
  out.push(pieces.length);
  for (const p of pieces) {
    for (const l of [p.svc, p.sp]) {
      out.push(l.length);
      for (const [lo, hi] of l) {
        out.push(lo);
        out.push(hi);
      }
    }
  }
  return at + 1;
}

export function wordsOf(value: bigint, nw: number): number[] {
  const out: number[] = [];
  for (let i = nw - 1; i >= 0; i--) out.push(Number((value >> BigInt(32 * i)) & 0xffffffffn) | 0);
  return out;
}

export function maskWord(len: number, wordIndex: number): number {
  const bits = Math.max(0, Math.min(32, len - 32 * wordIndex));
  return bits === 0 ? 0 : (-1 << (32 - bits)) | 0;
}

/**
 * Service sets split into prefixes, by svcKey (equal keys, equal sets): per prefix its length
 * (8..32), value and interval (index within the set). A compile splits each set once for
 * its four tables (policies and NAT, both families) by passing one to every buildFamilyTable.
 */
export type ServiceSplits = Map<string, Int32Array>;

function splitOf(splits: ServiceSplits, key: string, set: Array<[number, number]>, out: GrowI32): Int32Array {
  let split = splits.get(key);
  if (!split) {
    out.length = 0; // scratch: the split is copied out of it
    set.forEach(([lo, hi], iv) => eachPrefix32(lo, hi, SVC_BITS, (value, len) => {
      out.push(len + (32 - SVC_BITS));
      out.push(value);
      out.push(iv);
    }));
    splits.set(key, (split = out.done()));
  }
  return split;
}

/** Converts the rules that can match packets of `family` into a FamilyTable. */
export function buildFamilyTable(specs: readonly RuleSpec[], family: Family, splits: ServiceSplits = new Map()): FamilyTable {
  const nw = family === 4 ? 1 : 4;
  const bits = FIELD_BITS[family];
  const addrLen = grow(), addrWords = grow(), addrMask = grow();
  const svcLo = grow(), svcHi = grow(), pfxLen = grow(), pfxWord = grow(), pfxIv = grow();
  // by srcKey / dstKey (one family per table: the key alone names the set)
  const addrRuns = new Map<string, [number, number]>();
  const svcRuns = new Map<string, [number, number, number, number]>();
  const spData = grow();
  spData.push(0); // offset 0 is never a rule's: spAt 0 means none
  const spRuns = new Map<SportPiece[], number>();
  const cols = { spAt: grow(), rule: grow(), sz: grow(), dz: grow(), srcOff: grow(), srcCnt: grow(), dstOff: grow(), dstCnt: grow(), svcOff: grow(), svcCnt: grow(), pfxOff: grow(), pfxCnt: grow() };

  const addrRun = (key: string, set: Interval[]): [number, number] => {
    let run = addrRuns.get(key);
    if (!run) {
      const start = addrLen.length;
      for (const [lo, hi] of set) {
        if (nw === 1) {
          eachPrefix32(Number(lo), Number(hi), bits, (value, len) => {
            addrLen.push(len);
            addrWords.push(value);
            addrMask.push(maskWord(len, 0));
          });
          continue;
        }
        for (const p of intervalPrefixes(lo, hi, bits)) {
          addrLen.push(p.len);
          const w = wordsOf(p.value, nw);
          for (let i = 0; i < nw; i++) {
            addrWords.push(w[i]);
            addrMask.push(maskWord(p.len, i));
          }
        }
      }
      run = [start, addrLen.length - start];
      addrRuns.set(key, run);
    }
    return run;
  };
  const scratch = grow();
  const svcRun = (key: string, set: Array<[number, number]>) => {
    let run = svcRuns.get(key);
    if (!run) {
      const ivStart = svcLo.length;
      const pStart = pfxLen.length;
      for (const [lo, hi] of set) {
        svcLo.push(lo);
        svcHi.push(hi);
      }
      const split = splitOf(splits, key, set, scratch);
      for (let k = 0; k < split.length; k += 3) {
        pfxLen.push(split[k]);
        pfxWord.push(split[k + 1]);
        pfxIv.push(ivStart + split[k + 2]);
      }
      run = [ivStart, svcLo.length - ivStart, pStart, pfxLen.length - pStart];
      svcRuns.set(key, run);
    }
    return run;
  };

  const fbit = familyBit(family);
  const fam = family === 4 ? 'v4' : 'v6';
  specs.forEach((r, index) => {
    if ((r.families & fbit) === 0 || r.sz === NEVER || r.dz === NEVER) return;
    if (r.src[fam].length === 0 || r.dst[fam].length === 0 || r.svc.length === 0) return;
    const s = addrRun(r.srcKey, r.src[fam]);
    const d = addrRun(r.dstKey, r.dst[fam]);
    const v = svcRun(r.svcKey, r.svc);
    cols.rule.push(index);
    let sp = 0;
    if (r.sport) {
      sp = spRuns.get(r.sport) ?? pushPieces(spData, r.sport);
      spRuns.set(r.sport, sp);
    }
    cols.spAt.push(sp);
    cols.sz.push(r.sz);
    cols.dz.push(r.dz);
    cols.srcOff.push(s[0]); cols.srcCnt.push(s[1]);
    cols.dstOff.push(d[0]); cols.dstCnt.push(d[1]);
    cols.svcOff.push(v[0]); cols.svcCnt.push(v[1]);
    cols.pfxOff.push(v[2]); cols.pfxCnt.push(v[3]);
  });

  return {
    family,
    nw,
    count: cols.rule.length,
    rule: cols.rule.done(), sz: cols.sz.done(), dz: cols.dz.done(),
    srcOff: cols.srcOff.done(), srcCnt: cols.srcCnt.done(),
    dstOff: cols.dstOff.done(), dstCnt: cols.dstCnt.done(),
    svcOff: cols.svcOff.done(), svcCnt: cols.svcCnt.done(),
    pfxOff: cols.pfxOff.done(), pfxCnt: cols.pfxCnt.done(),
    addrLen: addrLen.done(), addrWords: addrWords.done(), addrMask: addrMask.done(),
    svcLo: svcLo.done(), svcHi: svcHi.done(),
    pfxLen: pfxLen.done(), pfxWord: pfxWord.done(), pfxIv: pfxIv.done(),
    spAt: cols.spAt.done(), spData: spData.done(),
  };
}
