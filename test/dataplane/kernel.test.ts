// The Linux data plane on a real kernel (a namespace of our own): management access per link,
// DHCP from dnsmasq to a busybox client, a refused apply that restores the previous state, a
// second commit that removes exactly what it dropped, another owner's table, route and address
// that survive every commit, and the running version enforced again at start.
import { spawnSync } from 'node:child_process';
import { expectError, ok, startTestDaemon, Client, type Res } from '../helpers/daemon';
import { fwAddress, sh, type Agent } from '../helpers/netns';
import { kernelState, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
const foreignTable = `foreign_${process.pid}`;

beforeAll(async () => {
  ld = await startLabDaemon(3, ['fwghost']);
  // another owner's table, route and address on the same kernel
  const fw = ld.lab.fw;
  ld.lab.exec(fw, ['nft', '-f', '-'], `table ip ${foreignTable} {\n chain c {\n  type filter hook forward priority 10; policy accept;\n  counter\n }\n}\n`);
  sh(['ip', '-n', fw, 'address', 'add', '192.0.2.77/32', 'dev', 'lo']);
  sh(['ip', '-n', fw, 'route', 'add', '198.18.0.0/24', 'dev', 'lo', 'proto', 'static']);
}, 120000);

afterAll(async () => {
  // the other owner's things survived every commit of this file
  const fw = ld?.lab.fw;
  try {
    if (fw) {
      expect(ld.lab.exec(fw, ['nft', 'list', 'table', 'ip', foreignTable])).toMatch(/chain c/);
      expect(sh(['ip', '-n', fw, 'route', 'show', '198.18.0.0/24'])).toMatch(/proto static/);
      expect(sh(['ip', '-n', fw, 'address', 'show', 'dev', 'lo'])).toMatch(/192\.0\.2\.77\/32/);
    }
  } finally {
    await stopLabDaemon(ld);
  }
});

async function commit(c: Client): Promise<Res> {
  const r = await c.post('/api/config/commit');
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: expect.objectContaining({ message: 'commit successful' }) });
  return r;
}

function ourRoutes(): string[] {
  return (JSON.parse(sh(['ip', '-n', ld.lab.fw, '-json', 'route', 'show', 'proto', '241'])) as Array<{ dst: string; dev: string }>)
    .map((r) => `${r.dst} ${r.dev}`).sort();
}

function expectForeignIntact(): void {
  expect(ld.lab.exec(ld.lab.fw, ['nft', 'list', 'tables'])).toMatch(new RegExp(`table ip ${foreignTable}`));
  expect(sh(['ip', '-n', ld.lab.fw, 'route', 'show', '198.18.0.0/24'])).toMatch(/proto static/);
}

/** Gives a link back the address its peer uses as gateway; the other owner's things are intact. */
async function setAddressBack(link: string, ip: string): Promise<void> {
  await ld.client.begin();
  await ok(ld.client.put(`/api/interfaces/${link}`, { ip }));
  await commit(ld.client);
  expectForeignIntact();
}

test('status reports the applied version; the nft table holds the policies in order', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['fw1'] }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['fw2'] }));
  await ok(c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80, '8000-8080'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['web'], log: true }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'dmz' }));
  const r = await commit(c);
  const status = (await ok(c.get('/api/status'))).body;
  expect(status.dataplane).toEqual(expect.objectContaining({ mode: 'linux', netns: ld.lab.fw, applied_version: Number(r.body.version), error: null }));
  const table = ld.lab.exec(ld.lab.fw, ['nft', 'list', 'table', 'inet', 'fwdaemon']);
  const allow = table.indexOf('log prefix "fwd policy 1 allow" group 100');
  const deny = table.indexOf('counter name "policy_2" drop');
  expect(allow).toBeGreaterThan(0);
  expect(deny).toBeGreaterThan(allow);
  expectForeignIntact();
});

