// Differential property tests: on random configurations (zones, interfaces and VLANs up and
// down, routes with equal prefixes and metrics, overlapping IPv4/IPv6 networks, port lists and
// ranges, `any` everywhere) and random packets, the compiled matchers answer exactly what the
// reference evaluator answers (or refuse the packet the same way). fast-check shrinks a
// failure to a minimal configuration and packet list. Random build parameters force deep
// trees, tiny leaves and the entry budget on small rule tables. Each packet list is also sent
// through the batch endpoint's path (body scanned into a PacketBatch, evalBatchJson): its bytes
// must be JSON.stringify({version, results}) of the reference's answers, or the error of the
// first packet the reference refuses, with that packet's index.
import fc from 'fast-check';
import { isFwError } from '../../src/errors';
import { releaseBatch } from '../../src/eval/batch';
import { scanPacketBatch } from '../../src/eval/batch-scan';
import { DEFAULT_BUILD_PARAMS, type BuildParams } from '../../src/eval/classifier';
import { CompiledConfig } from '../../src/eval/compiled';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import type { Evaluator, Packet } from '../../src/eval/types';
import { buildParamsArb as paramsArb, LARGE, packetArb, packetJson, SMALL, specArb, specDoc, specMembers, withoutGroups, type PacketSpec, type RandomSpec } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function outcome(ev: Evaluator, p: Packet): unknown {
  try {
    return ev.eval(p);
  } catch (e) {
    if (isFwError(e)) return { error: e.code, details: e.details };
    throw e;
  }
}


let packets = 0;
let batches = 0;

/** Fails with the packet and both answers when they differ (compared as JSON first: cheap). */
function expectSame(want: unknown, got: unknown, packet: unknown): void {
  if (JSON.stringify(want) !== JSON.stringify(got)) expect({ packet, got }).toEqual({ packet, got: want });
}

function check(spec: RandomSpec, list: PacketSpec[], params: BuildParams): void {
  const doc = specDoc(spec);
  const ref = new ReferenceEvaluator(doc);
  const cc = CompiledConfig.compile(doc, { params });
  const members = specMembers(spec);
  const wants: unknown[] = [];
  for (const ps of list) {
    const p = parsePacket(packetJson(ps, spec.zones.length, members));
    const want = outcome(ref, p);
    expectSame(want, outcome(cc, p), packetJson(ps, spec.zones.length, members));
    wants.push(want);
    packets++;
  }
  checkBatch(cc, list.map((ps) => packetJson(ps, spec.zones.length, members)), wants);
}

/** The batch path on the same packets: the reference's answers as the endpoint's bytes, or the
 * first refusal with its index. */
function checkBatch(cc: CompiledConfig, json: unknown[], wants: unknown[]): void {
  const version = json.length;
  const batch = scanPacketBatch(Buffer.from(JSON.stringify({ packets: json })));
  expect(batch).not.toBeNull(); // the scanner takes every body of these generators
  const firstError = wants.findIndex((w) => (w as { error?: string }).error !== undefined);
  let got: unknown;
  try {
    got = cc.evalBatchJson(version, batch!).toString('utf8');
  } catch (e) {
    if (!isFwError(e)) throw e;
    got = { error: e.code, details: e.details };
  } finally {
    releaseBatch(batch!);
  }
  if (firstError < 0) {
    expect(got).toBe(JSON.stringify({ version, results: wants }));
  } else {
    const w = wants[firstError] as { error: string; details: string };
    expect(got).toEqual({ error: w.error, details: `packets[${firstError}].${w.details}` });
  }
  batches++;
}

/** Runs a property in rounds until `atLeast` packets were compared (each round shrinks on failure). */
function rounds(property: (round: number) => fc.IProperty<[RandomSpec, PacketSpec[], BuildParams]>, runs: number, atLeast: number): void {
  const start = packets;
  for (let round = 0; packets - start < atLeast; round++) {
    fc.assert(property(round), { numRuns: runs, seed: seed === undefined ? undefined : seed + round });
    if (round > 50) throw new Error('the generators produce too few packets');
  }
}

const smallPackets = fc.array(packetArb, { minLength: 1, maxLength: 700, size: 'max' });

describe('compiled matchers = reference evaluator', () => {
  test('small configurations, random build parameters', () => {
    rounds(() => fc.property(specArb(SMALL), smallPackets, paramsArb, check), 100, 70_000);
  });

  test('larger rule tables, default build parameters', () => {
    rounds(() => fc.property(specArb(LARGE), fc.array(packetArb, { minLength: 1, maxLength: 1000, size: 'max' }), fc.constant(DEFAULT_BUILD_PARAMS), check), 20, 20_000);
  });

  test('larger rule tables, tiny leaves', () => {
    rounds(() => fc.property(specArb(LARGE), smallPackets, paramsArb, check), 15, 10_000);
  });

  test('disabled policies and NAT rules (they keep their place, never match)', () => {
    rounds(() => fc.property(specArb(LARGE, { disabled: true }), smallPackets, paramsArb, check), 15, 10_000);
  });

  test('services of every protocol kind: sctp, icmp and icmpv6 with and without type and code, other protocols', () => {
    rounds(() => fc.property(specArb(SMALL, { protocols: true, disabled: true }), smallPackets, paramsArb, check), 60, 30_000);
    rounds(() => fc.property(specArb(LARGE, { protocols: true }), smallPackets, paramsArb, check), 10, 10_000);
  });

  test('source ports (issue 27): services with and without them, in one policy too; packets with and without src-port', () => {
    rounds(() => fc.property(specArb(SMALL, { protocols: true, sports: true, disabled: true }), smallPackets, paramsArb, check), 60, 30_000);
    rounds(() => fc.property(specArb(LARGE, { sports: true }), smallPackets, paramsArb, check), 10, 10_000);
  });

  test('several zones per rule (issue 41): policies and NAT rules over zone lists, beside one-zone and any-zone rules', () => {
    rounds(() => fc.property(specArb(SMALL, { zoneLists: true, disabled: true }), smallPackets, paramsArb, check), 60, 30_000);
    rounds(() => fc.property(specArb(LARGE, { zoneLists: true }), smallPackets, paramsArb, check), 10, 10_000);
  });

  test('at least 100,000 packets were compared, one by one and as batches', () => {
    expect(packets).toBeGreaterThanOrEqual(100_000);
    expect(batches).toBeGreaterThanOrEqual(100);
  });
});

describe('groups', () => {
  // the compiled classifier equals the reference evaluator on documents with nested address
  // and service groups, and both equal the reference evaluator on the same document written
  // without groups (flattened by the test itself)
  function checkGroups(spec: RandomSpec, list: PacketSpec[], params: BuildParams): void {
    check(spec, list, params);
    const doc = specDoc(spec);
    const ref = new ReferenceEvaluator(doc);
    const flat = new ReferenceEvaluator(withoutGroups(doc));
    const members = specMembers(spec);
    for (const ps of list) {
      const p = parsePacket(packetJson(ps, spec.zones.length, members));
      expectSame(outcome(flat, p), outcome(ref, p), packetJson(ps, spec.zones.length, members));
    }
  }
  test('address and service groups, nested, in policies and NAT rules (every protocol kind, disabled rules)', () => {
    rounds(() => fc.property(specArb(SMALL, { groups: true, protocols: true, disabled: true }), smallPackets, paramsArb, checkGroups), 60, 30_000);
    rounds(() => fc.property(specArb(LARGE, { groups: true }), smallPackets, paramsArb, checkGroups), 15, 10_000);
  });
});
