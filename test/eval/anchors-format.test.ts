// The anchors benchmark (bench/anchors.ts) hands the reference C++ classifiers our rules and
// packets as files: these tests pin that the ClassBench text it writes is exactly what our
// mapping (bench/classbench.ts) read (all five fields: protocols and source port ranges too,
// issue 27), and that packets survive the trace format both ways.
import os from 'node:os';
import path from 'node:path';
import { buildAnchor, classBenchText, readTrace, traceText } from '../../bench/anchors';
import { classBenchDoc, parseClassBench } from '../../bench/classbench';
import { rng } from '../../bench/generate';
import { makePackets } from '../../bench/packets';

const SAMPLE = [
  '@10.1.2.3/32\t192.168.0.0/16\t1024 : 2048\t0 : 1023\t0x06/0xFF\t0x0000/0x0200', // port range from 0: 1; source ports kept
  '@0.0.0.0/0\t10.0.0.0/8\t0 : 65535\t53 : 53\t0x11/0xFF\t0x0000/0x0000',
  '@172.16.5.0/24\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x01/0xFF\t0x0000/0x0000', // icmp
  '@172.16.5.0/24\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x2f/0xFF\t0x0000/0x0000', // gre
  '@0.0.0.0/0\t10.0.0.0/8\t53 : 53\t1024 : 65535\t0x11/0xFF\t0x0000/0x0000', // udp from source port 53
  '@10.1.2.3/32\t10.0.0.0/8\t0 : 65535\t443 : 443\t0x00/0x00\t0x0000/0x0000', // any protocol: ports dropped
  '@10.1.2.3/32\t192.168.0.0/16\t0 : 65535\t22 : 22\t0x06/0xFF\t0x0000/0x0000', // shares both addresses
].join('\n');

describe('anchors: rules and packets as the reference classifiers read them', () => {
  test('the ClassBench text is our mapping of the rules, in order', () => {
    const doc = classBenchDoc(parseClassBench(SAMPLE));
    expect(classBenchText(doc).split('\n')).toEqual([
      '@10.1.2.3/32\t192.168.0.0/16\t1024 : 2048\t1 : 1023\t0x06/0xFF\t0x0000/0x0000',
      '@0.0.0.0/0\t10.0.0.0/8\t0 : 65535\t53 : 53\t0x11/0xFF\t0x0000/0x0000',
      '@172.16.5.0/24\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x01/0xFF\t0x0000/0x0000',
      '@172.16.5.0/24\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x2f/0xFF\t0x0000/0x0000',
      '@0.0.0.0/0\t10.0.0.0/8\t53 : 53\t1024 : 65535\t0x11/0xFF\t0x0000/0x0000',
      '@10.1.2.3/32\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000',
      '@10.1.2.3/32\t192.168.0.0/16\t0 : 65535\t22 : 22\t0x06/0xFF\t0x0000/0x0000',
      '',
    ]);
    expect([...doc.services.values()].slice(0, 4)).toEqual([
      { name: 'tcp-1-1023-from-1024-2048', protocol: 'tcp', ports: ['1-1023'], sourcePorts: ['1024-2048'] },
      { name: 'udp-53', protocol: 'udp', ports: [53] },
      { name: 'icmp', protocol: 'icmp', ports: [] },
      { name: 'gre', protocol: 'gre', ports: [] },
    ]);
    // read back through the mapping, it gives the same configuration
    const again = classBenchDoc(parseClassBench(classBenchText(doc)));
    expect(again.policies).toEqual(doc.policies);
    expect([...again.addresses.values()]).toEqual([...doc.addresses.values()]);
    expect([...again.services.values()]).toEqual([...doc.services.values()]);
  });

  test('a configuration outside the ClassBench form is refused, not approximated', () => {
    const doc = classBenchDoc(parseClassBench(SAMPLE));
    doc.policies[1] = { ...doc.policies[1], srcZone: 'lan' };
    expect(() => classBenchText(doc)).toThrow('policy 2: zones have no ClassBench form');
    const two = classBenchDoc(parseClassBench(SAMPLE));
    two.addresses.get(two.policies[0].srcAddr)!.ips.push('10.9.9.9/32');
    expect(() => classBenchText(two)).toThrow('not one IPv4 CIDR');
  });

  test('packets written as a trace read back to the same words and service keys', () => {
    const doc = classBenchDoc(parseClassBench(SAMPLE));
    const pk = makePackets(doc, 2000, rng(99));
    const back = readTrace(traceText(pk, 0, pk.n));
    expect(back.n).toBe(pk.n);
    let nonTcpUdp = 0;
    for (let i = 0; i < pk.n; i++) {
      expect([back.words[i * 8], back.words[i * 8 + 4], back.key[i], back.sport[i]]).toEqual([pk.words[i * 8], pk.words[i * 8 + 4], pk.key[i], pk.sport[i]]);
      const proto = pk.key[i] >>> 16;
      if (proto !== 6 && proto !== 17) nonTcpUdp++;
    }
    expect(nonTcpUdp).toBeGreaterThan(0); // protocols without ports went through too
    // packets of the rules with source ports carry one of them
    expect([...pk.sport].filter((p) => p === 53).length).toBeGreaterThan(10);
    // the anchor's own traces carry extra columns, and ports on any protocol: our key ignores them
    const own = readTrace('167772161\t3232235777\t1234\t80\t6\t0\t7\n167772161\t3232235777\t1234\t80\t1\t0\t7\n');
    expect([...own.key]).toEqual([(6 << 16) | 80, 1 << 16]);
    expect([...own.sport]).toEqual([1234, 1234]);
    expect(own.words[0] >>> 0).toBe(167772161);
    expect(own.words[8 + 4] >>> 0).toBe(3232235777);
  });

  test('without the anchor sources (or g++ and make) the section says why instead of failing', () => {
    const where = path.join(os.tmpdir(), `fwd-no-anchors-${process.pid}`);
    const r = buildAnchor({ anchorsDir: where, buildDir: path.join(where, 'build'), rounds: 1, packets: 1, sample: 1 });
    expect('missing' in r).toBe(true);
    if ('missing' in r) expect(r.missing).toMatch(/^(no anchor sources in .*fwd-no-anchors-\d+\/tuplemerge|g\+\+.* not found|make not found)$/);
  });
});
