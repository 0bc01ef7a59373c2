// Rematch at commit on a real kernel: long-lived TCP connections between two namespaces are
// accepted under one version; a commit that denies one of them stops it (its next packets are
// dropped and its conntrack entry is deleted) while the one still allowed keeps flowing, in
// either direction first. With FW_SESSION_REMATCH=off an established connection outlives the
// policy that allowed it (the old behaviour, kept on request).
import { ok, type Client } from '../helpers/daemon';
import type { TcpEnd } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

interface Conn {
  client: TcpEnd;
  server: TcpEnd;
  sport: number;
  dport: number;
}

/** lan (fw1) may reach dmz (fw2) on tcp 7001 (service a), 7002 and 7003 (service b): policy 1. */
async function allowBoth(c: Client): Promise<void> {
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['fw1'] }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['fw2'] }));
  await ok(c.post('/api/services', { name: 'a', protocol: 'tcp', ports: [7001] }));
  await ok(c.post('/api/services', { name: 'b', protocol: 'tcp', ports: [7002, 7003] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['a', 'b'] }));
  await c.commit();
}

/** A connection from peer 1 to peer 2's address on `dport`, shown to carry data both ways. */
async function connect(ld: LabDaemon, sport: number, dport: number): Promise<Conn> {
  const [p1, p2] = ld.lab.peers;
  const { client, server } = await ld.lab.tcpConnection({ ns: p1.ns, src: p1.address, sport }, { ns: p2.ns, dst: p2.address, dport });
  client.send(`hello-${dport}`);
  expect(await server.receives(`hello-${dport}`)).toBe(true);
  server.send(`back-${dport}`);
  expect(await client.receives(`back-${dport}`)).toBe(true);
  return { client, server, sport, dport };
}

/** The firewall's conntrack entries of a connection (by its client port), as conntrack prints them. */
function entries(ld: LabDaemon, conn: Conn): string[] {
  const out = ld.lab.exec(ld.lab.fw, ['conntrack', '-L', '-p', 'tcp', '--orig-port-src', String(conn.sport), '--orig-port-dst', String(conn.dport)]);
  return out.split('\n').filter((l) => l.trim() !== '');
}

/** Waits (bounded) until the connection has no conntrack entry left; whether it is gone. */
async function entryGone(ld: LabDaemon, conn: Conn): Promise<boolean> {
  const end = Date.now() + 10000;
  while (entries(ld, conn).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  return entries(ld, conn).length === 0;
}

/** A commit that takes service a out of policy 1: connections to 7002 and 7003 stay allowed. */
async function denyA(c: Client): Promise<void> {
  await c.begin();
  await ok(c.put('/api/policies/1', { services: ['b'] }));
  await c.commit();
}

describe('FW_SESSION_REMATCH on (the default)', () => {
  let ld: LabDaemon;
  beforeAll(async () => {
    ld = await startLabDaemon(2);
  }, 120000);
  afterAll(async () => stopLabDaemon(ld));

  test('a commit that denies a live connection drops its packets and deletes its conntrack entry; an allowed one flows on', async () => {
    await allowBoth(ld.client);
    const a = await connect(ld, 45001, 7001);
    const b = await connect(ld, 45002, 7002);
    const c2 = await connect(ld, 45003, 7003);
    expect(entries(ld, a)).toHaveLength(1);
    expect(entries(ld, a)[0]).toMatch(/mark=\d+/);

    await denyA(ld.client);
    // the denied connection: its next packet is dropped and its entry goes
    a.client.send('after-commit');
    expect(await a.server.receives('after-commit')).toBe(false);
    expect(await entryGone(ld, a)).toBe(true);
    // still nothing gets through on it (its retransmissions are invalid without an entry)
    expect(await a.server.receives('after-commit', 1000)).toBe(false);

    // the allowed ones flow on: b judged again by its client's packet first, c2 by its server's
    b.client.send('b-after');
    expect(await b.server.receives('b-after')).toBe(true);
    c2.server.send('c2-after');
    expect(await c2.client.receives('c2-after')).toBe(true);
    c2.client.send('c2-reply');
    expect(await c2.server.receives('c2-reply')).toBe(true);
    expect(entries(ld, b)).toHaveLength(1);
    expect(entries(ld, c2)).toHaveLength(1);
  }, 90000);

  test('the forward chain lets only this version\'s connections through untouched', async () => {
    const version = (await ok(ld.client.get('/api/status'))).body.version as number;
    const chain = ld.lab.exec(ld.lab.fw, ['nft', 'list', 'chain', 'inet', 'fwdaemon', 'forward']);
    const generation = (1 + (version % 4094)) * 2 ** 20;
    // nft lists `ct mark and 0xfff00000 == G` as a prefix of the mark: G/12
    expect(chain).toContain(`ct state established ct mark 0x${generation.toString(16).padStart(8, '0')}/12 accept`);
    expect(chain).toContain(`ct mark set 0x${(generation + 1).toString(16).padStart(8, '0')} accept`);
    expect(chain).toContain('ct state established ct mark set 0xffffffff');
  });
});

describe('FW_SESSION_REMATCH=off', () => {
  let ld: LabDaemon;
  beforeAll(async () => {
    ld = await startLabDaemon(2, [], 4, { FW_SESSION_REMATCH: 'off' });
  }, 120000);
  afterAll(async () => stopLabDaemon(ld));

  test('an established connection keeps flowing after a commit that denies it', async () => {
    await allowBoth(ld.client);
    const a = await connect(ld, 46001, 7001);
    await denyA(ld.client);
    a.client.send('still-here');
    expect(await a.server.receives('still-here')).toBe(true);
    expect(entries(ld, a)).toHaveLength(1);
    expect(ld.lab.exec(ld.lab.fw, ['nft', 'list', 'chain', 'inet', 'fwdaemon', 'forward'])).toContain('ct state established,related accept');
  }, 90000);
});
