// Commit-time analysis: policies that can never match, and objects nothing uses.
//
// A policy's match space is (source zone, destination zone, source address, destination
// address, service key), per address family; zones range over the configuration's zones plus
// "none". A policy is covered when the earlier policies take every packet of its space; then
// `coveredBy` lists exactly the earlier policies that do (the first match of some packet of
// the space). It is redundant when all of them have its action, else shadowed.
//
// Exactness: a policy is first probed with sample packets of its space on the compiled
// classifier; if one of them reaches it, it is not covered. Otherwise the space is split
// exactly: the first earlier rule that meets region R takes R ∩ rule, and R minus the rule
// (at most five boxes, one per field) is checked against the later rules; a box no rule meets
// means "not covered". A policy whose split runs over the work budget is left out: a report
// is never wrong, at worst a covered policy on a huge rule set goes unreported.
import type { Family } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { CompiledConfig } from './compiled';
import { addrFieldSet, mergeIntervals, policyServiceSet, type Interval } from './sets';
import { PROTO_TCP, PROTO_UDP } from './types';

export interface Coverage {
  id: number;
  coveredBy: number[];
}

export interface Analysis {
  shadowed: Coverage[];
  redundant: Coverage[];
  unusedAddresses: string[];
  unusedServices: string[];
}

export interface AnalyzeOptions {
  samples?: number; // probe packets per policy (default 24)
  budget?: number; // region checks per policy (default 20,000)
  totalBudget?: number; // region checks for the whole table (default 3,000,000)
  /** filled in when given: how the policies were decided */
  stats?: AnalysisStats;
}

export interface AnalysisStats {
  reached: number; // a probe packet reached the policy
  split: number; // decided by the exact split
  undecided: number; // over the work budget: not reported
  undecidedIds: number[]; // their ids (the first 100)
}

interface Region {
  zs: bigint; // bit 0: zone none, bit i: zone i
  zd: bigint;
  s: Interval[];
  d: Interval[];
  v: Interval[];
}

class OverBudget extends Error {}

