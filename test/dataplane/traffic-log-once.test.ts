// One traffic-log record per connection, whatever the protocol (issue 43 item 11): a connection
// stays `ct state new` until its first reply, so a one-way UDP flow or pings nobody answers
// were a record per packet. Real packets across the lab firewall to an address of the dmz link
// that no host holds (so nothing replies): three datagrams of one UDP flow and three echo
// requests of one ICMP id are one conntrack entry each and must be one record each; an
// answered TCP connection stays one record.
import { spawnSync } from 'node:child_process';
import { ok } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare } from './trials';

/** On the dmz link (10.2.0.0/24), held by no one: the firewall forwards, no answer ever comes. */
const SILENT = '10.2.0.99';
let ld: LabDaemon;
let agents: Agent[] = [];

interface Rec { protocol: string; src: string; dst: string; 'src-port': number | null; 'dst-port': number | null; 'icmp-type': number | null; action: string; policy: number | null }

async function records(): Promise<Rec[]> {
  return ((await ok(ld.client.get('/api/logs/traffic?limit=1000'))).body as { records: Rec[] }).records;
}

/** Waits for `want` records matching `f`, then a second more (what would come later comes then). */
async function settle(f: (r: Rec) => boolean, want: number): Promise<Rec[]> {
  const deadline = Date.now() + 15000;
  let got = (await records()).filter(f);
  while (got.length < want && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 200));
    got = (await records()).filter(f);
  }
  await new Promise((res) => setTimeout(res, 1500));
  return (await records()).filter(f);
}

/** Runs a Python snippet inside peer 1's namespace (raw ICMP and a fixed UDP source port). */
function inPeer1(code: string): void {
  const r = spawnSync('ip', ['netns', 'exec', ld.lab.peers[0].ns, 'python3', '-c', code], { encoding: 'utf8', timeout: 20000 });
  if (r.status !== 0) throw new Error(`python3 in ${ld.lab.peers[0].ns}: ${r.stderr || r.error}`);
}

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, { FW_TRAFFIC_LOG_KEEP: '100' });
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  // one logging policy for every protocol from lan to dmz
  await ok(c.post('/api/policies', { name: 'all-logged', action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', log: true }));
  await c.commit();
}, 120000);

afterAll(async () => {
  for (const a of agents) await a.stop();
  await stopLabDaemon(ld);
});

test('three datagrams of a one-way UDP flow (one conntrack entry) are one record', async () => {
  inPeer1([
    'import socket, time',
    's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
    "s.bind(('0.0.0.0', 43101))",
    `for i in range(3):\n    s.sendto(b'x', ('${SILENT}', 6001)); time.sleep(0.3)`,
  ].join('\n'));
  const mine = await settle((r) => r.protocol === 'udp' && r.dst === SILENT && r['src-port'] === 43101, 1);
  expect(mine).toHaveLength(1);
  expect(mine[0]).toEqual(expect.objectContaining({ action: 'allow', policy: 1, src: ld.lab.peers[0].address, 'dst-port': 6001 }));
}, 60000);

test('three unanswered echo requests of one ICMP id are one record', async () => {
  inPeer1([
    'import socket, struct, time',
    'def csum(b):',
    '    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))',
    '    s = (s >> 16) + (s & 0xffff); s += s >> 16',
    '    return ~s & 0xffff',
    's = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)',
    'for seq in range(1, 4):',
    "    h = struct.pack('!BBHHH', 8, 0, 0, 0x4343, seq) + b'fwdlog00'",
    "    h = struct.pack('!BBHHH', 8, 0, csum(h), 0x4343, seq) + b'fwdlog00'",
    `    s.sendto(h, ('${SILENT}', 0)); time.sleep(0.3)`,
  ].join('\n'));
  const mine = await settle((r) => r.protocol === 'icmp' && r.dst === SILENT, 1);
  expect(mine).toHaveLength(1);
  expect(mine[0]).toEqual(expect.objectContaining({ action: 'allow', policy: 1, 'icmp-type': 8 }));
}, 60000);

test('an answered TCP connection is still one record', async () => {
  const [p1, p2] = ld.lab.peers;
  for (const p of ld.lab.peers) agents.push(await ld.lab.agent(p.ns, [p.address, p.behind], [80]));
  const byIndex = new Map(ld.lab.peers.map((p, i) => [p.index, agents[i]]));
  const r = await sendAndCompare(ld.client, ld.lab.peers, byIndex, [{ from: 1, token: 'once-tcp', proto: 'tcp', src: p1.address, sport: 43201, dst: p2.address, dport: 80 }]);
  expect(r.mismatches).toEqual([]);
  const mine = await settle((x) => x.protocol === 'tcp' && x['src-port'] === 43201, 1);
  expect(mine).toHaveLength(1);
  expect(mine[0]).toEqual(expect.objectContaining({ action: 'allow', policy: 1, dst: p2.address, 'dst-port': 80 }));
}, 60000);
