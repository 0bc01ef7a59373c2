// Rematch at commit on a real kernel: long-lived TCP connections between two namespaces are
// accepted under one version; GET /api/config/impact names exactly the one the candidate
// denies, the commit cuts it (its conntrack entry deleted, its next packets dropped) while
// the ones still allowed keep flowing, in either direction first. The kernel's own rematch
// (a connection of an older generation meeting the policies at its next packet) is shown on
// entries inserted with an old mark. With FW_SESSION_REMATCH=off an established connection
// outlives the policy that allowed it (the old behaviour, kept on request).
import { expectError, ok, type Client } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';
import type { TcpEnd } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

interface Conn {
  client: TcpEnd;
  server: TcpEnd;
  sport: number;
  dport: number;
}

/** lan (fw1) may reach dmz (fw2) on tcp 7001 (service a), 7002 and 7003 (service b), udp 7004 (u): policy 1. */
async function allowBoth(c: Client): Promise<void> {
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'a', protocol: 'tcp', ports: [7001] }));
  await ok(c.post('/api/services', { name: 'b', protocol: 'tcp', ports: [7002, 7003] }));
  await ok(c.post('/api/services', { name: 'u', protocol: 'udp', ports: [7004] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['a', 'b', 'u'] }));
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

/** A commit that takes service a out of policy 1 (connections to 7002-7004 stay allowed); its answer. */
async function denyA(c: Client, beforeCommit: () => Promise<void> = async () => undefined): Promise<Record<string, string>> {
  await c.begin();
  await ok(c.put('/api/policies/1', { services: ['b', 'u'] }));
  await beforeCommit();
  return (await ok(c.post('/api/config/commit'))).body;
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

    expectError(await ld.client.get('/api/config/impact'), 409, 'ERR_SYS_3001');
    const env = { FWCTL_URL: ld.td.url, FWCTL_TOKEN: ld.client.token };
    expect((await fwctl(['impact'], env)).code).toBe(4); // no session: the 409 as a conflict
    const answer = await denyA(ld.client, async () => {
      // what the commit will do: exactly connection a is cut, by the default deny
      const impact = (await ok(ld.client.get('/api/config/impact'))).body;
      expect(impact.rematch).toBe(true);
      expect(impact.total).toBeGreaterThanOrEqual(3);
      expect(impact.cut.map((s: { original: { 'src-port': number } }) => s.original['src-port'])).toEqual([45001]);
      expect(impact.cut[0]).toEqual(expect.objectContaining({ policy: 1, deniedBy: { policy: null, reason: 'default-deny' } }));
      expect(impact.perPolicy).toEqual([{ policy: null, reason: 'default-deny', connections: 1 }]);
      expect(impact.natChanged).toEqual([]);
      // fwctl impact shows the same, and exits 2 as the commit would cut a connection
      const json = await fwctl(['impact', '--json'], env);
      expect(json.code).toBe(2);
      const live = { age: expect.any(Number), timeout: expect.any(Number) }; // they move between the two requests
      expect(JSON.parse(json.stdout)).toEqual({ ...impact, total: expect.any(Number), cut: [{ ...impact.cut[0], ...live }] });
      const text = await fwctl(['impact'], env);
      expect(text.code).toBe(2);
      const lines = text.stdout.split('\n');
      expect(lines[0]).toMatch(/^running version \d+ -> candidate: \d+ live connections, 1 would be cut, 0 with another NAT \(kept\)$/);
      expect(lines[2]).toMatch(/^id +proto +source +destination +zones +policy +denied-by$/);
      expect(lines[3]).toMatch(/^\d+ +tcp +10\.1\.0\.2:45001 +10\.2\.0\.2:7001 +lan>dmz +1 +default-deny$/);
      expect(lines.slice(5, 7)).toEqual([expect.stringMatching(/^denied-by +connections$/), expect.stringMatching(/^default-deny +1$/)]);
    });
    expect(answer).toEqual(expect.objectContaining({ message: 'commit successful', cut: '1' }));
    // the commit deleted its entry; its next packet is dropped
    expect(entries(ld, a)).toEqual([]);
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

  test('the kernel judges a connection of an older generation at its next packet: re-marked when allowed, cut when denied', async () => {
    const [p1, p2] = ld.lab.peers;
    const server = await ld.lab.agent(p2.ns, [p2.address], [7004, 7009]);
    const client = await ld.lab.agent(p1.ns, [], []);
    // UDP flows the firewall has seen both ways, accepted by "version 0" (mark 0x00100001)
    const insert = (sport: number, dport: number) => {
      const flow = ['-p', 'udp', '-s', p1.address, '-d', p2.address, '--sport', String(sport), '--dport', String(dport)];
      ld.lab.exec(ld.lab.fw, ['conntrack', '-I', ...flow, '-r', p2.address, '-q', p1.address, '--reply-port-src', String(dport), '--reply-port-dst', String(sport), '-t', '120', '-u', 'SEEN_REPLY,ASSURED']);
      ld.lab.exec(ld.lab.fw, ['conntrack', '-U', ...flow, '--mark', String(0x00100001)]); // -I with -u garbles the mark
    };
    const mark = (sport: number) => {
      const line = ld.lab.exec(ld.lab.fw, ['conntrack', '-L', '-p', 'udp', '--orig-port-src', String(sport)]).trim();
      return line === '' ? null : Number(/mark=(\d+)/.exec(line)![1]);
    };
    insert(48004, 7004); // still allowed (service u)
    insert(48009, 7009); // allowed by no policy
    expect([mark(48004), mark(48009)]).toEqual([0x00100001, 0x00100001]);
    client.send([
      { token: 'old-allowed', proto: 'udp', src: p1.address, sport: 48004, dst: p2.address, dport: 7004 },
      { token: 'old-denied', proto: 'udp', src: p1.address, sport: 48009, dst: p2.address, dport: 7009 },
    ]);
    const end = Date.now() + 10000;
    while ((!server.got.has('old-allowed') || mark(48009) !== null) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    const version = (await ok(ld.client.get('/api/status'))).body.version as number;
    expect(server.got.has('old-allowed')).toBe(true);
    expect(mark(48004)).toBe((1 + (version % 4094)) * 2 ** 20 + 1); // this generation, policy 1
    expect(server.got.has('old-denied')).toBe(false);
    expect(mark(48009)).toBeNull(); // marked cut by the kernel, deleted by the data plane
  }, 60000);

  test('the forward chain lets only this version\'s connections through untouched', async () => {
    const version = (await ok(ld.client.get('/api/status'))).body.version as number;
    const chain = (name: string) => ld.lab.exec(ld.lab.fw, ['nft', 'list', 'chain', 'inet', 'fwdaemon', name]);
    const generation = (1 + (version % 4094)) * 2 ** 20;
    // forward first jumps to admit; nft lists `ct mark and 0xfff00000 == G` as a prefix of the mark: G/12
    expect(chain('forward')).toMatch(/policy drop;\s+jump admit\s/);
    expect(chain('admit')).toContain(`ct state established ct mark 0x${generation.toString(16).padStart(8, '0')}/12 accept`);
    expect(chain('admit')).toContain('ct state established ct mark set 0xffffffff');
    // an allow sets its policy's bits and goes to stamp, which adds this version's generation
    expect(ld.lab.exec(ld.lab.fw, ['nft', 'list', 'table', 'inet', 'fwdaemon'])).toContain('ct mark set 0x00000001 goto stamp');
    expect(chain('stamp')).toContain(`ct mark set ct mark | 0x${generation.toString(16).padStart(8, '0')} accept`);
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
    expect(ld.lab.exec(ld.lab.fw, ['nft', 'list', 'chain', 'inet', 'fwdaemon', 'admit'])).toContain('ct state established,related accept');
  }, 90000);
});
