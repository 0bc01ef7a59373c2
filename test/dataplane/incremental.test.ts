// Incremental commits on a real kernel: after the first commit writes the table whole, a
// commit that changes one policy, one address object or the place of one policy changes the
// kernel's table by a few operations in one transaction (the data plane's log of each apply
// says how it went and how many commands its transaction had), the kernel then answers every
// packet as POST /api/eval does, and the table it holds is the table a full write of the
// same version gives (loaded into a scratch namespace and listed: the two listings, counters
// aside, are the same), over random sequences of changes.
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import pino from 'pino';
import { rng } from '../../src/eval/prng';
import { ok, type Client } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, tableListing, type LabDaemon } from './lab-daemon';
import { sendAndCompare, type Trial } from './trials';

const PORTS = [22, 80, 443, 8080];
const POLICIES = 300; // several chains of policies (about 64 each)

let ld: LabDaemon | undefined;
const agents = new Map<number, Agent>();
const applies: Array<{ version: number; nft: string; nftOperations: number }> = [];
const scratch = `fwd-inc-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;

const logs = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      const o = JSON.parse(line) as { msg: string; version: number; nft: string; nftOperations: number };
      if (o.msg === 'nft table applied') applies.push({ version: o.version, nft: o.nft, nftOperations: o.nftOperations });
    }
    done();
  },
});

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, {}, pino({ level: 'info' }, logs));
  for (const p of ld.lab.peers) agents.set(p.index, await ld.lab.agent(p.ns, [p.address, p.behind], PORTS));
  execFileSync('ip', ['netns', 'add', scratch]);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  for (let i = 0; i < 20; i++) await ok(c.post('/api/addresses', { name: `h${i}`, ips: [`172.16.${1 + (i % 2)}.${100 + i}/32`] }));
  await ok(c.post('/api/addresses', { name: 'dmz-server', ips: ['10.2.0.2'] }));
  for (const port of PORTS) await ok(c.post('/api/services', { name: `p${port}`, protocol: 'tcp', ports: [port] }));
  // many policies that no trial packet meets (their addresses send nothing), around the few that decide
  const r = rng(30);
  const operations: Array<{ method: string; path: string; body: Record<string, unknown> }> = Array.from({ length: POLICIES }, (_, i) => ({
    method: 'POST', path: '/api/policies',
    body: i === 150
      ? { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', 'dst-addr': 'dmz-server', services: ['p80', 'p443'] }
      : i === 151
        ? { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'dmz', 'dst-addr': 'dmz-server', services: ['p8080'] }
        : { action: r() < 0.5 ? 'allow' : 'deny', 'src-addr': `h${Math.floor(r() * 20)}`, 'dst-addr': `h${Math.floor(r() * 20)}`, services: [`p${PORTS[Math.floor(r() * 4)]}`] },
  }));
  operations.push({ method: 'POST', path: '/api/policies', body: { action: 'allow', 'src-zone': 'dmz', 'dst-zone': 'lan', services: ['p22'] } });
  await ok(c.post('/api/config/batch', { operations }));
  await c.commit();
}, 180000);

afterAll(async () => {
  try {
    execFileSync('ip', ['netns', 'delete', scratch]);
  } catch {
    // not created
  }
  await stopLabDaemon(ld);
});

/** The running version's listing written whole into the scratch namespace. */
async function fullListing(c: Client): Promise<string> {
  const nft = (await ok(c.get('/api/dataplane/render'))).body.nft as string;
  execFileSync('ip', ['netns', 'exec', scratch, 'nft', '-f', '-'], { input: nft });
  return tableListing(scratch);
}

async function commitAndCheck(c: Client): Promise<{ nft: string; nftOperations: number }> {
  await c.commit();
  const version = (await ok(c.get('/api/status'))).body.version as number;
  const apply = applies.filter((a) => a.version === version).at(-1);
  expect(apply).toBeDefined();
  expect(tableListing(ld!.lab.fw)).toBe(await fullListing(c));
  return apply!;
}

let round = 0;

async function packetsAgree(): Promise<void> {
  const [p1, p2] = ld!.lab.peers;
  round++;
  const trials: Trial[] = [];
  let n = 0;
  for (const port of PORTS) {
    trials.push({ from: 1, proto: 'tcp', src: p1.address, sport: 20000 + (round % 50) * 20 + n, dst: p2.address, dport: port, token: `i${round}-${n++}` });
    trials.push({ from: 2, proto: 'tcp', src: p2.address, sport: 20000 + (round % 50) * 20 + n, dst: p1.address, dport: port, token: `i${round}-${n++}` });
  }
  const { mismatches, plan } = await sendAndCompare(ld!.client, ld!.lab.peers, agents, trials);
  expect(mismatches).toEqual([]);
  // the trials are not all alike: some pass and some do not
  expect(new Set(plan.map((x) => x.want === null)).size).toBe(2);
}

test('one policy, one address, one move: each a few operations, the kernel answers as eval', async () => {
  const c = ld!.client;
  await packetsAgree();
  const full = applies.at(-1)!;
  expect(full.nft).toBe('full');

  // policy 152 (deny 8080 to the dmz server) becomes allow
  await c.begin();
  await ok(c.put('/api/policies/152', { action: 'allow' }));
  const a1 = await commitAndCheck(c);
  expect(a1.nft).toBe('incremental');
  await packetsAgree();

  // the dmz server's address moves: the policies naming it no longer match it
  await c.begin();
  await ok(c.put('/api/addresses/dmz-server', { ips: ['10.2.0.3', '10.2.0.4'] }));
  const a2 = await commitAndCheck(c);
  expect(a2.nft).toBe('incremental');
  await packetsAgree();

  // the dmz->lan ssh rule to the top, the server's address back, and 80/443 denied
  await c.begin();
  await ok(c.put('/api/addresses/dmz-server', { ips: ['10.2.0.2'] }));
  await ok(c.post(`/api/policies/${POLICIES + 1}/move`, { position: 'top' }));
  await ok(c.put('/api/policies/151', { action: 'deny' }));
  const a3 = await commitAndCheck(c);
  expect(a3.nft).toBe('incremental');
  await packetsAgree();

  // a few: a chain or two of ~64 policies, the forward chain's jumps, admit and stamp; the
  // whole table is several hundred lines
  const fullLines = (await ok(c.get('/api/dataplane/render'))).body.nft.split('\n').length;
  for (const a of [a1, a2, a3]) expect(a.nftOperations).toBeLessThan(fullLines / 2);
  expect(fullLines).toBeGreaterThan(POLICIES);
}, 240000);

test('random change sequences: the incremental table is the full table of each version', async () => {
  const c = ld!.client;
  const r = rng(7);
  const pickId = async () => {
    const ids = (await ok(c.get('/api/policies?config=candidate'))).body.map((p: { id: number }) => p.id) as number[];
    return ids[Math.floor(r() * ids.length)];
  };
  for (let round = 0; round < 6; round++) {
    await c.begin();
    for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
      const what = Math.floor(r() * 5);
      if (what === 0) await ok(c.put(`/api/policies/${await pickId()}`, { action: r() < 0.5 ? 'allow' : 'deny' }));
      else if (what === 1) await ok(c.put(`/api/addresses/h${Math.floor(r() * 20)}`, { ips: [`172.16.${1 + Math.floor(r() * 2)}.${Math.floor(r() * 250)}/32`] }));
      else if (what === 2) await ok(c.post(`/api/policies/${await pickId()}/move`, { position: r() < 0.5 ? 'top' : 'bottom' }));
      else if (what === 3) await ok(c.del(`/api/policies/${await pickId()}`));
      else await ok(c.post('/api/policies', { action: 'allow', 'src-addr': `h${Math.floor(r() * 20)}`, services: ['p443'] }));
    }
    const a = await commitAndCheck(c);
    expect(['incremental', 'full']).toContain(a.nft);
  }
  // most of them were incremental (a move to the top or bottom may rewrite much)
  expect(applies.slice(-6).filter((a) => a.nft === 'incremental').length).toBeGreaterThanOrEqual(3);
  await packetsAgree();
}, 300000);

test('a table changed behind the daemon\'s back is written whole at the next commit', async () => {
  const c = ld!.client;
  // someone flushes a chain of ours: the kernel no longer holds the table the daemon applied
  ld!.lab.exec(ld!.lab.fw, ['nft', 'flush', 'chain', 'inet', 'fwdaemon', 'stamp']);
  await c.begin();
  await ok(c.put('/api/policies/152', { action: 'deny' }));
  const a = await commitAndCheck(c);
  expect(a.nft).toBe('full');
  await packetsAgree();
  // and the next small change is incremental again
  await c.begin();
  await ok(c.put('/api/policies/152', { action: 'allow' }));
  expect((await commitAndCheck(c)).nft).toBe('incremental');
}, 120000);
