// Issue 32, point 5: GET /api/dhcp/leases lists what dnsmasq handed out, per pool (address,
// MAC, host name, expiry), read from its lease file; fwctl leases prints it. A real busybox
// DHCP client in a namespace behind the firewall takes the lease.
import { spawnSync } from 'node:child_process';
import { ok } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';
import { sh } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon | undefined;

beforeAll(async () => {
  ld = await startLabDaemon(2);
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

test('a lease taken by a real client is listed under its pool, by the API and by fwctl', async () => {
  const { client: c, lab } = ld!;
  await c.begin();
  await ok(c.post('/api/dhcp', { interface: 'fw1', start_ip: '10.1.0.100', end_ip: '10.1.0.120', gateway: '10.1.0.1', lease_time: 30 }));
  await ok(c.post('/api/dhcp', { interface: 'fw2', start_ip: '10.2.0.100', end_ip: '10.2.0.120' }));
  await c.commit();
  expect((await ok(c.get('/api/dhcp/leases'))).body).toEqual([{ interface: 'fw1', leases: [] }, { interface: 'fw2', leases: [] }]);
  const p1 = lab.peers[0];
  const before = Date.now();
  const r = spawnSync('ip', ['netns', 'exec', p1.ns, 'busybox', 'udhcpc', '-i', 'eth0', '-n', '-q', '-f', '-s', '/bin/true', '-t', '5', '-T', '2', '-x', 'hostname:client-one'], { encoding: 'utf8', timeout: 30000 });
  const address = /lease of (10\.1\.0\.\d+) obtained/.exec(`${r.stdout}${r.stderr}`)?.[1];
  expect(address).toMatch(/^10\.1\.0\.1([01]\d|20)$/);
  const mac = (JSON.parse(sh(['ip', '-n', p1.ns, '-json', 'link', 'show', 'dev', 'eth0'])) as Array<{ address: string }>)[0].address;
  const pools = (await ok(c.get('/api/dhcp/leases'))).body;
  expect(pools).toEqual([{ interface: 'fw1', leases: [{ address, mac, hostname: 'client-one', expires_at: expect.any(String) }] }, { interface: 'fw2', leases: [] }]);
  const expires = Date.parse(pools[0].leases[0].expires_at);
  expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 30 * 60_000);
  expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
  const out = await fwctl(['leases'], { FWCTL_URL: ld!.td.url, FWCTL_TOKEN: c.token });
  expect(out.code).toBe(0);
  expect(out.stdout.split('\n')[0]).toMatch(/^POOL\s+ADDRESS\s+MAC\s+HOST\s+EXPIRES$/);
  expect(out.stdout).toMatch(new RegExp(`fw1\\s+${address!.replace(/\./g, '\\.')}\\s+${mac}\\s+client-one\\s+\\d{4}-`));
  expect(out.stdout).toMatch(/fw2\s+\(no lease\)/);
  const json = await fwctl(['leases', '--json'], { FWCTL_URL: ld!.td.url, FWCTL_TOKEN: c.token });
  expect(JSON.parse(json.stdout)).toEqual(pools);
}, 90000);
