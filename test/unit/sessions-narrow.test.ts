// The pieces that make a session listing cheaper (docs/performance.md, "Session table"), each
// held to the answer of the plain way: the line test of a filter never drops a line the filter
// selects; CompiledConfig.zonesOf gives eval's zones; a shared listing is served within its
// TTL only, and never after an invalidation. (The kernel side of the narrowing, conntrack's
// own options, is tested on a real table in test/dataplane/sessions-narrow.test.ts.)
import { generateConfig, rng } from '../../bench/generate';
import { flows } from '../../bench/session-flows';
import { firstPacket, impactOf, ImpactScan } from '../../src/connections/impact';
import { readOriginal } from '../../src/dataplane/conntrack-first';
import type { NatAnswer } from '../../src/eval/types';
import { parseEntry, type ConnEntry, type Narrowing } from '../../src/dataplane/conntrack';
import { ListingCache } from '../../src/dataplane/conntrack-cache';
import { narrowingOf } from '../../src/connections/narrow';
import { entryMatcher, parseSessionFilter } from '../../src/connections/view';
import { CompiledConfig } from '../../src/eval/compiled';
import { parsePacket } from '../../src/eval/packet';

/** conntrack -L -o extended,id,timestamp lines of random entries around a few prefixes and ports. */
function lines(count: number): string[] {
  const r = rng(5);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
  const v4 = () => `${pick([10, 100, 192])}.${pick([5, 50, 168])}.${pick([0, 5, 7])}.${Math.floor(r() * 255)}`;
  const v6 = () => pick(['fd01::2', 'fd01::10', '2001:db8::5', 'fd02:0:0:1::1']);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const six = r() < 0.2;
    const addr = six ? v6 : v4;
    const proto = pick(six ? ['tcp', 'udp', 'icmpv6'] : ['tcp', 'udp', 'icmp', 'sctp']);
    const num = { tcp: 6, udp: 17, icmp: 1, icmpv6: 58, sctp: 132 }[proto]!;
    const [s, d, rs, rd] = [addr(), addr(), addr(), addr()];
    const state = proto === 'tcp' ? `${pick(['ESTABLISHED', 'SYN_SENT', 'TIME_WAIT'])} ` : proto === 'sctp' ? 'ESTABLISHED ' : '';
    const ports = (a: number, b: number) => (proto.startsWith('icmp') ? `type=8 code=0 id=${a}` : `sport=${a} dport=${b}`);
    const [sp, dp, np] = [pick([443, 4430, 53, 1024]), pick([443, 80, 53]), pick([443, 2000])];
    out.push(`${six ? 'ipv6     10' : 'ipv4     2'} ${proto} ${num} 100 ${state}src=${s} dst=${d} ${ports(sp, dp)} packets=1 bytes=60 `
      + `src=${pick([d, rs])} dst=${pick([s, rd])} ${ports(dp, np)} packets=1 bytes=60 [ASSURED] mark=${pick([0, 0x00200001, 0x00200002, 0xffffffff])} use=1 id=${100 + i}`);
  }
  return out;
}

const FILTERS = [
  'address=10.5.0.0/16', 'address=10.0.0.0/8', 'address=10.5.7.9', 'address=10.5.4.0/22', 'address=192.168.0.0/12', 'address=fd01::/16', 'address=0.0.0.0/0',
  'port=443', 'sport=53', 'dport=80', 'state=established', 'state=time_wait', 'protocol=icmp', 'protocol=17', 'policy=1', 'policy=0',
  'src=10.5.0.1', 'dst=fd01::2', 'id=105', 'protocol=tcp&dport=443&state=established', 'address=100.50.0.0/16&port=2000&src=100.50.5.3',
];

