// Issue 39: the HA pair's document over HTTP: GET/PUT /api/ha into the candidate, its checks
// with the contract's codes, the commit checks that span other objects, diff, export and load
// (older documents load unchanged), audit, and the status and failover of a node without a
// kernel (FW_DATAPLANE=none: disabled, and the failover refused).
import { expectError, expectMessage, ok, refusal, useDaemon } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';

const d = useDaemon({ FW_NODE_ID: 'fw-a' });

/** A valid pair: eth1 LAN and eth0 WAN with a virtual address each, eth2 the sync link. */
function pair(): Record<string, unknown> {
  return {
    enabled: true,
    'sync-interface': 'eth2',
    'advert-interval-ms': 200,
    preempt: true,
    nodes: [
      { node: 'fw-a', priority: 200, addresses: { eth1: ['10.0.0.2/24'], eth0: ['203.0.113.2/24'], eth2: ['192.168.255.1/30'] } },
      { node: 'fw-b', priority: 100, addresses: { eth1: ['10.0.0.3/24'], eth0: ['203.0.113.3/24'], eth2: ['192.168.255.2/30'] } },
    ],
    'virtual-addresses': [
      { interface: 'eth1', vrid: 51, addresses: ['10.0.0.1/24'] },
      { interface: 'eth0', vrid: 52, addresses: ['203.0.113.1/24'] },
    ],
  };
}

/** Zones on the HA links (no shared address: the virtual one counts for the l3 check). */
async function zones(): Promise<void> {
  const c = d.client;
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth0'] }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] }));
  await ok(c.post('/api/routes', { destination: 'default', gateway: '203.0.113.254', interface: 'eth0' }));
}

afterEach(async () => {
  if ((await d.client.get('/api/config/session')).body.active) await d.client.post('/api/config/discard');
});

test('GET /api/ha: the disabled default; PUT needs a session', async () => {
  const r = await ok(d.client.get('/api/ha'));
  expect(r.body).toEqual({ enabled: false, 'sync-interface': '', 'advert-interval-ms': 1000, preempt: true, nodes: [], 'virtual-addresses': [] });
  expectError(await d.client.put('/api/ha', pair()), 409, 'ERR_SYS_3001');
});

