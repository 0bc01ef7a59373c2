// Commit-time analysis: policies that can never match, and objects nothing uses.
//
// A policy's match space is (source zone, destination zone, source address, destination
// address, service key), per address family; zones range over the configuration's zones plus
// "none". A policy is covered when the earlier policies take every packet of its space; then
// `coveredBy` lists exactly the earlier policies that do (the first match of some packet of
// the space). It is redundant when all of them have its action, else shadowed.
//
// Exactness: a policy is first probed with sample packets of its space on the compiled
// classifier; if one of them reaches it, it is not covered. Otherwise its space is split
// exactly among the earlier rules that meet it (coverage.ts), up to the first earlier rule
// that covers all of it. A policy whose split runs over the work budget is left out: a report
// is never wrong, at worst a covered policy of a huge rule set goes unreported (AnalysisStats
// counts them).
import type { Family } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { CompiledConfig } from './compiled';
import { bitsOf, covers, OverBudget, takers, takersBySubtraction, type Region } from './coverage';
import { addrFieldSet, mergeIntervals, policyServiceSet, type AddrSet, type Interval } from './sets';
import { PROTO_TCP, PROTO_UDP } from './types';
import { rng } from './prng';

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
  budget?: number; // units of exact-split work per policy (default 1,000,000, some 10-50 ms)
  totalBudget?: number; // for the whole table (default 20,000,000)
  quickBudget?: number; // box subtraction tried first (default 2,000; 0: the sweep only)
  /** filled in when given: how the policies were decided */
  stats?: AnalysisStats;
}

