// The session table's narrowed listings on a real kernel (docs/performance.md, "Session
// table"): conntrack's own selection (the mark in the kernel, protocol, addresses, ports and
// state in the tool) and the line test give, for every filter, the entries the filter picks
// from the whole table; and a listing shared by the requests after it (FW_SESSION_CACHE_MS)
// is never served after a commit or an end of sessions.
import { ok } from '../helpers/daemon';
import { Host } from '../../src/dataplane/host';
import { byId, listEntries } from '../../src/dataplane/conntrack';
import { narrowingOf } from '../../src/connections/narrow';
import { entryMatcher, parseSessionFilter } from '../../src/connections/view';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
const MARK = (policy: number) => String(0x00200000 + policy); // generation 2, as a commit would stamp it

/** An entry put in the firewall's table by conntrack -I (then its mark: -I with -u garbles it). */
function insert(flow: string[], reply: string[], extra: string[], mark: string): void {
  ld.lab.exec(ld.lab.fw, ['conntrack', '-I', ...flow, ...reply, ...extra, '-t', '600']);
  ld.lab.exec(ld.lab.fw, ['conntrack', '-U', ...flow, '--mark', mark]);
}

function udp(sport: number, dport: number, snat = false): void {
  const [p1, p2] = ld.lab.peers;
  insert(['-p', 'udp', '-s', p1.address, '-d', p2.address, '--sport', String(sport), '--dport', String(dport)],
    ['-r', p2.address, '-q', snat ? '10.2.0.1' : p1.address, '--reply-port-src', String(dport), '--reply-port-dst', String(sport)], ['-u', 'SEEN_REPLY'], MARK(1));
}

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, { FW_SESSION_CACHE_MS: '60000' });
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz' }));
  await c.commit();
  const [p1, p2] = ld.lab.peers;
  const states = ['ESTABLISHED', 'SYN_SENT', 'TIME_WAIT'];
  for (let i = 0; i < 12; i++) {
    const [src, dst] = i % 4 === 3 ? [p2.address, p1.address] : [p1.address, p2.address];
    const sport = 40000 + i;
    const dport = [443, 80, 8443][i % 3];
    insert(['-p', 'tcp', '-s', src, '-d', dst, '--sport', String(sport), '--dport', String(dport)],
      ['-r', dst, '-q', i % 2 ? '10.2.0.1' : src, '--reply-port-src', String(dport), '--reply-port-dst', String(i % 2 ? 1024 + i : sport)],
      ['--state', states[i % 3], '-u', 'SEEN_REPLY,ASSURED'], MARK(1 + (i % 3)));
  }
  for (let i = 0; i < 6; i++) udp(50000 + i, i % 2 ? 53 : 443, i % 2 === 0);
  insert(['-p', 'icmp', '-s', p1.address, '-d', p2.address, '--icmp-type', '8', '--icmp-code', '0', '--icmp-id', '77'],
    [], [], MARK(2)); // the reply tuple conntrack makes itself (with one given it refuses)
  insert(['-p', 'udp', '-s', 'fd01::2', '-d', 'fd02::2', '--sport', '5353', '--dport', '443'],
    ['-r', 'fd02::2', '-q', 'fd01::2', '--reply-port-src', '443', '--reply-port-dst', '5353'], [], MARK(1));
}, 120000);

afterAll(async () => stopLabDaemon(ld));

const FILTERS = [
  'policy=1', 'policy=2', 'policy=0', 'policy=1048577', 'protocol=tcp', 'protocol=udp', 'protocol=icmp', 'protocol=17', 'protocol=icmpv6',
  'protocol=tcp&state=established', 'protocol=tcp&state=syn_sent&dport=80', 'state=time_wait', 'protocol=tcp&sport=40003&dport=443',
  'protocol=udp&dport=53', 'dport=443', 'sport=50002', 'port=1025', 'address=10.1.0.0/24', 'address=10.2.0.1', 'address=10.0.0.0/8',
  'address=fd01::/16', 'address=10.2.0.0/16&port=443', `src=10.1.0.2&dst=10.2.0.2&protocol=tcp`, 'src=fd01::2', 'dst=10.1.0.2&policy=3',
  'protocol=udp&policy=1&address=10.2.0.1',
];

test('every filter selects from the narrowed listing what it selects from the whole table', async () => {
  const host = new Host(ld.lab.fw);
  const whole = await listEntries(host);
  expect(whole.length).toBeGreaterThanOrEqual(20);
  const sizes: number[] = [];
  for (const q of FILTERS) {
    const f = parseSessionFilter(new URLSearchParams(q));
    const pick = entryMatcher(f, null);
    const listed = await listEntries(host, narrowingOf(f));
    const ids = (list: typeof whole) => list.filter(pick).sort(byId).map((e) => e.id);
    expect([q, ids(listed)]).toEqual([q, ids(whole)]);
    sizes.push(ids(whole).length);
    if (q === 'policy=1') expect(listed.length).toBe(ids(whole).length); // the kernel selected by the mark: nothing else came
  }
  expect(sizes.filter((n) => n > 0).length).toBeGreaterThan(FILTERS.length / 2); // the filters select something, not nothing each
}, 60000);

test('a listing is shared by the requests after it, and never served after an end of sessions or a commit', async () => {
  const sports = async () => ((await ok(ld.client.get('/api/sessions?protocol=udp'))).body.sessions as Array<{ original: { 'src-port': number } }>).map((s) => s.original['src-port']);
  const before = await sports();
  expect(before).toContain(50001);
  udp(51000, 53);
  expect(await sports()).toEqual(before); // the same listing, within FW_SESSION_CACHE_MS
  const ended = await ok(ld.client.del('/api/sessions?protocol=udp&sport=50001'));
  expect(ended.body.ended).toBe('1');
  const afterEnd = await sports();
  expect(afterEnd).not.toContain(50001);
  expect(afterEnd).toContain(51000); // read anew: what came since is there too
  udp(51001, 53);
  expect(await sports()).toEqual(afterEnd);
  await ld.client.begin();
  await ok(ld.client.post('/api/addresses', { name: 'narrow-test', ips: ['192.0.2.1'] }));
  await ld.client.commit();
  expect(await sports()).toContain(51001);
}, 60000);
