// The batch fast path piece by piece, each against what it replaces:
// - the address parser on character codes (parseIpWords/parseIpBytes, and parseIPv4/parseIPv6
//   built on it) = the former string parser (kept here as the oracle) on random and mutated text;
// - parsePacketBatch = parseBatch (same packets, same errors) on random valid and invalid packets;
// - scanPacketBatch (bytes, no JSON.parse) = JSON.parse + parsePacketBatch on random bodies with
//   random formatting (whitespace, escapes, duplicate keys, numbers as 8e1 or 80.0, non-ASCII):
//   it either declines (null) or gives the very same batch, and it takes every plain body;
// - batchJson = JSON.stringify({version, results}) of the eval() answer objects, byte for byte,
//   on random configurations whose names need escaping, each answer written over the memory
//   of the previous ones;
// - the batch pool: a reused batch carries nothing over.
// The whole path against the reference evaluator is in differential.test.ts.
import fc from 'fast-check';
import { parseIPv4, parseIPv6, parseIp, parseIpWords } from '../../src/config/net';
import type { ConfigDoc, ZoneRef } from '../../src/config/types';
import { isFwError } from '../../src/errors';
import { parseJsonBody } from '../../src/api/http';
import { BatchAnswers, MAX_BATCH, PacketBatch, releaseBatch, takeBatch } from '../../src/eval/batch';
import { scanPacketBatch } from '../../src/eval/batch-scan';
import { releaseAnswer } from '../../src/eval/answer-json';
import { CompiledConfig } from '../../src/eval/compiled';
import { parseBatch, parsePacket, parsePacketBatch } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import type { EvalResult, Packet } from '../../src/eval/types';
import { addrArb, mkDoc, packetArb, packetJson, specArb, specDoc, specMembers, LARGE } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const opts = (numRuns: number) => ({ numRuns, seed });

// ---- the former address parser, the oracle -------------------------------------------

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function oldIPv4(text: string): Uint8Array | null {
  const n = text.length;
  if (n < 7 || n > 15) return null;
  const out = new Uint8Array(4);
  let part = 0;
  let val = 0;
  let digits = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 3) return null;
      out[part++] = val;
      val = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && val === 0) return null;
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) return null;
    } else {
      return null;
    }
  }
  return part === 4 ? out : null;
}

function oldIPv6(text: string): Uint8Array | null {
  if (text.length < 2 || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (s: string): number[] | null => {
    if (s === '') return [];
    const words: number[] = [];
    const items = s.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes('.')) {
        const v4 = oldIPv4(item);
        if (!v4) return null;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!HEX_GROUP.test(item)) return null;
        words.push(parseInt(item, 16));
      }
    }
    return words;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 2 && halves[0].includes('.')) return null;
  let words: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    words = head;
  }
  if (words.length !== 8) return null;
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[2 * i] = words[i] >> 8;
    out[2 * i + 1] = words[i] & 0xff;
  }
  return out;
}

function oldIp(text: string): { family: 4 | 6; bytes: number[] } | null {
  const b = text.includes(':') ? oldIPv6(text) : oldIPv4(text);
  return b ? { family: b.length === 4 ? 4 : 6, bytes: [...b] } : null;
}

function wordsBytes(w: Int32Array, family: 4 | 6): number[] {
  const out: number[] = [];
  for (let k = 0; k < (family === 4 ? 1 : 4); k++) out.push(w[k] >>> 24, (w[k] >>> 16) & 255, (w[k] >>> 8) & 255, w[k] & 255);
  return out;
}

const hex = fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16));
const groupText = fc.oneof(hex, hex.map((h) => h.toUpperCase()), hex.map((h) => h.padStart(4, '0')), fc.constantFrom('0', '00000', '1ffff', 'g', ''));
const v4Text = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
  fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300)).map((o) => o.join('.')),
  fc.constantFrom('01.2.3.4', '1.2.3.4.', '1.2.3.4.5', '256.1.1.1', '0.0.0.0', '255.255.255.255', '1..2.3'),
);
/** IPv6-like texts: groups, a "::" anywhere (or two), an embedded IPv4 now and then. */
const v6Text = fc
  .tuple(fc.array(groupText, { minLength: 0, maxLength: 9 }), fc.integer({ min: -1, max: 9 }), fc.integer({ min: -1, max: 9 }), fc.option(v4Text))
  .map(([gs, c1, c2, v4]) => {
    const parts = [...gs];
    if (v4 !== null) parts.push(v4);
    let t = parts.join(':');
    for (const c of [c1, c2]) {
      if (c < 0) continue;
      const items = t.split(':');
      const at = Math.min(c, items.length);
      t = [...items.slice(0, at), '', ...items.slice(at)].join(':');
      if (at === 0) t = ':' + t;
      if (at === items.length) t = t + ':';
    }
    return t;
  });