function meets(a: Interval[], b: Interval[]): boolean {
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    if (a[i][1] < b[j][0]) i++;
    else if (b[j][1] < a[i][0]) j++;
    else return true;
  }
  return false;
}

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const lo = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
    const hi = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
    if (lo <= hi) out.push([lo, hi]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

function subtract(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const [lo0, hi] of a) {
    let lo = lo0;
    while (j < b.length && b[j][1] < lo) j++;
    let k = j;
    while (lo <= hi && k < b.length && b[k][0] <= hi) {
      if (b[k][0] > lo) out.push([lo, b[k][0] - 1n]);
      lo = b[k][1] + 1n;
      k++;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

function within(a: Interval[], b: Interval[]): boolean {
  return subtract(a, b).length === 0;
}

/** Does rule o cover region R entirely? */
function covers(o: Region, R: Region): boolean {
  return (R.zs & ~o.zs) === 0n && (R.zd & ~o.zd) === 0n && within(R.s, o.s) && within(R.d, o.d) && within(R.v, o.v);
}

function plural(ids: number[]): string {
  return ids.length === 1 ? `policy ${ids[0]}` : `policies ${ids.join(', ')}`;
}

/** One human-readable warning a line: shadowed policies, redundant policies (each in policy
 * order), then with `unused` the unused objects. Commit and validate use the default. */
export function warningLines(a: Analysis, opts: { unused?: boolean } = {}): string[] {
  const out = [
    ...a.shadowed.map((c) => `policy ${c.id} is shadowed by ${plural(c.coveredBy)}`),
    ...a.redundant.map((c) => `policy ${c.id} is redundant: covered by ${plural(c.coveredBy)}`),
  ];
  if (opts.unused) {
    for (const n of a.unusedAddresses) out.push(`address ${n} is not used by any policy or NAT rule`);
    for (const n of a.unusedServices) out.push(`service ${n} is not used by any policy or NAT rule`);
  }
  return out;
}

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomIn(list: Interval[], r: () => number, corner: number): bigint {
  if (corner === 0) return list[0][0];
  if (corner === 1) return list[list.length - 1][1];
  const [lo, hi] = list[Math.floor(r() * list.length)];
  const span = hi - lo + 1n;
  let x = 0n;
  for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(Math.floor(r() * 4294967296));
  return lo + (x % span);
}

function bitsOf(mask: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; mask > 0n; i++, mask >>= 1n) if (mask & 1n) out.push(i);
  return out;
}

export function analyze(doc: ConfigDoc, compiled?: CompiledConfig, opts: AnalyzeOptions = {}): Analysis {
  const cfg = compiled ?? CompiledConfig.compile(doc);
  const samples = opts.samples ?? 24;
  const budget = opts.budget ?? 20_000;
  let totalLeft = opts.totalBudget ?? 3_000_000;
  const stats = Object.assign(opts.stats ?? {}, { reached: 0, split: 0, undecided: 0, undecidedIds: [] as number[] });

  const zones = [...doc.zones.keys()].sort();
  const zoneIdx = new Map(zones.map((z, i) => [z, i + 1]));
  const allZones = (1n << BigInt(zones.length + 1)) - 1n;
  const zoneSet = (name: string) => (name === '' || name === 'any' ? allZones : zoneIdx.has(name) ? 1n << BigInt(zoneIdx.get(name)!) : 0n);

  const n = doc.policies.length;
  const rules = doc.policies.map((p) => {
    const src = addrFieldSet(p.srcAddr, doc.addresses);
    const dst = addrFieldSet(p.dstAddr, doc.addresses);
    const v = mergeIntervals(policyServiceSet(p.services, doc.services).map(([a, b]) => [BigInt(a), BigInt(b)]));
    const zs = zoneSet(p.srcZone);
    const zd = zoneSet(p.dstZone);
    const region = (f: Family): Region | null => {
      const s = f === 4 ? src.v4 : src.v6;
      const d = f === 4 ? dst.v4 : dst.v6;
      return zs && zd && s.length && d.length && v.length ? { zs, zd, s, d, v } : null;
    };
    return { p, r4: region(4), r6: region(6), zs: zoneIdx.get(p.srcZone) ?? -1, zd: zoneIdx.get(p.dstZone) ?? -1 };
  });

  // earlier rules by zone group, for the candidates of a zone-specific policy
  const groups = new Map<string, number[]>();
  rules.forEach((r, i) => {
    const key = `${r.zs}/${r.zd}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(i);
  });
  // the source zone of a rule: -1 for any, which for the group key is the same as unknown
  // zones (whose sets are empty and never reach here)

  const probe = (i: number, f: Family, R: Region, seed: number): boolean => {
    const cls = cfg.policyClassifier(f);
    const q = cls.q;
    const r = rng(seed);
    const zsList = bitsOf(R.zs);
    const zdList = bitsOf(R.zd);
    for (let k = 0; k < samples; k++) {
      const corner = k < 2 ? k : 2;
      const sz = zsList[Math.floor(r() * zsList.length)];
      const dz = zdList[Math.floor(r() * zdList.length)];
      const s = randomIn(R.s, r, corner);
      const d = randomIn(R.d, r, corner);
      let key = Number(randomIn(R.v, r, corner));
      const proto = key >> 16;
      if (proto !== PROTO_TCP && proto !== PROTO_UDP) key = proto << 16;
      const nw = f === 4 ? 1 : 4;
      for (let w = 0; w < nw; w++) {
        const sh = BigInt(32 * (nw - 1 - w));
        q[w] = Number((s >> sh) & 0xffffffffn) | 0;
        q[4 + w] = Number((d >> sh) & 0xffffffffn) | 0;
      }
      q[8] = key;
      if (cls.first(sz, dz, 0) === i) return true;
    }
    return false;
  };

  const hullOverlap = (a: Interval[], b: Interval[]) => a[0][0] <= b[b.length - 1][1] && b[0][0] <= a[a.length - 1][1];

  const shadowed: Coverage[] = [];
  const redundant: Coverage[] = [];
  for (let i = 0; i < n; i++) {
    if (totalLeft <= 0) {
      stats.undecided += n - i;
      break;
    }
    const me = rules[i];
    const spaces: Array<[Family, Region]> = [];
    if (me.r4) spaces.push([4, me.r4]);
    if (me.r6) spaces.push([6, me.r6]);
    if (spaces.length === 0) continue; // matches nothing at all: not "covered by" anything
    if (spaces.some(([f, R], k) => probe(i, f, R, i * 2 + k + 1))) {
      stats.reached++;
      continue;
    }

    // candidate earlier rules: zone-compatible groups, then hull overlap
    let pool: number[];
    if (me.zs > 0 && me.zd > 0) {
      pool = [`${me.zs}/${me.zd}`, `${me.zs}/-1`, `-1/${me.zd}`, '-1/-1'].flatMap((k) => groups.get(k) ?? []).filter((j) => j < i).sort((a, b) => a - b);
    } else {
      pool = [];
      for (let j = 0; j < i; j++) pool.push(j);
    }
    const winners = new Set<number>();
    let covered = true;
    let left = Math.min(budget, totalLeft);
    try {
      for (const [f, R] of spaces) {
        const C: Region[] = [];
        const ids: number[] = [];
        for (const j of pool) {
          const o = f === 4 ? rules[j].r4 : rules[j].r6;
          if (o && (o.zs & R.zs) && (o.zd & R.zd) && hullOverlap(o.s, R.s) && hullOverlap(o.d, R.d) && hullOverlap(o.v, R.v)) {
            C.push(o);
            ids.push(j);
            // nothing after the first rule that covers the whole space can take any of it
            if (covers(o, R)) break;
          }
        }
        // worklist of boxes still to be taken, each with the first candidate it may meet
        const work: Array<[Region, number]> = [[R, 0]];
        while (work.length > 0) {
          const [X, from] = work.pop()!;
          let k = from;
          for (; k < C.length; k++) {
            if (--left < 0) throw new OverBudget();
            const o = C[k];
            if ((o.zs & X.zs) && (o.zd & X.zd) && meets(o.s, X.s) && meets(o.d, X.d) && meets(o.v, X.v)) break;
          }
          if (k === C.length) {
            covered = false;
            break;
          }
          winners.add(ids[k]);
          // o takes X ∩ o; X minus o is one box per field: earlier fields inside o, this one outside
          const o = C[k];
          const cur: Region = { ...X };
          const zs = cur.zs & ~o.zs;
          if (zs) work.push([{ ...cur, zs }, k + 1]);
          cur.zs &= o.zs;
          const zd = cur.zd & ~o.zd;
          if (zd) work.push([{ ...cur, zd }, k + 1]);
          cur.zd &= o.zd;
          for (const fld of ['s', 'd', 'v'] as const) {
            const rest = subtract(cur[fld], o[fld]);
            if (rest.length) work.push([{ ...cur, [fld]: rest }, k + 1]);
            cur[fld] = intersect(cur[fld], o[fld]);
          }
        }
        if (!covered) break;
      }
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      covered = false;
      stats.undecided++;
      if (stats.undecidedIds.length < 100) stats.undecidedIds.push(me.p.id);
    }
    if (left >= 0) stats.split++;
    totalLeft -= Math.min(budget, totalLeft) - Math.max(left, 0);
    if (!covered) continue;
    const by = [...winners].sort((a, b) => a - b);
    const entry = { id: me.p.id, coveredBy: by.map((j) => doc.policies[j].id) };
    if (by.every((j) => doc.policies[j].action === me.p.action)) redundant.push(entry);
    else shadowed.push(entry);
  }

  // unused objects
  const usedAddr = new Set<string>();
  const usedSvc = new Set<string>();
  for (const p of doc.policies) {
    usedAddr.add(p.srcAddr).add(p.dstAddr);
    for (const s of p.services) usedSvc.add(s);
  }
  for (const r of doc.nat) {
    usedAddr.add(r.srcAddr).add(r.dstAddr);
    usedSvc.add(r.service);
  }
  return {
    shadowed,
    redundant,
    unusedAddresses: [...doc.addresses.keys()].filter((a) => !usedAddr.has(a)).sort(),
    unusedServices: [...doc.services.keys()].filter((s) => !usedSvc.has(s)).sort(),
  };
}