export interface AnalysisStats {
  reached: number; // a probe packet reached the policy
  split: number; // decided by the exact split
  undecided: number; // over the work budget: not reported
  undecidedIds: number[]; // their ids (the first 100)
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

export function analyze(doc: ConfigDoc, compiled?: CompiledConfig, opts: AnalyzeOptions = {}): Analysis {
  const cfg = compiled ?? CompiledConfig.compile(doc);
  const samples = opts.samples ?? 24;
  const budget = opts.budget ?? 1_000_000;
  let totalLeft = opts.totalBudget ?? 20_000_000;
  const quickMax = opts.quickBudget ?? 2000;
  const stats = Object.assign(opts.stats ?? {}, { reached: 0, split: 0, undecided: 0, undecidedIds: [] as number[] });

  const zones = [...doc.zones.keys()].sort();
  const zoneIdx = new Map(zones.map((z, i) => [z, i + 1]));
  const allZones = (1n << BigInt(zones.length + 1)) - 1n;
  const zoneSet = (name: string) => (name === '' || name === 'any' ? allZones : zoneIdx.has(name) ? 1n << BigInt(zoneIdx.get(name)!) : 0n);

  const n = doc.policies.length;
  const addrSets = new Map<string, AddrSet>();
  const addrSet = (name: string) => {
    let a = addrSets.get(name);
    if (!a) addrSets.set(name, (a = addrFieldSet(name, doc.addresses)));
    return a;
  };
  const svcSets = new Map<string, Interval[]>();
  const rules = doc.policies.map((p) => {
    const src = addrSet(p.srcAddr);
    const dst = addrSet(p.dstAddr);
    const key = p.services.join(',');
    let v = svcSets.get(key);
    if (!v) svcSets.set(key, (v = mergeIntervals(policyServiceSet(p.services, doc.services).map(([a, b]) => [BigInt(a), BigInt(b)]))));
    const zs = zoneSet(p.srcZone);
    const zd = zoneSet(p.dstZone);
    const region = (f: Family): Region | null => {
      const s = f === 4 ? src.v4 : src.v6;
      const d = f === 4 ? dst.v4 : dst.v6;
      return zs && zd && s.length && d.length && v.length ? { zs, zd, s, d, v } : null;
    };
    return { p, r4: region(4), r6: region(6), zs: zoneIdx.get(p.srcZone) ?? -1, zd: zoneIdx.get(p.dstZone) ?? -1 };
  });

  // numeric hulls of each rule's fields per family, for a cheap first filter of candidates:
  // IPv4 and service keys exactly, IPv6 by the top 64 bits (rounding keeps the order, so an
  // overlap is never missed)
  const top = (f: Family, x: bigint) => (f === 4 ? Number(x) : Number(x >> 64n));
  const hulls = { 4: new Float64Array(n * 6), 6: new Float64Array(n * 6) };
  rules.forEach((r, i) => {
    for (const f of [4, 6] as const) {
      const R = f === 4 ? r.r4 : r.r6;
      if (!R) continue;
      const h = hulls[f];
      h[i * 6] = top(f, R.s[0][0]);
      h[i * 6 + 1] = top(f, R.s[R.s.length - 1][1]);
      h[i * 6 + 2] = top(f, R.d[0][0]);
      h[i * 6 + 3] = top(f, R.d[R.d.length - 1][1]);
      h[i * 6 + 4] = Number(R.v[0][0]);
      h[i * 6 + 5] = Number(R.v[R.v.length - 1][1]);
    }
  });
  const hullsMeet = (h: Float64Array, i: number, j: number) =>
    h[i * 6] <= h[j * 6 + 1] && h[j * 6] <= h[i * 6 + 1] &&
    h[i * 6 + 2] <= h[j * 6 + 3] && h[j * 6 + 2] <= h[i * 6 + 3] &&
    h[i * 6 + 4] <= h[j * 6 + 5] && h[j * 6 + 4] <= h[i * 6 + 5];

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

  const shadowed: Coverage[] = [];
  const redundant: Coverage[] = [];
  for (let i = 0; i < n; i++) {
    const me = rules[i];
    const spaces: Array<[Family, Region]> = [];
    if (me.r4) spaces.push([4, me.r4]);
    if (me.r6) spaces.push([6, me.r6]);
    if (spaces.length === 0) continue; // matches nothing at all: not "covered by" anything
    if (spaces.some(([f, R], k) => probe(i, f, R, i * 2 + k + 1))) {
      stats.reached++;
      continue;
    }
    if (totalLeft <= 0) {
      stats.undecided++;
      if (stats.undecidedIds.length < 100) stats.undecidedIds.push(me.p.id);
      continue;
    }

    // candidates: earlier rules in order (of the four compatible zone groups, or all of them
    // for an any-zone policy) whose hulls and zones meet the space
    const lists = me.zs > 0 && me.zd > 0 ? [`${me.zs}/${me.zd}`, `${me.zs}/-1`, `-1/${me.zd}`, '-1/-1'].map((k) => groups.get(k) ?? []) : null;
    const earlier = function* (): Generator<number> {
      if (!lists) {
        for (let j = 0; j < i; j++) yield j;
        return;
      }
      const at = [0, 0, 0, 0];
      for (;;) {
        let best = -1;
        for (let g = 0; g < 4; g++) if (at[g] < lists[g].length && lists[g][at[g]] < i && (best < 0 || lists[g][at[g]] < lists[best][at[best]])) best = g;
        if (best < 0) return;
        yield lists[best][at[best]++];
      }
    };
    const winners = new Set<number>();
    let covered = true;
    const work = { left: Math.min(budget, totalLeft) };
    try {
      for (const [f, R] of spaces) {
        const C: Region[] = [];
        const ids: number[] = [];
        for (const j of earlier()) {
          const o = f === 4 ? rules[j].r4 : rules[j].r6;
          if (o && hullsMeet(hulls[f], i, j) && (o.zs & R.zs) && (o.zd & R.zd)) {
            C.push(o);
            ids.push(j);
            // nothing after the first rule that covers the whole space can take any of it
            if (covers(o, R)) break;
          }
        }
        // box subtraction settles the usual cases (a few covering rules) at once; the sweep
        // takes the rest. Both are exact.
        let by: number[] | null;
        const quick = { left: Math.min(quickMax, work.left) };
        try {
          if (quick.left <= 0) throw new OverBudget();
          by = takersBySubtraction(R, C, quick);
          work.left -= Math.min(quickMax, work.left) - quick.left;
        } catch (e) {
          if (!(e instanceof OverBudget)) throw e;
          work.left -= Math.min(quickMax, work.left);
          by = takers(R, C, work);
        }
        if (by === null) {
          covered = false;
          break;
        }
        for (const k of by) winners.add(ids[k]);
      }
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      covered = false;
      stats.undecided++;
      if (stats.undecidedIds.length < 100) stats.undecidedIds.push(me.p.id);
    }
    if (work.left >= 0) stats.split++;
    totalLeft -= Math.min(budget, totalLeft) - Math.max(work.left, 0);
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
