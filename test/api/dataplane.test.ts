// The data plane over HTTP with FW_DATAPLANE=none (the default): GET /api/dataplane/render for
// the running configuration and the candidate, its status, and what hits and neverHit are
// without a kernel. The kernel itself: test/dataplane/.
import { expectError, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();

test('status names the mode and the version it holds', async () => {
  const s = (await ok(d.client.get('/api/status'))).body;
  expect(s.dataplane).toEqual({ mode: 'none', netns: null, applied_version: s.version, applied_at: expect.any(String), error: null });
});

test('render shows the nft script, ip commands and dnsmasq configuration of running and candidate', async () => {
  const c = d.client;
  await c.begin();
  await ok(c.put('/api/interfaces/eth1', { ip: '10.1.0.1/24', management: ['ssh'] }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', log: true }));
  await ok(c.post('/api/dhcp', { interface: 'eth1', start_ip: '10.1.0.100', end_ip: '10.1.0.150', lease_time: 45 }));
  const running = (await ok(c.get('/api/dataplane/render'))).body;
  const cand = (await ok(c.get('/api/dataplane/render?config=candidate'))).body;
  expect(running.config).toBe('running');
  expect(running.nft).not.toMatch(/policy_/);
  expect(running.dnsmasq).toBe('');
  expect(cand).toEqual(expect.objectContaining({ config: 'candidate', dataplane: 'none', version: running.version }));
  expect(cand.nft).toMatch(/table inet fwdaemon \{/);
  expect(cand.nft).toMatch(/ct original ip saddr 10\.1\.0\.0\/24 ct state new ct label != 127 limit rate \d+\/second burst \d+ packets ct label set 127 log group 100 prefix "fwd policy 1 allow"\n/);
  expect(cand.nft).toMatch(/ct original ip saddr 10\.1\.0\.0\/24 counter name "policy_1" ct mark set 0x[0-9a-f]{8} goto stamp/);
  expect(cand.nft).toMatch(/iifname "eth1" tcp dport 22 accept/);
  expect(cand.ip).toContain('ip address add 10.1.0.1/24 dev eth1 metric 241');
  expect(cand.dnsmasq).toMatch(/dhcp-range=set:pool0,10\.1\.0\.100,10\.1\.0\.150,255\.255\.255\.0,45m/);
  await c.commit();
  expect((await ok(c.get('/api/dataplane/render'))).body.nft).toBe(cand.nft);
  expect((await ok(c.get('/api/status'))).body.dataplane.applied_version).toBe(running.version + 1);
});

test('render refuses a bad ?config and a candidate without a session', async () => {
  expectError(await d.client.get('/api/dataplane/render?config=draft'), 400, 'ERR_NET_1005');
  expectError(await d.client.get('/api/dataplane/render?config=candidate'), 409, 'ERR_SYS_3001');
});

test('without a kernel, hits and neverHit are null; a bad ?stats is refused', async () => {
  const list = (await ok(d.client.get('/api/policies?stats=true'))).body as Array<{ id: number; hits: unknown }>;
  expect(list.length).toBeGreaterThan(0);
  for (const p of list) expect(p.hits).toBeNull();
  expect((await ok(d.client.get('/api/policies?stats=false'))).body[0]).not.toHaveProperty('hits');
  expectError(await d.client.get('/api/policies?stats=yes'), 400, 'ERR_NET_1005');
  expect((await ok(d.client.get('/api/analysis'))).body.neverHit).toBeNull();
});

test('without a kernel the session table is empty; DELETE needs a filter and checks it', async () => {
  expect((await ok(d.client.get('/api/sessions?protocol=tcp'))).body).toEqual({ dataplane: 'none', total: 0, sessions: [], next: null });
  expectError(await d.client.del('/api/sessions'), 400, 'ERR_NET_1004');
  expectError(await d.client.del('/api/sessions?address=not-an-ip'), 400, 'ERR_NET_1001');
  expect((await ok(d.client.del('/api/sessions?port=22'))).body).toEqual({ message: 'sessions ended', ended: '0', selected: '0' });
});

test('impact: without a session 409; with one and no kernel, nothing to cut; the commit answer has no cut field', async () => {
  expectError(await d.client.get('/api/config/impact'), 409, 'ERR_SYS_3001');
  await d.client.begin();
  expect((await ok(d.client.get('/api/config/impact'))).body).toEqual({
    version: expect.any(Number), rematch: true, total: 0, cut: [], natChanged: [], perPolicy: [],
  });
  const r = await ok(d.client.post('/api/config/commit'));
  expect(r.body).not.toHaveProperty('cut');
});

test('without a kernel, hit times are unknown (null) and the unused CSV has its header only', async () => {
  expect((await ok(d.client.get('/api/analysis/hits'))).body).toEqual({ dataplane: 'none', version: expect.any(Number), sampledAt: null, rules: null });
  expect((await ok(d.client.get('/api/analysis/unused?days=30'))).body).toEqual(expect.objectContaining({ days: 30, rules: null }));
  expect((await ok(d.client.get('/api/analysis/unused.csv'))).text).toBe('kind,id,hits,bytes,firstHitAt,lastHitAt\r\n');
  expectError(await d.client.get('/api/analysis/unused?days=0'), 400, 'ERR_NET_1008');
  expectError(await d.client.get('/api/analysis/unused?days=soon'), 400, 'ERR_NET_1004');
  expect((await ok(d.client.post('/api/analysis/hits/reset'))).body).toEqual({ message: 'hits reset' });
});
