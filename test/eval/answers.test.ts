// Interned answers (src/eval/answer-slots.ts): eval() returns frozen answers shared between
// calls, and batchJson copies one interned answer per packet. Whatever the order of the
// packets, the answers stay the reference evaluator's: an interned answer is replaced when its
// policy (or deny reason) answers with other zones, route or NAT, within one batch too.
import fc from 'fast-check';
import { isFwError } from '../../src/errors';
import { releaseBatch } from '../../src/eval/batch';
import { CompiledConfig } from '../../src/eval/compiled';
import { parsePacket, parsePacketBatch } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import type { EvalResult, Packet } from '../../src/eval/types';
import { LARGE, mkDoc, packetArb, packetJson, specArb, specDoc, specMembers, type JsonPacket } from './helpers';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

function refuses(ev: { eval(p: Packet): EvalResult }, p: Packet): boolean {
  try {
    ev.eval(p);
    return false;
  } catch (e) {
    if (isFwError(e)) return true;
    throw e;
  }
}

function deepFrozen(a: EvalResult): boolean {
  return Object.isFrozen(a) && [a.route, a.nat, a.policy].every((o) => o === null || Object.isFrozen(o));
}

/** The batch endpoint's path from JSON packets to the answer body. */
function batchBody(cc: CompiledConfig, version: number, packets: JsonPacket[]): string {
  const b = parsePacketBatch({ packets });
  try {
    return cc.evalBatchJson(version, b).toString('utf8');
  } finally {
    releaseBatch(b);
  }
}

test('random configurations, packets in several orders: the reference answers, frozen', () => {
  let compared = 0;
  fc.assert(
    fc.property(specArb(LARGE), fc.array(packetArb, { minLength: 1, maxLength: 120 }), fc.nat(1000), (spec, list, version) => {
      const doc = specDoc(spec);
      const ref = new ReferenceEvaluator(doc);
      const cc = CompiledConfig.compile(doc);
      const members = specMembers(spec);
      const json = list.map((ps) => packetJson(ps, spec.zones.length, members)).filter((j) => !refuses(ref, parsePacket(j)));
      const packets = json.map((j) => parsePacket(j));
      // forward, backward, then interleaved with the list reversed: a policy's interned answer
      // is asked for with its other zones/routes/NAT between two uses
      const order = [...packets.keys(), ...[...packets.keys()].reverse(), ...packets.keys()].concat(packets.flatMap((_, i) => [i, packets.length - 1 - i]));
      for (const i of order) {
        const got = cc.eval(packets[i]);
        expect(got).toEqual(ref.eval(packets[i]));
        expect(deepFrozen(got)).toBe(true);
        compared++;
      }
      // one batch holding every packet twice, the second time in reverse order
      const twice = [...json, ...[...json].reverse()];
      const want = twice.map((j) => ref.eval(parsePacket(j)));
      expect(batchBody(cc, version, twice)).toBe(JSON.stringify({ version, results: want }));
    }),
    { numRuns: 60, seed },
  );
  expect(compared).toBeGreaterThan(1000);
});

describe('one policy, answers that differ in zones, route and NAT', () => {
  const doc = mkDoc({
    zones: { lan: ['10.0.0.0/24'], dmz: ['10.0.1.0/24'], wan: [] },
    interfaces: { eth0: { ip: '203.0.113.2/24', zone: 'wan' }, eth1: { ip: '10.0.0.1/24', zone: 'lan' }, eth2: { ip: '10.0.1.1/24', zone: 'dmz' } },
    routes: [{ destination: '0.0.0.0/0', gateway: '203.0.113.1' }],
    policies: [{ action: 'allow', log: true }],
    nat: [{ type: 'snat', srcZone: 'lan', outInterface: 'eth0' }],
  });
  const cc = CompiledConfig.compile(doc);
  const ref = new ReferenceEvaluator(doc);
  const json: JsonPacket[] = [
    { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'icmp' }, // lan -> wan, masquerade
    { 'src-ip': '10.0.1.5', 'dst-ip': '8.8.8.8', protocol: 'icmp' }, // dmz -> wan, no NAT
    { 'src-ip': '10.0.1.5', 'dst-ip': '8.8.8.8', protocol: 'icmp', 'src-zone': 'wan' }, // only the source zone differs
    { 'src-ip': '10.0.1.5', 'dst-ip': '10.0.0.9', protocol: 'icmp' }, // dmz -> lan
    { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'icmp' }, // the first again
  ];
  const packets = json.map((j) => parsePacket(j));

  test('eval(): the same answer object for the same answer, a new one when a part differs', () => {
    const got = packets.map((p) => cc.eval(p));
    got.forEach((a, i) => expect(a).toEqual(ref.eval(packets[i])));
    expect(got.map((a) => `${a.srcZone}>${a.dstZone} ${a.nat?.translatedIP ?? '-'} ${a.policy?.id}`)).toEqual(['lan>wan 203.0.113.2 1', 'dmz>wan - 1', 'wan>wan - 1', 'dmz>lan - 1', 'lan>wan 203.0.113.2 1']);
    expect(got[1]).not.toBe(got[0]);
    expect(cc.eval(packets[4])).toBe(got[4]); // the same answer as the policy's last one: shared
    expect(got[0].policy).toBe(got[1].policy); // the policy part is built once per rule
    expect(got.every(deepFrozen)).toBe(true);
    // the module is strict: writing a frozen answer throws
    expect(() => ((got[0] as { action: string }).action = 'deny')).toThrow(TypeError);
  });

  test('batchJson: one batch where the policy answers four ways', () => {
    const twice = [...json, ...json];
    expect(batchBody(cc, 7, twice)).toBe(JSON.stringify({ version: 7, results: twice.map((j) => ref.eval(parsePacket(j))) }));
  });
});