describe('management access', () => {
  let fwAgent: Agent;
  beforeAll(async () => {
    fwAgent = await ld.lab.agent(ld.lab.fw, ld.lab.peers.map((p) => fwAddress(p.index)), [22, 80, 443]);
  });

  test('ping, ssh, https and http to the firewall are accepted exactly on the links that allow them', async () => {
    const c = ld.client;
    await c.begin();
    await ok(c.put('/api/interfaces/fw1', { management: ['ping', 'ssh'] }));
    await ok(c.put('/api/interfaces/fw2', { management: ['https', 'http'] }));
    await ok(c.put('/api/interfaces/fw3', { management: [] }));
    await commit(c);
    const agents = await Promise.all(ld.lab.peers.map((p) => ld.lab.agent(p.ns, [], [])));
    const want: Record<string, boolean> = {};
    let port = 40000;
    ld.lab.peers.forEach((p, i) => {
      for (const dport of [22, 80, 443]) {
        const token = `m-${p.index}-${dport}`;
        const allowed = (p.index === 1 && dport === 22) || (p.index === 2 && dport !== 22);
        want[token] = allowed;
        agents[i].send([{ token, proto: 'tcp', src: p.address, sport: port++, dst: fwAddress(p.index), dport }]);
      }
    });
    const arrived = () => Object.keys(want).filter((t) => fwAgent.got.has(t));
    const end = Date.now() + 20000;
    while (arrived().length < Object.values(want).filter(Boolean).length && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
    await new Promise((res) => setTimeout(res, 1500));
    const got: Record<string, boolean> = {};
    for (const t of Object.keys(want)) got[t] = fwAgent.got.has(t);
    expect(got).toEqual(want);
    const ping = (i: number) => spawnSync('ip', ['netns', 'exec', ld.lab.peers[i - 1].ns, 'busybox', 'ping', '-c', '1', '-W', '3', fwAddress(i)]).status;
    expect([ping(1), ping(2), ping(3)].map((s) => s === 0)).toEqual([true, false, false]);
    for (const a of agents) a.abort();
  }, 60000);
});

test('a DHCP client in a zone namespace gets an address from the pool, with the lease time in minutes', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.post('/api/dhcp', { interface: 'fw1', start_ip: '10.1.0.100', end_ip: '10.1.0.120', gateway: '10.1.0.1', dns: ['10.1.0.1'], lease_time: 30 }));
  await commit(c);
  const p1 = ld.lab.peers[0];
  const r = spawnSync('ip', ['netns', 'exec', p1.ns, 'busybox', 'udhcpc', '-i', 'eth0', '-n', '-q', '-f', '-s', '/bin/true', '-t', '5', '-T', '2'], { encoding: 'utf8', timeout: 30000 });
  const text = `${r.stdout}${r.stderr}`;
  expect({ status: r.status, text }).toEqual({ status: 0, text: expect.stringMatching(/lease of 10\.1\.0\.1([01]\d|20) obtained from 10\.1\.0\.1, lease time 1800/) });
}, 60000);

test('a refused apply answers with the kernel message, restores the previous state and keeps the running version', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.post('/api/routes', { destination: '172.16.1.0/24', gateway: '10.1.0.2' }));
  await ok(c.post('/api/routes', { destination: '172.16.2.0/24', interface: 'fw2', metric: 7 }));
  await commit(c);
  const before = kernelState(ld.lab.fw);
  const version = (await ok(c.get('/api/status'))).body.version;
  await c.begin();
  await ok(c.put('/api/interfaces/fw1', { ip: '10.1.0.254/24' })); // changed before the failure
  await ok(c.del('/api/routes/1'));
  await ok(c.post('/api/policies', { action: 'allow' }));
  await ok(c.put('/api/interfaces/fwghost', { ip: '10.99.0.1/24' })); // a link this kernel does not have
  const r = expectError(await c.post('/api/config/commit'), 500, 'ERR_SYS_4005');
  expect(r.body.details).toMatch(/Cannot find device "fwghost"/);
  const status = (await ok(c.get('/api/status'))).body;
  expect(status.version).toBe(version);
  expect(status.dataplane.applied_version).toBe(version);
  expect(status.dataplane.error).toMatch(/fwghost/);
  expect(kernelState(ld.lab.fw)).toEqual(before);
  expect((await ok(c.get('/api/config/session'))).body.active).toBe(true); // fix it and commit again
  await ok(c.put('/api/interfaces/fwghost', { ip: '' }));
  await commit(c);
  expect((await ok(c.get('/api/status'))).body.dataplane.error).toBeNull();
  expect(kernelState(ld.lab.fw).addresses).toContain('fw1 10.1.0.254/24');
  await setAddressBack('fw1', '10.1.0.1/24');
});

