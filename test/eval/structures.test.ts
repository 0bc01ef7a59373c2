// The compiled structures on their own, at sizes where the trees really cut: the classifier
// against the linear scan over the same rule tables (first match, and the "first match from
// rule min on" search NAT uses), and the longest-prefix tables against a brute-force scan.
import fc from 'fast-check';
import type { Family } from '../../src/config/net';
import { buildClassifier, DEFAULT_BUILD_PARAMS, FamilyClassifier, type BuildParams, type ClassifierData } from '../../src/eval/classifier';
import { Layout } from '../../src/eval/tree-layout';
import { policySpecs } from '../../src/eval/compile';
import { LinearClassifier } from '../../src/eval/linear';
import { buildLpm, lpm4, lpm6, lpmUnion, type LpmData, type LpmEntry } from '../../src/eval/lpm';
import { buildFamilyTable, wordsOf } from '../../src/eval/rules';
import { addrArb, packetArb, specArb, specDoc, type PacketSpec, type RandomSpec } from './helpers';
import { parseIp } from '../../src/config/net';
import { loadWords } from '../../src/eval/compiled';
import { packetKey } from '../../src/eval/sets';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function fill(q: Int32Array, ps: PacketSpec): Family {
  const src = parseIp(ps.family === 4 ? ps.src4 : ps.src6)!;
  const dst = parseIp(ps.family === 4 ? ps.dst4 : ps.dst6)!;
  loadWords(src.bytes, q, 0);
  loadWords(dst.bytes, q, 4);
  const proto = typeof ps.protocol === 'number' ? ps.protocol : { tcp: 6, udp: 17, icmp: 1 }[ps.protocol]!;
  q[8] = packetKey(proto, ps.port);
  q[9] = ps.sport ?? 0;
  return ps.family;
}

/** Walks every tree of a table from its forest's roots (classifier.ts, tree.ts), each node and
 * each leaf once: `node` sees a node's offset, `leaf` a leaf's. */
function walkTrees(d: ClassifierData, node: (at: number) => void, leaf: (at: number) => void): void {
  const m = d.mem;
  const seen = new Set<number>();
  const walk = (ref: number) => {
    if (seen.has(ref)) return;
    seen.add(ref);
    if (ref < 0) return leaf(~ref);
    node(ref);
    const h = m[ref];
    if (h >= 0) {
      for (let c = 0; c <= h >>> 9; c++) walk(m[ref + 1 + c]);
      return;
    }
    walk(m[ref + 3]);
    const slots = 2 ** (32 - m[ref + 2]);
    for (let s = 0; s < slots; s++) walk(m[ref + 5 + 2 * s]);
  };
  const forests = [d.hdr[2], ...d.srcForest, ...d.dstForest, ...d.pairForest].filter((f) => f >= 0);
  for (const f of new Set(forests)) for (let t = 0; t < m[f]; t++) walk(m[f + 1 + 2 * t]);
}

/** Leaf entries of an IPv4 table by form (tree.ts): values inline (rule >= 0) or runs into the
 * pools (~rule). */
function leafForms(d: ClassifierData, forms: { inline: number; runs: number }): void {
  const m = d.mem;
  walkTrees(d, () => {}, (at) => {
    for (let o = at + 1; o < at + 1 + m[at] * Layout.LeafStride4; o += Layout.LeafStride4) {
      if (m[o] >= 0) forms.inline++;
      else forms.runs++;
    }
  });
}

/** Builds both families' classifiers of a random configuration and compares each packet's
 * first match (from a random rule on, when not firstOnly) with the linear scan; returns the
 * number compared. `built` sees the compiled tables. */
function compareWithLinear(spec: RandomSpec, packets: PacketSpec[], params: BuildParams, firstOnly: boolean, built: (d4: ClassifierData, d6: ClassifierData) => void): number {
  const doc = specDoc(spec);
  const specs = policySpecs(doc);
  const zones = doc.zones.size;
  const t4 = buildFamilyTable(specs, 4), t6 = buildFamilyTable(specs, 6);
  const d4 = buildClassifier(t4, zones, params, firstOnly), d6 = buildClassifier(t6, zones, params, firstOnly);
  built(d4, d6);
  const cls = { 4: new FamilyClassifier(d4, 4), 6: new FamilyClassifier(d6, 6) };
  const lin = new LinearClassifier(t4, t6);
  for (const ps of packets) {
    const f = fill(lin.q, ps);
    cls[f].q.set(lin.q);
    const sz = ps.sz === null ? 0 : (ps.sz % (zones + 1));
    const dz = ps.dz === null ? 0 : (ps.dz % (zones + 1));
    const min = firstOnly ? 0 : ps.seed % Math.max(1, doc.policies.length);
    const want = lin.first(f, sz, dz, min);
    const got = cls[f].first(sz, dz, min);
    if (got !== want) expect({ ps, sz, dz, min, got }).toEqual({ ps, sz, dz, min, got: want });
  }
  return packets.length;
}

describe('classifier = linear scan on large rule tables', () => {
  for (const firstOnly of [true, false]) {
    test(`firstOnly ${firstOnly}`, () => {
      let compared = 0;
      const forms = { inline: 0, runs: 0 };
      fc.assert(
        fc.property(
          specArb({ policies: [300, 1500], nat: [0, 0], addresses: 40, services: 12 }, { sports: true }),
          fc.array(packetArb, { minLength: 100, maxLength: 1500, size: 'max' }),
          fc.constantFrom(4, 8, 16),
          (spec, packets, binth) => {
            compared += compareWithLinear(spec, packets, { ...DEFAULT_BUILD_PARAMS, binth }, firstOnly, (d4) => leafForms(d4, forms));
          },
        ),
        { numRuns: 12, seed },
      );
      expect(compared).toBeGreaterThan(1000); // the generators are not degenerate
      // both forms of IPv4 leaf entries were exercised
      expect(forms.inline).toBeGreaterThan(100);
      expect(forms.runs).toBeGreaterThan(100);
    });
  }
});