const mutate = (t: fc.Arbitrary<string>) =>
  fc.tuple(t, fc.nat(60), fc.constantFrom('', ':', '.', '0', 'f', 'F', 'x', ' ', 'é', '٣', '\u0131', '::')).map(([s, at, ch]) => {
    const i = at % (s.length + 1);
    return at % 2 === 0 ? s.slice(0, i) + ch + s.slice(i) : s.slice(0, i) + ch + s.slice(i + 1);
  });
const anyText = fc.string({ unit: fc.constantFrom('0', '1', '9', 'a', 'F', ':', '.', 'g', ' ', '2', '5'), maxLength: 50 });
const addressText = fc.oneof(v4Text, v6Text, mutate(v4Text), mutate(v6Text), anyText, addrArb(4), addrArb(6));

describe('address parser', () => {
  test('parseIpWords, parseIp, parseIPv4 and parseIPv6 = the former parser', () => {
    const w = new Int32Array(4);
    let valid = 0;
    fc.assert(
      fc.property(addressText, (text) => {
        const want = oldIp(text);
        const fam = parseIpWords(text, w, 0);
        expect(fam === 0 ? null : { family: fam, bytes: wordsBytes(w, fam) }).toEqual(want);
        const ip = parseIp(text);
        expect(ip === null ? null : { family: ip.family, bytes: [...ip.bytes] }).toEqual(want);
        expect(parseIPv4(text)).toEqual(oldIPv4(text));
        expect(parseIPv6(text)).toEqual(oldIPv6(text));
        if (want) valid++;
      }),
      opts(15_000),
    );
    expect(valid).toBeGreaterThan(2_500);
  });
  test('edge cases', () => {
    for (const t of ['::', '::1', '1::', '::ffff:1.2.3.4', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '1.2.3.4::', ':::', '1:::2', '::1::', '1::2::3', 'fffff::', '::1.2.3.04']) {
      expect([t, parseIp(t)?.bytes ?? null]).toEqual([t, oldIp(t) ? Uint8Array.from(oldIp(t)!.bytes) : null]);
    }
  });
});

// ---- parsing: parsePacketBatch = parseBatch; scanPacketBatch = JSON.parse + parsePacketBatch ----

const NAMES = ['eth0', 'lan', 'wan', 'z"q', 'a\\b', 'zöne', 'z😀', ' ', 'x'.repeat(70)];
const val = {
  ip: fc.oneof(addrArb(4), addrArb(4), addrArb(6), addressText, fc.constantFrom<unknown>(5, null, true, ['1.2.3.4'])),
  protocol: fc.constantFrom<unknown>('tcp', 'udp', 'icmp', 'TCP', 'gre', '', 6, 17, 1, 0, 255, 256, -1, 1.5, '6', null, {}),
  port: fc.oneof(fc.constantFrom<unknown>(0, 1, 80, 443, 65535, 65536, 100000, -1, -0, 1.5, 1e3, '80', null, false), fc.nat(65535)),
  name: fc.constantFrom<unknown>(...NAMES, '', null, 5, true),
};

interface Shape {
  fields: Array<[string, unknown]>;
  notObject: unknown | undefined;
}

/** A packet as ordered [key, value] pairs (random order, optional fields, now and then an unknown
 * key or an invalid value), or something that is not an object. */
