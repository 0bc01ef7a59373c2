// Parsing eval requests: field names, types, ranges, families, and error details that name
// the field (and the packet's index in a batch).
import fc from 'fast-check';
import { formatIp } from '../../src/config/net';
import { MAX_BATCH, parseBatch, parsePacket } from '../../src/eval/packet';
import type { Packet } from '../../src/eval/types';

function errorOf(fn: () => unknown): { code: string; details: string } {
  try {
    fn();
  } catch (e) {
    const { code, details } = e as { code: string; details: string };
    return { code, details };
  }
  throw new Error('no error thrown');
}

const ok = { 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'tcp', 'dst-port': 443 };

describe('parsePacket', () => {
  test('a full packet', () => {
    const p = parsePacket({ ...ok, 'src-port': 5000, 'in-interface': 'eth1', 'src-zone': 'lan', 'dst-zone': 'wan' });
    expect(p).toMatchObject({ family: 4, srcIp: '10.0.0.1', dstIp: '10.0.0.2', protocol: 6, dstPort: 443, srcPort: 5000, inInterface: 'eth1', srcZone: 'lan', dstZone: 'wan' });
    expect(Array.from(p.dst)).toEqual([10, 0, 0, 2]);
  });
  test('protocols by name or number; icmp and others need no port', () => {
    expect(parsePacket({ ...ok, protocol: 'udp' }).protocol).toBe(17);
    expect(parsePacket({ 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 'icmp' })).toMatchObject({ protocol: 1, dstPort: 0 });
    expect(parsePacket({ 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 0 }).protocol).toBe(0);
    expect(parsePacket({ 'src-ip': '10.0.0.1', 'dst-ip': '10.0.0.2', protocol: 255 }).protocol).toBe(255);
    expect(parsePacket({ ...ok, protocol: 6, 'dst-port': 65535 })).toMatchObject({ protocol: 6, dstPort: 65535 });
  });
  test('IPv6 addresses are canonical', () => {
    expect(parsePacket({ ...ok, 'src-ip': '2001:DB8:0:0::1', 'dst-ip': '::ffff:10.0.0.1' })).toMatchObject({ family: 6, srcIp: '2001:db8::1', dstIp: '::ffff:a00:1' });
  });
  test('the address words, bytes and text are the addresses; IPv4 words 1-3 are 0 after an IPv6 packet', () => {
    const words = (p: Packet) => [p.s0, p.s1, p.s2, p.s3, p.d0, p.d1, p.d2, p.d3];
    const v6 = parsePacket({ ...ok, 'src-ip': 'fffe:1:2:3:4:5:6:7', 'dst-ip': '8000::ff' });
    expect(words(v6)).toEqual([0xfffe0001 | 0, 0x20003, 0x40005, 0x60007, 0x80000000 | 0, 0, 0, 0xff]);
    expect(words(parsePacket({ ...ok, 'src-ip': '255.1.2.3' }))).toEqual([0xff010203 | 0, 0, 0, 0, 0x0a000002, 0, 0, 0]);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ minLength: 4, maxLength: 4 }), (a6, a4) => {
        const p6 = parsePacket({ ...ok, 'src-ip': formatIp(6, a6), 'dst-ip': formatIp(6, a6) });
        const p4 = parsePacket({ ...ok, 'src-ip': formatIp(4, a4) });
        const fromBytes = (b: Uint8Array) => Array.from({ length: 4 }, (_, k) => (k * 4 < b.length ? (b[k * 4] << 24) | (b[k * 4 + 1] << 16) | (b[k * 4 + 2] << 8) | b[k * 4 + 3] : 0));
        expect(words(p6)).toEqual([...fromBytes(a6), ...fromBytes(a6)]);
        expect(words(p4)).toEqual([...fromBytes(a4), 0x0a000002, 0, 0, 0]);
        // the bytes and text (computed from the words when first read) are the addresses'
        expect([Array.from(p6.src), Array.from(p6.dst), Array.from(p4.src)]).toEqual([Array.from(a6), Array.from(a6), Array.from(a4)]);
        expect([p6.srcIp, p6.dstIp, p4.srcIp, p4.dstIp]).toEqual([formatIp(6, a6), formatIp(6, a6), formatIp(4, a4), '10.0.0.2']);
      }),
    );
  });
  test('empty or null optional names count as not given', () => {
    expect(parsePacket({ ...ok, 'src-zone': '', 'in-interface': null })).toMatchObject({ srcZone: null, inInterface: null });
  });
  test.each([
    [null, 'ERR_NET_1004', 'body: must be a JSON object'],
    [[ok], 'ERR_NET_1004', 'body: must be a JSON object'],
    [{ ...ok, color: 'red' }, 'ERR_NET_1004', 'color: unknown field'],
    [{ ...ok, 'src-ip': undefined }, 'ERR_NET_1004', 'src-ip: required'],
    [{ ...ok, 'src-ip': 10 }, 'ERR_NET_1004', 'src-ip: must be a string'],
    [{ ...ok, 'src-ip': '10.0.0.256' }, 'ERR_NET_1001', 'src-ip: invalid IP address "10.0.0.256"'],
    [{ ...ok, 'dst-ip': '10.0.0.0/8' }, 'ERR_NET_1001', 'dst-ip: invalid IP address "10.0.0.0/8"'],
    [{ ...ok, 'dst-ip': '::1' }, 'ERR_NET_1001', 'dst-ip: address family differs from src-ip'],
    [{ ...ok, protocol: 'TCP' }, 'ERR_NET_1004', 'protocol: must be a protocol name (tcp, udp, sctp, icmp, icmpv6, gre, ...) or a number 0-255, as an integer or a string'],
    [{ ...ok, protocol: 256 }, 'ERR_NET_1004', 'protocol: must be a protocol name (tcp, udp, sctp, icmp, icmpv6, gre, ...) or a number 0-255, as an integer or a string'],
    [{ ...ok, protocol: undefined }, 'ERR_NET_1004', 'protocol: required'],
    [{ ...ok, 'dst-port': undefined }, 'ERR_NET_1004', 'dst-port: required for tcp and udp'],
    [{ ...ok, 'dst-port': 65536 }, 'ERR_NET_1004', 'dst-port: must be an integer 0-65535'],
    [{ ...ok, 'dst-port': 1.5 }, 'ERR_NET_1004', 'dst-port: must be an integer 0-65535'],
    [{ ...ok, 'dst-port': '80' }, 'ERR_NET_1004', 'dst-port: must be an integer 0-65535'],
    [{ ...ok, 'src-port': -1 }, 'ERR_NET_1004', 'src-port: must be an integer 0-65535'],
    [{ ...ok, 'src-zone': 5 }, 'ERR_NET_1004', 'src-zone: must be a string'],
    [{ ...ok, 'icmp-type': 8 }, 'ERR_NET_1004', 'icmp-type: only an icmp or icmpv6 packet has one'],
    [{ ...ok, protocol: 'icmp', 'icmp-type': 256 }, 'ERR_NET_1004', 'icmp-type: must be an integer 0-255'],
    [{ ...ok, protocol: 58, 'icmp-code': -1 }, 'ERR_NET_1004', 'icmp-code: must be an integer 0-255'],
  ])('%j -> %s %s', (json, code, details) => {
    expect(errorOf(() => parsePacket(json))).toEqual({ code, details });
  });
});

