// Real packets across a real kernel firewall: random configurations made through the API are
// committed (FW_DATAPLANE=linux in a namespace of our own), then TCP and UDP packets go from
// every client namespace across the firewall; whether each arrives, and the addresses and
// ports the receiving server sees, must be what POST /api/eval/batch answers for it.
import { rng } from '../../src/eval/prng';
import { ok, type Client } from '../helpers/daemon';
import { fwAddress, type Agent, type Peer } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

const PEERS = 3;
const PORTS = [22, 53, 80, 443, 5000, 5001, 5002, 5003, 8080, 9000];
const VIPS = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
/** the ports of dnat-port services; packets to a VIP mostly use them, so that they match */
const VIP_PORTS = [80, 443];
const CONFIGS = [11, 23, 37, 41, 59];
const PACKETS_PER_CLIENT = 120;

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();

beforeAll(async () => {
  ld = await startLabDaemon(PEERS);
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], PORTS));
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

type Pick = <T>(xs: T[]) => T;

/** A random configuration through the API, on top of the base version; returns the down peer (or 0). */
async function randomConfig(c: Client, peers: Peer[], seed: number, base: number): Promise<number> {
  const r = rng(seed);
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)];
  const maybe = (p: number) => r() < p;
  await c.begin();
  await ok(c.post('/api/config/rollback', { version: base }));
  const zones = ['z1', 'z2', 'z3'];
  for (const z of zones) await ok(c.post('/api/zones', { name: z, type: 'l3' }));
  const down = maybe(0.3) ? pick(peers).index : 0;
  for (const p of peers) {
    await ok(c.put(`/api/interfaces/${p.link}`, { zone: maybe(0.8) ? pick(zones) : '', state: p.index === down ? 'down' : 'up' }));
  }
  for (const z of zones) if (maybe(0.4)) await ok(c.put(`/api/zones/${z}`, { networks: [`172.16.${pick(peers).index}.0/24`] }));
  // routes to the servers behind each peer, in every form; only ever towards the right peer
  for (const p of peers) {
    const form = r();
    const metric = Math.floor(r() * 20);
    if (form < 0.35) await ok(c.post('/api/routes', { destination: `172.16.${p.index}.0/24`, gateway: p.address, metric }));
    else if (form < 0.6) await ok(c.post('/api/routes', { destination: `172.16.${p.index}.0/24`, interface: p.link, metric }));
    else if (form < 0.85) await ok(c.post('/api/routes', { destination: `172.16.${p.index}.0/24`, interface: p.link, gateway: p.address, metric }));
    if (maybe(0.3)) await ok(c.post('/api/routes', { destination: `172.16.${p.index}.0/24`, gateway: p.address, metric: metric + 1 }));
  }
  await ok(c.post('/api/routes', { destination: '192.168.77.0/24', gateway: peers[0].address }));
  const nets = [...peers.flatMap((p) => [`10.${p.index}.0.0/24`, `${p.address}/32`, `172.16.${p.index}.0/24`]), '172.16.0.0/16', '198.51.100.0/24'];
  const addresses = ['a1', 'a2', 'a3', 'a4'];
  for (const a of addresses) await ok(c.post('/api/addresses', { name: a, ips: maybe(0.5) ? [pick(nets)] : [pick(nets), pick(nets)] }));
  const services = ['s1', 's2', 's3', 's4'];
  const portItems = [...PORTS, '5000-5002', '5001-5003', '8000-8100', '20-60'];
  for (const s of services) {
    // two entries are two plain ports (the API refuses overlapping entries)
    const ports = maybe(0.5) ? [pick(portItems)] : [...new Set([pick(PORTS), pick(PORTS)])];
    await ok(c.post('/api/services', { name: s, protocol: pick(['tcp', 'udp']), ports }));
  }
  const optional = (xs: string[], pAny: number) => (maybe(pAny) ? '' : pick(xs));
  const nPolicies = 4 + Math.floor(r() * 6);
  for (let i = 0; i < nPolicies; i++) {
    await ok(c.post('/api/policies', {
      action: maybe(0.65) ? 'allow' : 'deny',
      'src-zone': optional(zones, 0.4), 'dst-zone': optional(zones, 0.4),
      'src-addr': optional(addresses, 0.6), 'dst-addr': optional(addresses, 0.6),
      services: maybe(0.4) ? [] : [...new Set([pick(services), ...(maybe(0.3) ? [pick(services)] : [])])],
      log: maybe(0.3),
    }));
  }
  if (maybe(0.6)) await ok(c.post('/api/policies', { action: 'allow' }));
  const targets = peers.flatMap((p) => [p.address, p.behind]);
  // both dnat kinds in every configuration, among random others, in random order
  const natTypes = ['dnat-port', 'dnat-ip', ...Array.from({ length: Math.floor(r() * 3) }, () => pick(['snat', 'snat', 'dnat-port', 'dnat-ip']))]
    .map((t) => ({ t, k: r() })).sort((a, b) => a.k - b.k).map((x) => x.t);
  for (let i = 0; i < natTypes.length; i++) {
    const type = natTypes[i];
    const srcZone = optional(zones, 0.5);
    if (type === 'snat') {
      await ok(c.post('/api/nat', {
        type, 'src-zone': srcZone, 'out-interface': maybe(0.5) ? pick(peers).link : '',
        'translated-ip': pick(['', '203.0.113.7', fwAddress(pick(peers).index)]),
      }));
      continue;
    }
    const vip = `vip${i}`;
    await ok(c.post('/api/addresses', { name: vip, ips: [pick(VIPS)] }));
    const body: Record<string, string> = { type, 'src-zone': srcZone, 'dst-addr': vip, 'translated-ip': pick(targets) };
    if (type === 'dnat-port') {
      await ok(c.post('/api/services', { name: `dp${i}`, protocol: pick(['tcp', 'udp']), ports: [pick(VIP_PORTS)] }));
      body.service = `dp${i}`;
      body['translated-port'] = String(pick(PORTS));
    }
    await ok(c.post('/api/nat', body));
  }
  const commit = await c.post('/api/config/commit', { description: `random ${seed}` });
  expect({ status: commit.status, body: commit.body }).toEqual({ status: 200, body: expect.objectContaining({ message: 'commit successful' }) });
  return down;
}