const shapeArb: fc.Arbitrary<Shape> = fc
  .record({
    src: val.ip, dst: val.ip, same: fc.boolean(), protocol: val.protocol, dport: val.port, sport: val.port,
    inIf: val.name, sz: val.name, dz: val.name,
    present: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    order: fc.array(fc.nat(), { minLength: 9, maxLength: 9 }),
    bad: fc.nat(40),
    notObject: fc.constantFrom<unknown>(7, 'x', null, [], [1]),
  })
  .map((r) => {
    const all: Array<[string, unknown, boolean]> = [
      ['src-ip', r.src, r.present[0] || r.bad !== 0],
      ['dst-ip', r.same && typeof r.src === 'string' ? r.src : r.dst, r.present[1] || r.bad !== 0],
      ['protocol', r.protocol, r.present[2] || r.bad !== 1],
      ['dst-port', r.dport, r.present[3] || r.bad < 20],
      ['src-port', r.sport, r.present[4] && r.bad < 25],
      ['in-interface', r.inIf, r.present[5] && r.bad < 30],
      ['src-zone', r.sz, r.present[6] && r.bad < 30],
      ['dst-zone', r.dz, r.present[7] && r.bad < 30],
      ['colour', 'red', r.bad === 39],
    ];
    const fields = all.filter((f) => f[2]).map(([k, v], i) => ({ k, v, o: r.order[i] })).sort((a, b) => a.o - b.o).map(({ k, v }): [string, unknown] => [k, v]);
    return { fields, notObject: r.bad === 38 ? r.notObject : undefined };
  });

/** A plainly valid packet: addresses of one family, known protocol, ports, ASCII names. */
const validShapeArb: fc.Arbitrary<Shape> = fc
  .record({
    v6: fc.boolean(), s4: addrArb(4), d4: addrArb(4), s6: addrArb(6), d6: addrArb(6),
    protocol: fc.constantFrom<unknown>('tcp', 'udp', 'icmp', 6, 17, 1, 0, 47, 255),
    dport: fc.nat(65535), sport: fc.option(fc.nat(65535)),
    inIf: fc.option(fc.constantFrom('eth0', 'eth1', 'vl0', '')), sz: fc.option(fc.constantFrom('lan', 'wan', 'z0', '')), dz: fc.option(fc.constantFrom('lan', 'wan')),
  })
  .map((r) => {
    const f: Array<[string, unknown]> = [['src-ip', r.v6 ? r.s6 : r.s4], ['dst-ip', r.v6 ? r.d6 : r.d4], ['protocol', r.protocol], ['dst-port', r.dport]];
    if (r.sport !== null) f.push(['src-port', r.sport]);
    if (r.inIf !== null) f.push(['in-interface', r.inIf]);
    if (r.sz !== null) f.push(['src-zone', r.sz]);
    if (r.dz !== null) f.push(['dst-zone', r.dz]);
    return { fields: f, notObject: undefined };
  });

const toValue = (s: Shape): unknown => (s.notObject !== undefined ? s.notObject : Object.fromEntries(s.fields));

function outcome<T>(fn: () => T): { ok: T } | { error: string; details: string } {
  try {
    return { ok: fn() };
  } catch (e) {
    if (isFwError(e)) return { error: e.code, details: e.details };
    throw e;
  }
}

/** A batch slot as the Packet parsePacket would give (what evaluation reads). */
function slot(b: PacketBatch, i: number): unknown {
  return {
    fam: b.fam[i], words: Array.from(b.words.subarray(i * 8, i * 8 + (b.fam[i] === 4 ? 1 : 8))), protocol: b.protocol[i], dstPort: b.dstPort[i], srcPort: b.srcPort[i],
    inInterface: b.inInterface[i], srcZone: b.srcZone[i], dstZone: b.dstZone[i],
  };
}

function packetSlot(p: Packet): unknown {
  const b = new PacketBatch(1);
  const words = new Int32Array(8);
  parseIpWords(p.srcIp, words, 0);
  parseIpWords(p.dstIp, words, 4);
  b.words.set(words);
  b.fam[0] = p.family;
  b.protocol[0] = p.protocol;
  b.dstPort[0] = p.dstPort;
  b.srcPort[0] = p.srcPort ?? -1;
  b.inInterface[0] = p.inInterface;
  b.srcZone[0] = p.srcZone;
  b.dstZone[0] = p.dstZone;
  return slot(b, 0);
}

function slots(b: PacketBatch): unknown[] {
  return Array.from({ length: b.length }, (_, i) => slot(b, i));
}