test('a second commit removes exactly the routes, addresses and rules it dropped', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.post('/api/routes', { destination: '172.16.3.0/24', gateway: '10.1.0.2', metric: 3 }));
  await ok(c.post('/api/routes', { destination: '172.16.30.0/24', interface: 'fw3' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', log: true }));
  await commit(c);
  const policies = (await ok(c.get('/api/policies'))).body as Array<{ id: number }>;
  const dropped = policies[policies.length - 1].id;
  const routes = (await ok(c.get('/api/routes'))).body as Array<{ id: number; destination: string }>;
  const r30 = routes.find((r) => r.destination === '172.16.30.0/24')!.id;
  const before = ourRoutes();
  expect(before).toEqual(expect.arrayContaining(['172.16.3.0/24 fw1', '172.16.30.0/24 fw3']));
  expect(kernelState(ld.lab.fw).addresses).toContain('fw3 10.3.0.1/24');
  await c.begin();
  await ok(c.del(`/api/routes/${r30}`));
  await ok(c.del(`/api/policies/${dropped}`));
  await ok(c.put('/api/interfaces/fw3', { ip: '' }));
  await commit(c);
  expect(ourRoutes()).toEqual(before.filter((r) => r !== '172.16.30.0/24 fw3'));
  const state = kernelState(ld.lab.fw);
  expect(state.addresses.filter((a) => a.startsWith('fw3 '))).toEqual([]);
  expect(state.addresses).toEqual(expect.arrayContaining(['fw1 10.1.0.1/24', 'fw2 10.2.0.1/24', 'lo 192.0.2.77/32']));
  expect(state.rules).not.toMatch(new RegExp(`policy_${dropped}\\b`));
  expect(state.rules).toMatch(/policy_1\b/);
  await setAddressBack('fw3', '10.3.0.1/24');
});

test('VLANs: created as 802.1Q links and removed by the commit that drops them (or refused by a kernel without 802.1Q)', async () => {
  const c = ld.client;
  const fw = ld.lab.fw;
  const probe = spawnSync('ip', ['-n', fw, 'link', 'add', 'link', 'fw1', 'name', 'vprobe', 'type', 'vlan', 'id', '99'], { encoding: 'utf8' });
  if (probe.status === 0) sh(['ip', '-n', fw, 'link', 'delete', 'vprobe']);
  const before = kernelState(fw);
  await c.begin();
  await ok(c.post('/api/vlans', { name: 'fw1.40', id: 40, parent: 'fw1', ip: '10.40.0.1/24' }));
  await ok(c.post('/api/routes', { destination: '172.16.40.0/24', gateway: '10.40.0.9' }));
  if (probe.status !== 0) {
    // this kernel has no 802.1Q support: the commit's checks ask it (kernel-limits.test.ts),
    // so the commit is refused with its message before anything changes
    const r = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
    expect(r.body.details).toContain(probe.stderr.trim().replace(/^Error: |\.$/g, ''));
    expect(kernelState(fw)).toEqual(before);
    await ok(c.post('/api/config/discard'));
    return;
  }
  await commit(c);
  const link = JSON.parse(sh(['ip', '-n', fw, '-json', '-d', 'link', 'show', 'dev', 'fw1.40']))[0];
  expect({ alias: link.ifalias, kind: link.linkinfo.info_kind, id: link.linkinfo.info_data.id }).toEqual({ alias: 'fwd', kind: 'vlan', id: 40 });
  expect(ourRoutes()).toContain('172.16.40.0/24 fw1.40');
  await c.begin();
  await ok(c.del('/api/routes/' + ((await ok(c.get('/api/routes?config=candidate'))).body as Array<{ id: number; destination: string }>).find((r) => r.destination === '172.16.40.0/24')!.id));
  await ok(c.del('/api/vlans/fw1.40'));
  await commit(c);
  expect(kernelState(fw)).toEqual(before);
});

test('validate refuses what the kernel cannot hold: a VLAN name longer than a Linux link name', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.post('/api/vlans', { name: 'vlan-with-a-long-name', id: 41, parent: 'fw2' }));
  const r = expectError(await c.post('/api/config/validate'), 400, 'ERR_SYS_3003');
  expect(r.body.details).toMatch(/link "vlan-with-a-long-name": not a Linux interface name/);
  expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  await ok(c.post('/api/config/discard'));
});

test('at start the daemon enforces the running version before it answers', async () => {
  const fw = ld.lab.fw;
  const expected = kernelState(fw);
  await ld.td.close();
  // the kernel lost our table and routes while the daemon was down
  ld.lab.exec(fw, ['nft', 'delete', 'table', 'inet', 'fwdaemon']);
  sh(['ip', '-n', fw, 'route', 'flush', 'proto', '241']);
  ld.td = await startTestDaemon({ FW_DATAPLANE: 'linux', FW_NETNS: fw, FW_INTERFACES: ld.td.settings.interfaces.join(',') }, ld.td.dir);
  expect(kernelState(fw)).toEqual(expected);
  const c = await new Client(ld.td.url).login();
  const status = (await ok(c.get('/api/status'))).body;
  expect(status.dataplane.applied_version).toBe(status.version);
});