test('a filter\'s line test keeps every line the filter selects, and leaves lines out', () => {
  const all = lines(3000);
  let dropped = 0;
  for (const q of FILTERS) {
    const f = parseSessionFilter(new URLSearchParams(q));
    const n = narrowingOf(f);
    const match = entryMatcher(f, null);
    for (const line of all) {
      const e = parseEntry(line)!;
      const kept = n.families.includes(e.family === 4 ? 'ipv4' : 'ipv6') && (n.line === null || n.line(line));
      if (match(e)) expect([q, kept, line]).toEqual([q, true, line]);
      if (!kept) dropped++;
    }
  }
  expect(dropped).toBeGreaterThan(all.length * 5); // the tests select: most lines of most filters are never parsed
});

test('the narrowing names the options conntrack selects by, and one key per listing', () => {
  const n = (q: string) => narrowingOf(parseSessionFilter(new URLSearchParams(q)));
  expect(n('policy=5').args).toEqual(['--mark', '5/1048575']);
  expect(n('policy=0').args).toEqual([]); // no policy bits: the mark cannot select it
  expect(n('protocol=tcp&sport=1&dport=2&state=established').args).toEqual(['-p', 'tcp', '--sport', '1', '--dport', '2', '--state', 'ESTABLISHED']);
  expect(n('protocol=udp&state=established').args).toEqual(['-p', 'udp']); // --state is tcp's
  expect(n('protocol=99&dport=2').args).toEqual([]);
  expect(n('src=10.0.0.1&dst=10.0.0.2').args).toEqual(['-s', '10.0.0.1', '-d', '10.0.0.2']);
  expect(n('protocol=icmpv6').families).toEqual(['ipv6']);
  expect(n('address=10.0.0.0/8').families).toEqual(['ipv4']);
  expect(n('address=10.0.0.0/8&src=fd00::1').families).toEqual([]);
  expect(n('').key).toBe('');
  expect(n('zone=lan').key).toBe(''); // the zone is the running version's: the whole table
  expect(n('port=1').key).not.toBe(n('port=10').key);
});

test('zonesOf answers the zones eval answers, dnat included', () => {
  const doc = generateConfig({ zones: 12, addresses: 300, services: 40, policies: 600, nat: 30, seed: 3 });
  const compiled = CompiledConfig.compile(doc);
  const r = rng(9);
  const nets = [...doc.zones.values()].flatMap((z) => z.networks).filter((n) => !n.includes(':'));
  const dnats = doc.nat.filter((n) => n.type !== 'snat' && n.translatedIp && !n.translatedIp.includes(':')).map((n) => `${n.translatedIp}/32`);
  expect(dnats.length).toBeGreaterThan(0);
  const host = (net: string) => {
    const [ip] = net.split('/');
    const o = ip.split('.').map(Number);
    return net.endsWith('/32') ? ip : `${o[0]}.${o[1]}.${o[2]}.${1 + Math.floor(r() * 200)}`;
  };
  const pool = [...nets, ...dnats, '8.8.8.0/24', '198.51.100.0/24'];
  const seen = new Set<string>();
  let dnat = 0;
  // packets a dnat rule takes: from the untrust side to its address, on its service
  const dnatPackets = doc.nat.filter((n) => n.type !== 'snat' && n.dstAddr && n.service).flatMap((n) => {
    const svc = doc.services.get(n.service)!;
    const port = Number(String(svc.ports[0]).split('-')[0]);
    return (doc.addresses.get(n.dstAddr)?.ips ?? []).filter((ip) => !ip.includes(':')).map((ip) => ({ dst: ip, protocol: svc.protocol, port }));
  });
  for (let i = 0; i < 5000; i++) {
    const via = i % 2 ? dnatPackets[i % dnatPackets.length] : null;
    const proto = via?.protocol ?? (r() < 0.5 ? 'tcp' : 'udp');
    const src = via ? host('198.51.100.0/24') : host(pool[Math.floor(r() * pool.length)]);
    const p = parsePacket({ 'src-ip': src, 'dst-ip': host(via?.dst ?? pool[Math.floor(r() * pool.length)]), protocol: proto, 'dst-port': via?.port ?? [80, 443, 53, 8080][i % 4] });
    const a = compiled.eval(p);
    const [s, d] = compiled.zonesOf(p);
    expect([compiled.zoneName(s), compiled.zoneName(d)]).toEqual([a.srcZone, a.dstZone]);
    seen.add(`${a.srcZone}>${a.dstZone}`);
    if (a.nat && a.nat.type !== 'snat') dnat++;
  }
  expect(dnat).toBeGreaterThan(10);
  expect(seen.size).toBeGreaterThan(20); // many zone pairs met, not one answer over and over
});