describe('parsePacketBatch = parseBatch', () => {
  test('random packets, valid and not: the same packets or the same error', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 1, arbitrary: shapeArb }, { weight: 3, arbitrary: validShapeArb }), { maxLength: 12 }), (shapes) => {
        const body = { packets: shapes.map(toValue) };
        const want = outcome(() => parseBatch(body).map(packetSlot));
        const got = outcome(() => {
          const b = parsePacketBatch(body);
          const s = slots(b);
          releaseBatch(b);
          return s;
        });
        expect(got).toEqual(want);
      }),
      opts(3_000),
    );
  });
  test('the body shape and the size limit', () => {
    const ok = { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp', 'dst-port': 443 };
    for (const body of [undefined, null, [], {}, { packets: {} }, { packets: [], x: 1 }, { packets: new Array(MAX_BATCH + 1).fill(ok) }]) {
      expect(outcome(() => parsePacketBatch(body))).toEqual(outcome(() => parseBatch(body)));
    }
    const b = parsePacketBatch({ packets: new Array(MAX_BATCH).fill(ok) });
    expect(b.length).toBe(MAX_BATCH);
    releaseBatch(b);
  });
});

// JSON text with random formatting
interface Style {
  ws: number[]; // whitespace choices, used round robin
  escape: boolean; // \u escapes and "\/" in strings
  numbers: boolean; // 80 as 80.0, 8e1, 8.0E1
  dupKey: boolean; // a key given twice (JSON.parse keeps the last)
  seed: number;
}

const WS = ['', '', '', ' ', '\n', '\t', '\r\n  '];

function writeJson(v: unknown, st: Style, k = { i: 0 }): string {
  const w = () => WS[st.ws[k.i++ % st.ws.length] % WS.length];
  if (typeof v === 'string') {
    if (!st.escape || v.length === 0) return JSON.stringify(v);
    const c = v.charCodeAt(0);
    return `"\\u${c.toString(16).padStart(4, '0')}${JSON.stringify(v.slice(1)).slice(1, -1).replace(/\./g, '\\u002e')}"`;
  }
  if (typeof v === 'number') {
    if (st.numbers && Number.isInteger(v) && v > 0 && v % 10 === 0) return ['' + v + '.0', `${v / 10}e1`, `${v / 10}.0E1`][k.i++ % 3];
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${w()}${v.map((x) => writeJson(x, st, k)).join(`${w()},${w()}`)}${w()}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    const parts = entries.map(([key, x]) => `${writeJson(key, { ...st, escape: false }, k)}${w()}:${w()}${writeJson(x, st, k)}`);
    if (st.dupKey && entries.length > 0) parts.unshift(`${JSON.stringify(entries[0][0])}:"dup"`);
    return `{${w()}${parts.join(`${w()},${w()}`)}${w()}}`;
  }
  return JSON.stringify(v);
}

const rarely = fc.constantFrom(true, false, false, false);
const styleArb: fc.Arbitrary<Style> = fc.record({
  ws: fc.array(fc.nat(WS.length - 1), { minLength: 1, maxLength: 5 }),
  escape: rarely,
  numbers: rarely,
  dupKey: rarely,
  seed: fc.nat(),
});

/** The slow path the endpoint falls back to: the server's JSON parse, then parsePacketBatch. */
function slowPath(body: Buffer) {
  return outcome(() => {
    const b = parsePacketBatch(parseJsonBody(body));
    const s = slots(b);
    releaseBatch(b);
    return s;
  });
}

function fastPath(body: Buffer): unknown[] | null {
  const b = scanPacketBatch(body);
  if (b === null) return null;
  const s = slots(b);
  releaseBatch(b);
  return s;
}