test('PUT /api/ha refuses what the contract refuses, with its codes and the field', async () => {
  const c = d.client;
  await c.begin();
  const bad = refusal((b: Record<string, unknown>) => c.put('/api/ha', b));
  const p = pair();
  await bad({ ...p, extra: 1 }, 400, 'ERR_NET_1004', /unknown field "extra"/);
  await bad({ ...p, enabled: 'yes' }, 400, 'ERR_NET_1004', /enabled/);
  await bad({ ...p, 'advert-interval-ms': 99 }, 400, 'ERR_NET_1008', /advert-interval-ms.*100-10000/);
  await bad({ ...p, 'advert-interval-ms': 10_001 }, 400, 'ERR_NET_1008', /advert-interval-ms/);
  const nodes = p.nodes as Array<Record<string, unknown>>;
  await bad({ ...p, nodes: [{ ...nodes[0], priority: 255 }, nodes[1]] }, 400, 'ERR_NET_1008', /nodes\[0\]\.priority.*1-254/);
  await bad({ ...p, nodes: [nodes[0], { ...nodes[1], priority: 200 }] }, 409, 'ERR_NET_2006', /nodes\[1\]\.priority.*distinct/);
  await bad({ ...p, nodes: [nodes[0], { ...nodes[1], node: 'fw-a' }] }, 409, 'ERR_NET_2006', /appears twice/);
  await bad({ ...p, nodes: [nodes[0]] }, 400, 'ERR_NET_1004', /exactly two nodes/);
  await bad({ ...p, 'sync-interface': 'eth9' }, 400, 'ERR_NET_2003', /sync-interface.*eth9/);
  await bad({ ...p, nodes: [{ ...nodes[0], addresses: { eth1: ['10.0.0.2'] } }, nodes[1]] }, 400, 'ERR_NET_1001', /nodes\[0\]\.addresses\.eth1\[0\]/);
  const vips = p['virtual-addresses'] as Array<Record<string, unknown>>;
  await bad({ ...p, 'virtual-addresses': [{ ...vips[0], vrid: 0 }] }, 400, 'ERR_NET_1008', /vrid.*1-255/);
  await bad({ ...p, 'virtual-addresses': [vips[0], { ...vips[1], interface: 'eth1', addresses: ['10.0.0.9/24'], vrid: 51 }] }, 409, 'ERR_NET_2006', /vrid.*51/);
  await bad({ ...p, 'virtual-addresses': [{ ...vips[0], addresses: ['10.9.0.1/24'] }] }, 400, 'ERR_NET_1001', /outside node "fw-a"'s addresses on eth1/);
  await bad({ ...p, 'virtual-addresses': [{ ...vips[0], addresses: ['10.0.0.3/24'] }] }, 409, 'ERR_NET_2006', /node "fw-b"'s own address/);
  await bad({ ...p, 'virtual-addresses': [{ ...vips[0], interface: 'eth2', addresses: ['192.168.255.3/30'] }] }, 400, 'ERR_NET_1004', /sync interface/);
  // nothing of the refusals reached the candidate
  expect((await ok(c.get('/api/ha?config=candidate'))).body.enabled).toBe(false);
  // the same vrid on one link for IPv4 and IPv6 is two VRRPv3 instances: allowed
  const v6 = pair();
  (v6.nodes as Array<{ addresses: Record<string, string[]> }>).forEach((n, i) => n.addresses.eth1.push(`fd00::${i + 2}/64`));
  (v6['virtual-addresses'] as unknown[]).push({ interface: 'eth1', vrid: 51, addresses: ['fd00::1/64'] });
  expectMessage(await c.put('/api/ha', v6), 'ha updated in candidate');
});

test('commit: HA links take no shared address, the sync link no zone; a DHCP pool on an HA link is the pair\'s; then the pair commits, diffs, exports and loads', async () => {
  const c = d.client;
  await c.begin();
  await zones();
  await ok(c.put('/api/interfaces/eth1', { ip: '10.0.0.2/24' }));
  await ok(c.put('/api/zones/lan', { type: 'l3', interfaces: ['eth1', 'eth2'] }));
  expectMessage(await c.put('/api/ha', pair()), 'ha updated in candidate');
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'out-interface': '' }));
  const r = expectError(await c.post('/api/config/commit'), 400, 'ERR_SYS_3003');
  expect(r.body.details).toMatch(/ha: eth1 is an HA link: its shared ip\/addresses are not used/);
  expect(r.body.details).toMatch(/ha: sync interface eth2 carries zone lan/);
  expect(r.body.details).toMatch(/nat 1: a masquerade of an HA pair names its out-interface/);
  await ok(c.put('/api/interfaces/eth1', { ip: '' }));
  await ok(c.put('/api/zones/lan', { type: 'l3', interfaces: ['eth1'] }));
  await ok(c.put('/api/nat/1', { 'out-interface': 'eth0' }));
  // a pool on an HA link is served by the master alone (item 4): its subnet is the virtual address's
  await ok(c.post('/api/dhcp', { interface: 'eth1', start_ip: '10.0.0.100', end_ip: '10.0.0.120', gateway: '10.0.0.1' }));
  // a translation to a node's own address warns: it fails over to nothing
  await ok(c.post('/api/nat', { type: 'snat', 'src-zone': 'lan', 'dst-zone': 'wan', 'translated-ip': '203.0.113.2', 'out-interface': 'eth0' }));
  const diff = await ok(c.get('/api/config/diff'));
  expect(diff.body.added).toEqual(expect.arrayContaining([{ kind: 'ha', key: 'ha' }]));
  const v = await ok(c.post('/api/config/validate'));
  expect(JSON.stringify(v.body)).toMatch(/nat 2: translated-ip 203\.0\.113\.2 is node fw-a's own address/);
  await c.commit();
  const running = await ok(c.get('/api/ha'));
  expect(running.body).toEqual(pair());
  const audit = await ok(c.get('/api/audit?limit=50'));
  expect(JSON.stringify(audit.body)).toMatch(/change\.update[^}]*ha/);

  // export holds the pair; a load of it replaces the candidate with the same pair
  const exported = (await ok(c.get('/api/config/export'))).body;
  expect(exported.ha).toEqual(pair());
  await c.begin();
  await ok(c.put('/api/config/candidate?mode=replace', { ...exported, ha: { ...exported.ha, 'advert-interval-ms': 500 } }));
  expect((await ok(c.get('/api/ha?config=candidate'))).body['advert-interval-ms']).toBe(500);
  const changed = await ok(c.get('/api/config/diff'));
  expect(changed.body.changed).toEqual([expect.objectContaining({ kind: 'ha', key: 'ha' })]);
  // a document without `ha` (older ones) loads: replace removes the pair, and the commit refuses
  // nothing about HA any more (the links have no address then: the l3 zones say so)
  const { ha: _ha, ...older } = exported;
  await ok(c.put('/api/config/candidate?mode=merge', older));
  expect((await ok(c.get('/api/ha?config=candidate'))).body['advert-interval-ms']).toBe(500);
  await ok(c.put('/api/config/candidate?mode=replace', older));
  expect((await ok(c.get('/api/ha?config=candidate'))).body.enabled).toBe(false);
  // a bad ha in a loaded document is placed
  const lr = expectError(await c.put('/api/config/candidate?mode=replace', { ...exported, ha: { ...exported.ha, 'advert-interval-ms': 5 } }), 400, 'ERR_NET_1008');
  expect(lr.body.details).toMatch(/^ha\.advert-interval-ms: 5 is not within 100-10000/m);
});