describe('the shared listing', () => {
  const n = (key: string): Narrowing => ({ families: ['ipv4'], args: [], line: null, key });
  const entry = (id: number) => ({ id }) as ConnEntry;
  let now = 0;
  let reads: string[] = [];
  const read = (m: Narrowing) => {
    reads.push(m.key);
    return Promise.resolve([entry(reads.length)]);
  };
  beforeEach(() => {
    now = 1000;
    reads = [];
  });

  test('served within its TTL, read again after it', async () => {
    const c = new ListingCache(1000, () => now);
    const first = await c.get(n('a'), read);
    now += 999;
    expect(await c.get(n('a'), read)).toBe(first);
    now += 1;
    expect(await c.get(n('a'), read)).not.toBe(first);
    expect(reads).toEqual(['a', 'a']);
  });

  test('never after an invalidation (a commit, an end of sessions)', async () => {
    const c = new ListingCache(60_000, () => now);
    const first = await c.get(n('a'), read);
    c.invalidate();
    expect(await c.get(n('a'), read)).not.toBe(first);
    expect(reads).toEqual(['a', 'a']);
  });

  test('the whole table serves every filter; a narrowed listing only its own', async () => {
    const c = new ListingCache(60_000, () => now);
    await c.get(n('b'), read);
    await c.get(n(''), read);
    const whole = await c.get(n(''), read);
    expect(await c.get(n('b'), read)).toBe(whole);
    expect(await c.get(n('c'), read)).toBe(whole);
    expect(reads).toEqual(['b', '']);
  });

  test('requests during a listing share it; a failed one is not served again; TTL 0 never shares', async () => {
    const c = new ListingCache(60_000, () => now);
    let fail = true;
    const flaky = (m: Narrowing) => {
      reads.push(m.key);
      return fail ? Promise.reject(new Error('conntrack failed')) : Promise.resolve([entry(1)]);
    };
    const [a, b] = [c.get(n('a'), flaky), c.get(n('a'), flaky)];
    await expect(a).rejects.toThrow('conntrack failed');
    await expect(b).rejects.toThrow('conntrack failed');
    fail = false;
    await c.get(n('a'), flaky);
    expect(reads).toEqual(['a', 'a']);
    const off = new ListingCache(0, () => now);
    await off.get(n('a'), read);
    await off.get(n('a'), read);
    expect(reads).toEqual(['a', 'a', 'a', 'a']);
  });
});