describe('scanPacketBatch = JSON.parse + parsePacketBatch', () => {
  test('random packets, random formatting: the scanner declines, or gives the same batch', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 1, arbitrary: shapeArb }, { weight: 4, arbitrary: validShapeArb }), { maxLength: 8 }), styleArb, fc.nat(20), (shapes, st, junk) => {
        let text = writeJson({ packets: shapes.map(toValue) }, st);
        if (junk === 0) text += 'x';
        if (junk === 1) text = text.slice(0, -1);
        if (junk === 2) text = text.replace('{', '{"packets":[],');
        if (junk === 3) text = '\ufeff' + text;
        if (junk === 4) text = text.replace('"packets"', '"\\u0070ackets"');
        const body = Buffer.from(text, 'utf8');
        const fast = fastPath(body);
        const slow = slowPath(body);
        if (fast !== null) {
          taken++;
          expect({ text, fast: { ok: fast } }).toEqual({ text, fast: slow });
        }
      }),
      opts(5_000),
    );
    expect(taken).toBeGreaterThan(500);
  });
  test('every plain body of valid packets is taken (JSON.stringify, names without escapes)', () => {
    fc.assert(
      fc.property(fc.array(validShapeArb, { maxLength: 30 }), fc.boolean(), (shapes, pretty) => {
        const body = Buffer.from(JSON.stringify({ packets: shapes.map(toValue) }, null, pretty ? 2 : undefined));
        const fast = fastPath(body);
        expect(fast).not.toBeNull();
        expect({ ok: fast }).toEqual(slowPath(body));
      }),
      opts(2_000),
    );
  });
  test('sizes: empty, one, MAX_BATCH taken; MAX_BATCH + 1 and odd bodies declined', () => {
    const p = '{"src-ip":"::","dst-ip":"::","protocol":0}'; // the shortest packet the scanner takes
    const many = (n: number) => Buffer.from(`{"packets":[${new Array(n).fill(p).join(',')}]}`);
    expect(fastPath(many(0))).toEqual([]);
    expect(fastPath(many(1))).toHaveLength(1);
    expect(fastPath(many(MAX_BATCH))).toHaveLength(MAX_BATCH);
    expect(fastPath(many(MAX_BATCH + 1))).toBeNull();
    expect(slowPath(many(MAX_BATCH + 1))).toEqual({ error: 'ERR_NET_1004', details: 'packets: at most 10000 packets per request' });
    for (const t of ['', ' ', '{}', '[]', 'null', '{"packets":[]}x', '{"packets":[]', '{"packets":[{}]}', '{"packets":[1]}', '{"packets":null}']) {
      const b = Buffer.from(t);
      if (t === '{"packets":[]}x' || t === '{"packets":[]') expect(slowPath(b)).toMatchObject({ error: 'ERR_NET_1004' });
      if (t !== '{"packets":[]}') expect(fastPath(b)).toBeNull();
    }
  });
  test('a key one byte off a field name, at any position of the name or its closing quote: declined, and refused the slow way', () => {
    const packet = { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp', 'dst-port': 1, 'src-port': 2, 'in-interface': 'eth0', 'src-zone': 'lan', 'dst-zone': 'wan' };
    const text = JSON.stringify({ packets: [packet] });
    expect(fastPath(Buffer.from(text))).not.toBeNull();
    let tried = 0;
    for (const field of Object.keys(packet)) {
      const at = text.indexOf(`"${field}"`) + 1;
      for (let k = 0; k <= field.length; k++) {
        // k = field.length changes the closing quote: the key runs on ("src-ipx:...)
        const body = Buffer.from(text);
        body[at + k] = k === field.length ? 0x78 : body[at + k] === 0x78 ? 0x79 : 0x78;
        expect({ key: body.toString('latin1', at - 1, at + field.length + 2), fast: fastPath(body) }).toEqual({ key: body.toString('latin1', at - 1, at + field.length + 2), fast: null });
        expect(slowPath(body)).toMatchObject({ error: expect.stringMatching(/^ERR_NET_100[14]$/) });
        tried++;
      }
    }
    expect(tried).toBe(Object.keys(packet).join('').length + 8);
  });
  test('dotted quads read during the scan: the same words as the parser, near misses left to it, in either field', () => {
    const quadEdges = fc.constantFrom('255.255.255.255', '0.0.0.0', '256.1.1.1', '1.2.3.256', '260.1.1.1', '300.1.1.1', '999.1.1.1', '1234.1.1.1', '01.2.3.4',
      '1.2.3.04', '1.2.3.00', '1.2.3', '1.2.3.4.5', '1.2.3.4.', '.1.2.3.4', '1..2.3', '1.2.3.4:80', '::1.2.3.4', '1.2.3.4a');
    const quadText = fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '6', '9', '.', '.', ':', 'a'), minLength: 1, maxLength: 17 });
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(quadText, addrArb(4), v4Text, mutate(v4Text), quadEdges), fc.boolean(), fc.boolean(), (text, inDst, v6Other) => {
        const other = v6Other ? '::1' : '10.0.0.1';
        const packet = inDst ? { 'src-ip': other, 'dst-ip': text, protocol: 1 } : { 'src-ip': text, 'dst-ip': other, protocol: 1 };
        const body = Buffer.from(JSON.stringify({ packets: [packet, packet] }));
        const fast = fastPath(body);
        const slow = slowPath(body);
        // what the parser takes, the scanner takes; what it refuses, the scanner declines
        expect({ text, fast: fast === null ? null : { ok: fast } }).toEqual({ text, fast: 'ok' in slow ? slow : null });
        if (fast !== null && !v6Other) taken++;
      }),
      opts(5_000),
    );
    expect(taken).toBeGreaterThan(500);
    // a body cut anywhere, the address among the last bytes: declined, never read past the end
    const text = JSON.stringify({ packets: [{ 'src-ip': '1.2.3.4', 'dst-ip': '255.255.255.255', protocol: 1 }] });
    for (let cut = 0; cut < text.length; cut++) expect(fastPath(Buffer.from(text.slice(0, cut)))).toBeNull();
    expect(fastPath(Buffer.from(text))).toEqual([{ fam: 4, words: [0x01020304], protocol: 1, dstPort: 0, srcPort: -1, inInterface: null, srcZone: null, dstZone: null }]);
  });
  test('the usual compact packet, every byte replaced: taken as the parser takes it, or declined', () => {
    // the form the scanner reads as a template, and its near misses: each byte of the second
    // packet (the first and third stay plain) replaced by bytes that keep it JSON or nearly
    const packets = [
      { 'src-ip': '10.1.2.3', 'dst-ip': '192.168.100.200', protocol: 6, 'dst-port': 443 },
      { 'src-ip': '255.255.255.255', 'dst-ip': '0.0.0.0', protocol: 17, 'dst-port': 65535 },
      { 'src-ip': '1.2.3.4', 'dst-ip': '5.6.7.8', protocol: 'icmp', 'dst-port': 0 },
    ];
    const replacements = ['"', ',', ':', '}', '{', ' ', '.', '0', '1', '2', '5', '6', '9', 'x', 'p', '\\'].map((c) => c.charCodeAt(0));
    for (const middle of [packets[1], { ...packets[1], protocol: 'tcp' }, { ...packets[1], protocol: 'udp' }, packets[2]]) {
      const text = JSON.stringify({ packets: [packets[0], middle, packets[2]] });
      const from = text.indexOf('},{') + 2;
      const to = text.indexOf('},{', from) + 1;
      expect(fastPath(Buffer.from(text))).toEqual((slowPath(Buffer.from(text)) as { ok: unknown }).ok);
      let taken = 0;
      for (let at = from; at < to; at++) {
        for (const c of replacements) {
          if (text.charCodeAt(at) === c) continue;
          const body = Buffer.from(text);
          body[at] = c;
          const fast = fastPath(body);
          const slow = slowPath(body);
          expect({ body: body.toString(), fast: fast === null ? null : { ok: fast } }).toEqual({ body: body.toString(), fast: fast === null ? null : slow });
          if (fast !== null) taken++;
        }
      }
      expect(taken).toBeGreaterThan(10); // digits replaced by digits, mostly
    }
  });
  test('names: the same string for the same bytes, many distinct names', () => {
    const names = Array.from({ length: 600 }, (_, i) => `n${i % 300}-${'x'.repeat(i % 7)}`);
    const packets = names.map((n, i) => ({ 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'icmp', 'in-interface': n, 'src-zone': i % 2 ? '' : n, 'dst-zone': i % 3 ? null : 'wan' }));
    const body = Buffer.from(JSON.stringify({ packets }));
    const fast = fastPath(body);
    expect(fast).not.toBeNull();
    expect({ ok: fast }).toEqual(slowPath(body));
  });
});