test('status without a kernel is disabled, failover is refused', async () => {
  const s = await ok(d.client.get('/api/ha/status'));
  expect(s.body).toMatchObject({ node: 'fw-a', enabled: true, state: 'disabled', peer: { node: 'fw-b', priority: 100, last_advert: null } });
  expect(s.body.virtual_addresses).toEqual([
    { interface: 'eth1', vrid: 51, address: '10.0.0.1/24', held: false },
    { interface: 'eth0', vrid: 52, address: '203.0.113.1/24', held: false },
  ]);
  expectError(await d.client.post('/api/ha/failover'), 409, 'ERR_SYS_3005');
  expectError(await d.client.post('/api/ha/failover', { action: 'sideways' }), 400, 'ERR_NET_1005');
  expectError(await d.client.get('/api/ha/status?node=nope'), 404, 'ERR_NET_1003');
  // fwctl ha: the same status, and the same refusal
  const env = { FWCTL_URL: d.url, FWCTL_TOKEN: d.client.token };
  const st = await fwctl(['ha'], env);
  expect({ code: st.code, out: st.stdout }).toEqual({ code: 0, out: expect.stringMatching(/^node fw-a: disabled[\s\S]*peer: fw-b \(priority 100\)[\s\S]*eth0\s+52\s+203\.0\.113\.1\/24\s+no/) });
  const js = await fwctl(['ha', 'status', '--json'], env);
  expect(JSON.parse(js.stdout)).toEqual(s.body);
  const fo = await fwctl(['ha', 'failover'], env);
  expect(fo.code).not.toBe(0);
  expect(fo.stderr).toMatch(/not a member of an enabled HA pair/);
  const bad = await fwctl(['ha', 'sideways'], env);
  expect({ code: bad.code, err: bad.stderr }).toEqual({ code: 64, err: expect.stringMatching(/unknown action "sideways"/) });
});
