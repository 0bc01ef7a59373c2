// Real packets of the issue-27 protocols across a real kernel firewall (FW_DATAPLANE=linux in
// namespaces of our own): ICMP echo by type, IP protocols by number (raw sockets), and a
// disabled policy that does not match until it is enabled. Each packet arrives exactly when
// POST /api/eval answers allow for it.
import { spawn } from 'node:child_process';
import { ok, type Client } from '../helpers/daemon';
import type { Peer } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon | undefined;

beforeAll(async () => {
  ld = await startLabDaemon(2);
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

// a receiver of one packet of an IP protocol (prints "ready", then the sender's address or
// "none"), and a sender: python3's raw sockets, run inside a peer's namespace
const RECEIVE = [
  'import socket, sys',
  's = socket.socket(socket.AF_INET, socket.SOCK_RAW, int(sys.argv[1]))',
  's.settimeout(float(sys.argv[2]))',
  'print("ready", flush=True)',
  'try:',
  '  data, addr = s.recvfrom(65535)',
  '  print(addr[0], flush=True)',
  'except socket.timeout:',
  '  print("none", flush=True)',
].join('\n');
const SEND = 'import socket, sys\ns = socket.socket(socket.AF_INET, socket.SOCK_RAW, int(sys.argv[1]))\ns.sendto(b"fwd-test", (sys.argv[2], 0))';

/** Whether one packet of IP protocol `proto` from `from` reaches `to`. */
async function rawArrives(from: Peer, to: Peer, proto: number): Promise<boolean> {
  // 8 s: the sender is a python3 of its own, whose start alone took seconds on a loaded machine
  const rx = spawn('ip', ['netns', 'exec', to.ns, 'python3', '-c', RECEIVE, String(proto), '8'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const done = new Promise<void>((resolve) => rx.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    rx.stdout!.on('data', (d: Buffer) => {
      lines.push(...d.toString().trim().split('\n'));
      if (lines.includes('ready')) resolve();
    });
    rx.once('exit', () => reject(new Error(`receiver exited early: ${lines.join(' ')}`)));
  });
  ld!.lab.exec(from.ns, ['python3', '-c', SEND, String(proto), to.address]);
  await done;
  const got = lines.filter((l) => l !== 'ready');
  return got.length === 1 && got[0] === from.address;
}

/** Whether one ICMP echo request from `from` to `to` is answered. */
const pingAnswered = (from: Peer, to: Peer) => ld!.lab.pingAnswered(from, to, 2);

async function evalAllows(c: Client, from: Peer, to: Peer, packet: Record<string, unknown>): Promise<{ allow: boolean; policy: number | null }> {
  const a = (await ok(c.post('/api/eval', { 'src-ip': from.address, 'dst-ip': to.address, 'in-interface': from.link, ...packet }))).body;
  return { allow: a.action === 'allow', policy: a.policy?.id ?? null };
}

test('ICMP echo by type, IP protocols by number, a disabled policy: the kernel does what eval answers', async () => {
  const { client: c, lab } = ld!;
  const [p1, p2] = lab.peers;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'z1', type: 'l3', interfaces: [p1.link] }));
  await ok(c.post('/api/zones', { name: 'z2', type: 'l3', interfaces: [p2.link] }));
  await ok(c.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
  await ok(c.post('/api/services', { name: 'p253', protocol: '253' }));
  await ok(c.post('/api/services', { name: 'p254', protocol: '254' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'z1', 'dst-zone': 'z2', services: ['ping', 'p253'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'z1', 'dst-zone': 'z2', services: ['p254'], name: 'later', disabled: true }));
  await c.commit();

  // p2 -> p1 first: after p1 -> p2, conntrack's generic tracker takes it as the reply of that
  // flow (same addresses and protocol) and lets it through, as a stateful firewall should
  const cases = async () => ({
    p253back: { want: await evalAllows(c, p2, p1, { protocol: 253 }), got: await rawArrives(p2, p1, 253) },
    ping12: { want: await evalAllows(c, p1, p2, { protocol: 'icmp', 'icmp-type': 8 }), got: pingAnswered(p1, p2) },
    ping21: { want: await evalAllows(c, p2, p1, { protocol: 'icmp', 'icmp-type': 8 }), got: pingAnswered(p2, p1) },
    p253: { want: await evalAllows(c, p1, p2, { protocol: 253 }), got: await rawArrives(p1, p2, 253) },
    p254: { want: await evalAllows(c, p1, p2, { protocol: 254 }), got: await rawArrives(p1, p2, 254) },
  });
  const before = await cases();
  for (const [k, v] of Object.entries(before)) expect({ k, arrives: v.got }).toEqual({ k, arrives: v.want.allow });
  // what eval answers is the point of the test: these are its cases
  expect(before.ping12.want).toEqual({ allow: true, policy: 1 });
  expect(before.ping21.want.allow).toBe(false);
  expect(before.p253.want).toEqual({ allow: true, policy: 1 });
  expect(before.p254.want).toEqual({ allow: false, policy: null }); // policy 2 is disabled
  expect(before.p253back.want.allow).toBe(false);

  // enabled, policy 2 takes protocol 254, in the kernel too
  await c.begin();
  await ok(c.put('/api/policies/2', { disabled: false }));
  await c.commit();
  const after = { want: await evalAllows(c, p1, p2, { protocol: 254 }), got: await rawArrives(p1, p2, 254) };
  expect(after).toEqual({ want: { allow: true, policy: 2 }, got: true });
  const hits = (await ok(c.get('/api/policies?stats=true'))).body as Array<{ id: number; hits: { packets: number } }>;
  expect(hits.map((p) => ({ id: p.id, hit: p.hits.packets > 0 }))).toEqual([{ id: 1, hit: true }, { id: 2, hit: true }]);
}, 120000);