test('the impact is the same whatever order the kernel lists the connections in', () => {
  const doc = generateConfig({ zones: 10, addresses: 200, services: 30, policies: 400, nat: 20, seed: 4 });
  const running = CompiledConfig.compile(doc);
  const all = flows(doc, running, 3000);
  const entries: ConnEntry[] = all.map((f, i) => {
    const tuple = (src: string, dst: string, sport: number, dport: number) => ({ src, dst, sport, dport, packets: 0, bytes: 0 });
    return {
      id: 1000 + i, family: 4, protocol: f.proto, protonum: f.proto === 'tcp' ? 6 : 17, timeout: 100, state: f.proto === 'tcp' ? 'ESTABLISHED' : null,
      original: tuple(f.src, f.dst, f.sport, f.dport), reply: tuple(f.dst, f.natSport === null ? f.src : '198.51.100.2', f.dport, f.natSport ?? f.sport),
      icmp: null, mark: Number(f.mark), age: null, assured: true, unreplied: false,
    };
  });
  // the candidate denies every other allow policy: many cut, ties in the counts per policy
  const next = structuredClone(doc);
  next.policies.filter((p) => p.action === 'allow').forEach((p, i) => { if (i % 2) p.action = 'deny'; });
  const candidate = CompiledConfig.compile(next);
  const inOrder = impactOf(entries, running, candidate);
  expect(inOrder.cut.length).toBeGreaterThan(100);
  // the batch evaluation answers what eval() answers for each first packet
  const one = entries.map((e) => ({ e, p: firstPacket(e)! }));
  const denied = one.filter(({ p }) => candidate.eval(p).action === 'deny');
  expect(inOrder.cut.map((c) => [Number(c.id), c.deniedBy])).toEqual(denied.map(({ e, p }) => [e.id, { policy: candidate.eval(p).policy?.id ?? null, reason: candidate.eval(p).reason }]));
  const nat = (n: NatAnswer | null) => JSON.stringify(n);
  const changed = one.filter(({ p }) => candidate.eval(p).action !== 'deny' && nat(running.eval(p).nat) !== nat(candidate.eval(p).nat));
  expect(inOrder.natChanged.map((c) => Number(c.id))).toEqual(changed.map(({ e }) => e.id));
  expect(new Set(inOrder.perPolicy.map((p) => p.connections)).size).toBeLessThan(inOrder.perPolicy.length); // ties met
  const r = rng(2);
  const shuffled = [...entries].sort(() => r() - 0.5);
  expect(impactOf(shuffled, running, candidate)).toEqual(inOrder);
  expect(inOrder.cut.map((c) => Number(c.id))).toEqual(inOrder.cut.map((c) => Number(c.id)).sort((a, b) => a - b));
});

const ODD = [
  'ipv4     2 tcp      6 431999 ESTABLISHED src=10.1.0.2 dst=10.2.0.2 sport=47001 dport=7001 packets=3 bytes=172 src=10.2.0.2 dst=10.2.0.1 sport=7001 dport=47001 packets=2 bytes=112 [ASSURED] mark=8388609 delta-time=42 use=1 id=3669766318',
  'ipv4     2 icmp     1 29 src=10.1.0.2 dst=10.2.0.2 type=8 code=0 id=77 src=10.2.0.2 dst=10.1.0.2 type=0 code=0 id=77 mark=0 use=1 id=123',
  'ipv6     10 udp      17 29 src=fd01::2 dst=fd02::2 sport=5000 dport=53 [UNREPLIED] src=fd02::2 dst=fd01::2 sport=53 dport=5000 mark=0 use=1 id=9',
  'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.', '', 'ipv4x 2 tcp', 'ipv4 2 tcp 6', 'ipv4 2 tcp 6 5',
  '  ipv4 2 udp 17 5 src=1.2.3.4 dst=5.6.7.8 sport= dport=0x10 src=5.6.7.8 dst=1.2.3.4 sport=9 dport=+5 zone=3 mark=-1 id=7',
  'ipv4 2 udp 17 5 src=1.2.3.4 dst=5.6.7.8 zone=1 sport=1 dport=2 src=5.6.7.8 dst=1.2.3.4 id=7',
  'ipv4 2 udp 17 5 src= dst=5.6.7.8 sport=1 dport=2 src=5.6.7.8 dst=1.2.3.4 id=7',
  'ipv4 2 udp 17 5 src=1.2.3.4 dst=5.6.7.8 sport=1 dport=2 src= dst=1.2.3.4 id=7',
  'ipv4 2 udp 17 5 src=1.2.3.4 dst=5.6.7.8 sport=1 dport=2 src=5.6.7.8 dst=1.2.3.4 src=9.9.9.9 id=7',
  'ipv4 2 udp 17 5 mark=3 sport=9 src=1.2.3.4 dst=5.6.7.8 dst=6.6.6.6 sport=1 sport=3 dport=2 src=5.6.7.8',
  'ipv6\t 10 sctp 132 5 CLOSED src=::1 dst=::2 sport=1 dport=2 src=::2 dst=::1 sport=2 dport=1 [ASSURED] mark=4294967295 id=1',
  'ipv4 2 tcp 6 5 ESTABLISHED src=1.1.1.1  dst=2.2.2.2 sport=1 dport=2 src=2.2.2.2 dst=1.1.1.1 sport=2 dport=1 id=5',
];