/** Hash nodes of a table's trees (tree.ts): a header < 0. */
function hashNodes(d: ClassifierData): number {
  let count = 0;
  walkTrees(d, (at) => void (d.mem[at] < 0 && count++), () => {});
  return count;
}

describe('hash nodes = linear scan', () => {
  // hash 2 takes a hash cut wherever one applies (the generated prefixes are mostly long: /23
  // to /32 in a few universes, with wildcards); hash 1 chooses by counted work
  for (const hash of [2, 1]) {
    test(`hash ${hash}: ${hash === 2 ? 'forced wherever one applies' : 'chosen by counted work'}`, () => {
      let compared = 0, nodes = 0;
      fc.assert(
        fc.property(
          specArb({ policies: [200, 900], nat: [0, 0], addresses: 60, services: 12 }),
          fc.array(packetArb, { minLength: 200, maxLength: 800, size: 'max' }),
          fc.constantFrom(2, 16),
          fc.boolean(),
          (spec, packets, binth, firstOnly) => {
            compared += compareWithLinear(spec, packets, { ...DEFAULT_BUILD_PARAMS, binth, hash }, firstOnly, (d4, d6) => (nodes += hashNodes(d4) + hashNodes(d6)));
          },
        ),
        { numRuns: 10, seed },
      );
      expect(compared).toBeGreaterThan(1000);
      if (hash === 2) expect(nodes).toBeGreaterThan(20); // the structure was really built
    });
  }
});

describe('longest-prefix tables', () => {
  const entryArb = (family: Family) =>
    fc.record({ addr: addrArb(family), len: fc.integer({ min: 0, max: family === 4 ? 32 : 128 }), answer: fc.nat(50) });

  for (const family of [4, 6] as const) {
    test(`IPv${family}: the most specific prefix, the first entry of a duplicate`, () => {
      fc.assert(
        fc.property(fc.array(entryArb(family), { maxLength: 40 }), fc.array(addrArb(family), { minLength: 1, maxLength: 200 }), (raw, lookups) => {
          const bits = family === 4 ? 32 : 128;
          const big = (text: string) => parseIp(text)!.bytes.reduce((v, b) => (v << 8n) | BigInt(b), 0n);
          const entries: LpmEntry[] = raw.map((e) => {
            const host = BigInt(bits - e.len);
            return { value: (big(e.addr) >> host) << host, len: e.len, answer: e.answer };
          });
          const t = buildLpm(entries, family);
          const q = new Int32Array(4);
          for (const a of lookups) {
            const v = big(a);
            let want = -1, wantLen = -1;
            for (const e of entries) {
              const host = BigInt(bits - e.len);
              if (e.len > wantLen && v >> host === e.value >> host) {
                want = e.answer;
                wantLen = e.len;
              }
            }
            loadWords(parseIp(a)!.bytes, q, 0);
            expect(family === 4 ? lpm4(t, q[0]) : lpm6(t, q, 0)).toBe(want);
          }
        }),
        { numRuns: 200, seed },
      );
    });

    test(`IPv${family}: the union of two tables answers what both answer, at every interval edge`, () => {
      const bits = family === 4 ? 32 : 128;
      const max = (1n << BigInt(bits)) - 1n;
      const tableArb = fc.array(entryArb(family), { maxLength: 12 }).map((raw) =>
        raw.map((e): LpmEntry => {
          const host = BigInt(bits - e.len);
          return { value: (parseIp(e.addr)!.bytes.reduce((v, b) => (v << 8n) | BigInt(b), 0n) >> host) << host, len: e.len, answer: e.answer % 4 };
        }),
      );
      let edges = 0;
      fc.assert(
        fc.property(tableArb, tableArb, fc.boolean(), (ex, ey, few) => {
          const x = buildLpm(ex, family), y = buildLpm(ey, family);
          // one combine tells both answers apart, the other maps many pairs to one answer
          // (neighbours with the same answer must merge, and still answer right)
          const combine = few ? (a: number, b: number) => (a + b + 2) % 3 : (a: number, b: number) => (a + 1) * 10 + b + 1;
          const u = lpmUnion(x, y, family, combine);
          const q = new Int32Array(4);
          const at = (t: LpmData) => (family === 4 ? lpm4(t, q[0]) : lpm6(t, q, 0));
          // each prefix's first and last address and their neighbours: every edge of both tables
          const points = [0n, max, ...[...ex, ...ey].flatMap((e) => {
            const hi = e.value + (1n << BigInt(bits - e.len)) - 1n;
            return [e.value - 1n, e.value, hi, hi + 1n];
          })].filter((v) => v >= 0n && v <= max);
          for (const v of points) {
            q.set(wordsOf(v, family === 4 ? 1 : 4));
            expect(at(u)).toBe(combine(at(x), at(y)));
            edges++;
          }
          for (let i = 1; i < u.answers.length; i++) expect(u.answers[i]).not.toBe(u.answers[i - 1]);
        }),
        { numRuns: 200, seed },
      );
      expect(edges).toBeGreaterThan(2000);
    });
  }
});