let nextPort = 30000;
/** what the delivered packets of all configurations went through, to show the run covers it */
const seen = { snat: 0, dnatPort: 0, dnatIp: 0, routed: 0, tcp: 0, udp: 0, denied: 0 };

function trials(peers: Peer[], seed: number, down: number): Trial[] {
  const r = rng(seed * 7919);
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)];
  const out: Trial[] = [];
  for (const p of peers) {
    if (p.index === down) continue; // nothing arrives on a link that is down
    const dsts = [...peers.filter((q) => q.index !== p.index).flatMap((q) => [q.address, q.behind]), ...VIPS];
    for (let i = 0; i < PACKETS_PER_CLIENT; i++) {
      const sport = nextPort++;
      const dst = pick(dsts);
      const dport = VIPS.includes(dst) && r() < 0.7 ? pick(VIP_PORTS) : pick(PORTS);
      out.push({ from: p.index, token: `t${seed}-${sport}`, proto: pick(['tcp', 'udp']) as 'tcp' | 'udp', src: p.address, sport, dst, dport });
    }
  }
  return out;
}

describe.each(CONFIGS)('random configuration %i', (seed) => {
  test('every packet does in the kernel what POST /api/eval answers', async () => {
    const { client, lab, baseVersion } = ld!;
    const down = await randomConfig(client, lab.peers, seed, baseVersion);
    const all = trials(lab.peers, seed, down);
    const { plan, mismatches } = await sendAndCompare(client, lab.peers, agents, all);
    expect(plan.length).toBeGreaterThan(200);
    expect(plan.some((x) => x.want !== null)).toBe(true);
    expect(plan.some((x) => x.want === null)).toBe(true);
    expect(mismatches).toEqual([]);
    for (const x of plan) {
      if (x.want === null) { seen.denied++; continue; }
      seen[x.t.proto as 'tcp' | 'udp']++;
      if (x.want.dst.startsWith('172.16.')) seen.routed++;
      if (x.a.nat?.type === 'snat') seen.snat++;
      if (x.a.nat?.type === 'dnat-port') seen.dnatPort++;
      if (x.a.nat?.type === 'dnat-ip') seen.dnatIp++;
    }

    // per-policy kernel counters: hit exactly by the policies eval names for these packets
    const used = new Set(plan.filter((x) => x.a.policy).map((x) => x.a.policy!.id));
    const stats = await ok(client.get('/api/policies?stats=true'));
    for (const p of stats.body as Array<{ id: number; hits: { packets: number; bytes: number } }>) {
      expect({ id: p.id, hit: p.hits.packets > 0, bytes: p.hits.bytes >= p.hits.packets * 20 }).toEqual({ id: p.id, hit: used.has(p.id), bytes: true });
    }
    const analysis = await ok(client.get('/api/analysis'));
    expect(analysis.body.neverHit).toEqual((stats.body as Array<{ id: number }>).map((p) => p.id).filter((id) => !used.has(id)));
  }, 120000);
});

test('the configurations above sent packets through every kind of translation and route', () => {
  for (const [kind, n] of Object.entries(seen)) expect({ kind, some: n > 0 }).toEqual({ kind, some: true });
});