describe('parseBatch', () => {
  test('packets in order', () => {
    expect(parseBatch({ packets: [ok, { ...ok, 'dst-port': 80 }] }).map((p) => p.dstPort)).toEqual([443, 80]);
    expect(parseBatch({ packets: [] })).toEqual([]);
  });
  test('errors name the packet index', () => {
    expect(errorOf(() => parseBatch({ packets: [ok, ok, ok, { ...ok, 'dst-port': -3 }] }))).toEqual({ code: 'ERR_NET_1004', details: 'packets[3].dst-port: must be an integer 0-65535' });
    expect(errorOf(() => parseBatch({ packets: [ok, { ...ok, 'src-ip': 'x' }] }))).toEqual({ code: 'ERR_NET_1001', details: 'packets[1].src-ip: invalid IP address "x"' });
    expect(errorOf(() => parseBatch({ packets: [ok, 7] }))).toEqual({ code: 'ERR_NET_1004', details: 'packets[1]: must be an object' });
  });
  test('the body shape and the size limit', () => {
    expect(errorOf(() => parseBatch({}))).toEqual({ code: 'ERR_NET_1004', details: 'packets: required' });
    expect(errorOf(() => parseBatch({ packets: {} }))).toEqual({ code: 'ERR_NET_1004', details: 'packets: must be an array' });
    expect(errorOf(() => parseBatch({ packets: [], x: 1 }))).toEqual({ code: 'ERR_NET_1004', details: 'x: unknown field' });
    expect(parseBatch({ packets: new Array(MAX_BATCH).fill(ok) })).toHaveLength(MAX_BATCH);
    expect(errorOf(() => parseBatch({ packets: new Array(MAX_BATCH + 1).fill(ok) }))).toEqual({ code: 'ERR_NET_1004', details: 'packets: at most 10000 packets per request' });
  });
});