describe('the batch pool', () => {
  test('a reused batch keeps no names or values of the previous request', () => {
    const named = { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp', 'dst-port': 1, 'src-port': 2, 'in-interface': 'eth0', 'src-zone': 'lan', 'dst-zone': 'wan' };
    const plain = { 'src-ip': '::1', 'dst-ip': '::2', protocol: 'icmp' };
    const a = parsePacketBatch({ packets: new Array(2000).fill(named) });
    releaseBatch(a);
    const b = scanPacketBatch(Buffer.from(JSON.stringify({ packets: new Array(1500).fill(plain) })))!;
    expect(b).toBe(a); // the pooled one
    expect(slots(b)).toEqual(new Array(1500).fill(slot(b, 0)));
    expect(slot(b, 0)).toEqual({ fam: 6, words: [0, 0, 0, 1, 0, 0, 0, 2], protocol: 1, dstPort: 0, srcPort: -1, inInterface: null, srcZone: null, dstZone: null });
    releaseBatch(b);
    releaseBatch(b); // twice is harmless
    const c = takeBatch(3000);
    const d = takeBatch(3000);
    expect(c).not.toBe(d);
    releaseBatch(c);
    releaseBatch(d);
  });
});

// ---- batchJson = JSON.stringify of the answer objects ------------------------------------

/** Names that JSON must escape or encode: quotes, backslashes, controls, non-ASCII. */
const ODD = ['q"uote', 'back\\slash', 'tab\there', 'zöne', 'emoji😀', 'ctl\u0001', '\u2028sep', 'plain'];

function renameZones(doc: ConfigDoc, rename: (z: string) => string): ConfigDoc {
  const zones = new Map([...doc.zones].map(([name, z]) => [rename(name), { ...z, name: rename(name) }]));
  const r = (z: string) => (z === '' ? z : rename(z));
  const rz = (z: ZoneRef) => (typeof z === 'string' ? r(z) : z.map(rename));
  return {
    ...doc,
    zones,
    interfaces: new Map([...doc.interfaces].map(([k, m]) => [k, { ...m, zone: r(m.zone) }])),
    vlans: new Map([...doc.vlans].map(([k, m]) => [k, { ...m, zone: r(m.zone) }])),
    policies: doc.policies.map((p) => ({ ...p, srcZone: rz(p.srcZone), dstZone: rz(p.dstZone) })),
    nat: doc.nat.map((n) => ({ ...n, srcZone: rz(n.srcZone), dstZone: rz(n.dstZone) })),
  };
}

function jsonBatch(cc: CompiledConfig, version: number, packets: Packet[]): string {
  const b = new PacketBatch(packets.length);
  const one = new Int32Array(8);
  packets.forEach((p, i) => {
    parseIpWords(p.srcIp, one, 0);
    parseIpWords(p.dstIp, one, 4);
    b.words.set(one, i * 8);
    b.fam[i] = p.family;
    b.protocol[i] = p.protocol;
    b.dstPort[i] = p.dstPort;
    b.inInterface[i] = p.inInterface;
    b.srcZone[i] = p.srcZone;
    b.dstZone[i] = p.dstZone;
  });
  const json = cc.batchJson(version, cc.evalBatchInto(b, new BatchAnswers(packets.length + 3)));
  const text = json.toString('utf8');
  // given back, as the endpoint does: the next answers are written over this one's bytes
  releaseAnswer(json);
  return text;
}

describe('batchJson = JSON.stringify({version, results})', () => {
  test('random configurations with names to escape, random packets', () => {
    fc.assert(
      fc.property(specArb(LARGE), fc.array(packetArb, { minLength: 0, maxLength: 200 }), fc.nat(1_000_000), (spec, list, version) => {
        const rename = (z: string) => `${ODD[Number(z.slice(1)) % ODD.length]}${z}`;
        const doc = renameZones(specDoc(spec), rename);
        const cc = CompiledConfig.compile(doc);
        const members = specMembers(spec);
        const zone = (z: unknown, keep: string) => (typeof z === 'string' && z !== '' && z !== keep ? rename(z) : z);
        const packets = list
          .map((ps) => packetJson(ps, spec.zones.length, members))
          .map((j) => parsePacket({ ...j, 'src-zone': zone(j['src-zone'], 'nozone'), 'dst-zone': zone(j['dst-zone'], '') }))
          .filter((p) => outcome(() => cc.eval(p)).hasOwnProperty('ok'));
        const results: EvalResult[] = packets.map((p) => cc.eval(p));
        expect(jsonBatch(cc, version, packets)).toBe(JSON.stringify({ version, results }));
        // and the compiled answers are the reference's (names included)
        const ref = new ReferenceEvaluator(doc);
        packets.forEach((p, i) => expect(results[i]).toEqual(ref.eval(p)));
      }),
      opts(60),
    );
  });
  test('every answer shape: masquerade, dnat, no route, default deny, policy with log', () => {
    const doc = mkDoc({
      zones: { 'in"side': [], 'out\\side': ['192.0.2.0/24'] },
      interfaces: { eth0: { ip: '203.0.113.2/24', zone: 'out\\side' }, eth1: { ip: '10.0.0.1/24', zone: 'in"side' }, eth2: { ip: '2001:db8::1/64', zone: 'out\\side' } },
      routes: [{ destination: '0.0.0.0/0', gateway: '203.0.113.1' }],
      addresses: { pub: ['203.0.113.0/28'] },
      services: { https: { protocol: 'tcp', ports: [443] } },
      policies: [
        { action: 'allow', srcZone: 'in"side', dstZone: 'out\\side', log: true },
        { action: 'allow', srcZone: 'out\\side', dstZone: 'in"side' },
        { action: 'deny', srcZone: 'out\\side', dstAddr: 'pub' },
      ],
      nat: [
        { type: 'snat', srcZone: 'in"side', outInterface: 'eth0' },
        { type: 'dnat-port', srcZone: 'out\\side', dstAddr: 'pub', service: 'https', translatedIp: '10.0.0.10', translatedPort: '8443' },
      ],
    });
    const cc = CompiledConfig.compile(doc);
    const packets = [
      { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 }, // masquerade
      { 'src-ip': '198.51.100.7', 'dst-ip': '203.0.113.2', protocol: 'tcp', 'dst-port': 443, 'in-interface': 'eth0' }, // dnat
      // deny by policy (to .9: the firewall's own .2 is judged by the local policies, issue 41)
      { 'src-ip': '198.51.100.7', 'dst-ip': '203.0.113.9', protocol: 'udp', 'dst-port': 53, 'in-interface': 'eth0' },
      { 'src-ip': '2001:db8::5', 'dst-ip': '2001:db9::1', protocol: 'icmp' }, // no route
      { 'src-ip': '10.0.0.5', 'dst-ip': '10.0.0.6', protocol: 'icmp' }, // default deny
      { 'src-ip': '10.0.0.5', 'dst-ip': '2001:db8::9', protocol: 'icmp' },
    ].filter((p) => outcome(() => parsePacket(p)).hasOwnProperty('ok')).map((p) => parsePacket(p));
    const results = packets.map((p) => cc.eval(p));
    expect(results.map((r) => `${r.action}/${r.reason}/${r.nat?.type ?? '-'}`)).toEqual(['allow/policy/snat', 'allow/policy/dnat-port', 'deny/policy/-', 'deny/no-route/-', 'deny/default-deny/-']);
    expect(results[0].nat?.translatedIP).toBe('203.0.113.2');
    expect(jsonBatch(cc, 3, packets)).toBe(JSON.stringify({ version: 3, results }));
    expect(jsonBatch(cc, 0, [])).toBe('{"version":0,"results":[]}');
  });
  test('unknown names: the first offending packet, with its index; in-interface before zones', () => {
    const cc = CompiledConfig.compile(mkDoc({ zones: { lan: [] }, interfaces: { eth0: {} } }));
    const base = { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'icmp' };
    const b = parsePacketBatch({ packets: [base, { ...base, 'src-zone': 'lan' }, { ...base, 'in-interface': 'eth7', 'src-zone': 'nope' }, { ...base, 'dst-zone': 'x' }] });
    expect(outcome(() => cc.evalBatchJson(1, b))).toEqual({ error: 'ERR_NET_2003', details: 'packets[2].in-interface: unknown interface or VLAN "eth7"' });
    expect(outcome(() => cc.evalBatch(parseBatch({ packets: [base, { ...base, 'src-zone': 'lan' }, { ...base, 'in-interface': 'eth7', 'src-zone': 'nope' }] })))).toEqual({ error: 'ERR_NET_2003', details: 'packets[2].in-interface: unknown interface or VLAN "eth7"' });
    releaseBatch(b);
  });
});