test('readOriginal reads a line\'s original tuple and reply source as parseEntry does, or leaves the line to it', () => {
  let read = 0;
  for (const line of [...lines(3000), ...ODD]) {
    const o = readOriginal(line);
    if (!o) continue;
    read++;
    const e = parseEntry(line);
    const fields = e && { protonum: e.protonum, src: e.original.src, dst: e.original.dst, sport: e.original.sport, dport: e.original.dport, replySrc: e.reply.src, replySport: e.reply.sport };
    expect([line, fields]).toEqual([line, { ...o }]);
  }
  expect(read).toBeGreaterThan(3000); // the usual layout is read, odd lines included
  expect(readOriginal(ODD[9])).toBeNull(); // a key past the tuple's: parseEntry leaves the tuples there
  expect(readOriginal(ODD[12])).toBeNull(); // a third src=
});

test('the impact of conntrack\'s lines is the impact of their entries', () => {
  const doc = generateConfig({ zones: 12, addresses: 300, services: 40, policies: 600, nat: 30, seed: 3 });
  const running = CompiledConfig.compile(doc);
  const next = structuredClone(doc);
  next.policies.forEach((p, i) => { if (i % 3 === 0) p.action = p.action === 'allow' ? 'deny' : 'allow'; });
  next.nat.reverse(); // other NAT answers first
  const candidate = CompiledConfig.compile(next);
  const all = [...lines(3000), ...ODD];
  const entries = all.map(parseEntry).filter((e): e is ConnEntry => e !== null);
  const byEntries = impactOf(entries, running, candidate);
  const scan = new ImpactScan(running, candidate);
  for (const line of all) scan.add(line);
  expect(scan.result()).toEqual(byEntries);
  expect(byEntries.total).toBe(entries.length);
  expect(byEntries.cut.length + byEntries.natChanged.length).toBeGreaterThan(0);
});

test('a zone\'s line test keeps every line whose connection has that zone, and leaves lines out', () => {
  const doc = generateConfig({ zones: 12, addresses: 300, services: 40, policies: 600, nat: 30, seed: 3 });
  const compiled = CompiledConfig.compile(doc);
  const r = rng(12);
  const nets = [...doc.zones.values()].flatMap((z) => z.networks).filter((n) => !n.includes(':'));
  const host = (net: string) => `${net.split('.').slice(0, 3).join('.')}.${1 + Math.floor(r() * 200)}`;
  const all = [...ODD, ...lines(500)];
  for (let i = 0; i < 2000; i++) {
    const [s, d, nat] = [host(nets[Math.floor(r() * nets.length)]), host(nets[Math.floor(r() * nets.length)]), host(nets[Math.floor(r() * nets.length)])];
    const replySrc = i % 3 ? d : nat; // a dnat'ed one: the reply comes from the real destination
    all.push(`ipv4     2 tcp      6 100 ESTABLISHED src=${s} dst=${d} sport=${1024 + i} dport=443 src=${replySrc} dst=${s} sport=${i % 5 ? 443 : 8443} dport=${1024 + i} [ASSURED] mark=0 use=1 id=${i}`);
  }
  let kept = 0;
  let matched = 0;
  for (const zone of [...doc.zones.keys(), 'no-such-zone']) {
    const f = parseSessionFilter(new URLSearchParams({ zone, protocol: 'tcp' }));
    const n = narrowingOf(f, compiled);
    expect(n.key).not.toBe('');
    const match = entryMatcher(f, compiled);
    for (const line of all) {
      const e = parseEntry(line);
      const keep = n.line!(line);
      if (e && match(e)) {
        matched++;
        expect([zone, keep, line]).toEqual([zone, true, line]);
      }
      if (keep) kept++;
    }
  }
  expect(matched).toBeGreaterThan(1000);
  expect(kept).toBeLessThan(all.length * 4); // of 13 zones' passes, most lines left out
});
