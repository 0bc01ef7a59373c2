// Issue 42: a restart of the daemon (systemd's KillMode=process, FW_HELPERS_ON_STOP=keep)
// leaves the data plane's helpers serving, and the next start adopts them. dnsmasq hands out
// a lease to a real DHCP client while no daemon runs (no DHCP gap) and keeps its pid across
// the restart; ulogd keeps its pid too and its records reach the new daemon's traffic log. A
// changed pool restarts dnsmasq; a stop with FW_HELPERS_ON_STOP=stop ends both.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, ok, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { Agent } from '../helpers/netns';
import { runsWith } from '../../src/dataplane/helper-process';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

const KEEP = { FW_HELPERS_ON_STOP: 'keep' };
let ld: LabDaemon;
let second: TestDaemon | undefined;
let agent: Agent;

const dataplane = () => path.join(ld.td.dir, 'dataplane');
const pidOf = (name: string) => Number(fs.readFileSync(path.join(dataplane(), `${name}.pid`), 'utf8'));
const alive = (name: string, pid: number) => runsWith(pid, path.join(dataplane(), `${name}.conf`));

/** A lease for peer 1 from the firewall's dnsmasq (busybox udhcpc), or null. */
function lease(host: string): string | null {
  const r = spawnSync('ip', ['netns', 'exec', ld.lab.peers[0].ns, 'busybox', 'udhcpc', '-i', 'eth0', '-n', '-q', '-f', '-s', '/bin/true', '-t', '5', '-T', '2', '-x', `hostname:${host}`], { encoding: 'utf8', timeout: 30000 });
  return /lease of (10\.1\.0\.\d+) obtained/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? null;
}

/** Sends logged connections (tcp to peer 2's port 5000) until the traffic log of `c` has one; their count. */
async function recordArrives(c: Client, tag: number): Promise<number> {
  const [p1, p2] = ld.lab.peers;
  for (let i = 0; i < 10; i++) {
    agent.send([{ token: `adopt${tag}-${i}`, proto: 'tcp', src: p1.address, sport: 42000 + tag * 20 + i, dst: p2.address, dport: 5000 }]);
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      const records = (await ok(c.get('/api/logs/traffic?limit=100'))).body.records as Array<{ 'src-port': number }>;
      if (records.some((r) => r['src-port'] >= 42000 + tag * 20 && r['src-port'] < 42000 + (tag + 1) * 20)) return i + 1;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error('no traffic record arrived');
}

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, KEEP);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'app', protocol: 'tcp', ports: [5000] }));
  await ok(c.post('/api/policies', { name: 'app-in', action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['app'], log: true }));
  await ok(c.post('/api/dhcp', { interface: 'fw1', start_ip: '10.1.0.100', end_ip: '10.1.0.120', lease_time: 30 }));
  await c.commit();
  const [p1, p2] = ld.lab.peers;
  await ld.lab.agent(p2.ns, [p2.address], [5000]); // the server
  agent = await ld.lab.agent(p1.ns, [p1.address], []); // the client
}, 120_000);

afterAll(async () => {
  await second?.close();
  // what FW_HELPERS_ON_STOP=keep left (a failed test): ended as the package's prerm ends them
  for (const name of ['dnsmasq', 'ulogd']) {
    try {
      const pid = pidOf(name);
      if (alive(name, pid)) process.kill(pid, 'SIGTERM');
    } catch {
      // no pid file
    }
  }
  await stopLabDaemon(ld);
}, 120_000);

test('a restart leaves dnsmasq and ulogd serving; the next start adopts them (same pids): a lease taken meanwhile, records after', async () => {
  expect(await recordArrives(ld.client, 0)).toBeGreaterThanOrEqual(1);
  const dnsmasq = pidOf('dnsmasq');
  const ulogd = pidOf('ulogd');
  expect([alive('dnsmasq', dnsmasq), alive('ulogd', ulogd)]).toEqual([true, true]);

  await ld.td.daemon.close(); // the daemon stops (SIGTERM under systemd): its helpers do not
  ld.td.close = async () => undefined; // closed: afterAll must not close it again
  expect([alive('dnsmasq', dnsmasq), alive('ulogd', ulogd)]).toEqual([true, true]);
  const address = lease('while-down');
  expect(address).toMatch(/^10\.1\.0\.1([01]\d|20)$/);

  second = await startTestDaemon({ FW_DATAPLANE: 'linux', FW_NETNS: ld.lab.fw, FW_INTERFACES: ld.lab.peers.map((p) => p.link).join(','), ...KEEP }, ld.td.dir);
  const c = await new Client(second.url).login();
  expect((await ok(c.get('/readyz'))).body.checks.dataplane).toBe('ok');
  expect([pidOf('dnsmasq'), pidOf('ulogd')]).toEqual([dnsmasq, ulogd]);
  expect((await ok(c.get('/api/dhcp/leases'))).body[0].leases).toEqual([expect.objectContaining({ address, hostname: 'while-down' })]);
  // ulogd finds the new daemon's socket at its next record (the one it tried on the old socket is lost)
  expect(await recordArrives(c, 1)).toBeLessThanOrEqual(3);
  expect(pidOf('ulogd')).toBe(ulogd);
  expect(lease('after-restart')).toMatch(/^10\.1\.0\.1([01]\d|20)$/);
  expect(pidOf('dnsmasq')).toBe(dnsmasq);
}, 180_000);

test('a changed pool restarts the adopted dnsmasq; a stop with FW_HELPERS_ON_STOP=stop ends the helpers', async () => {
  const c = await new Client(second!.url).login();
  const dnsmasq = pidOf('dnsmasq');
  const ulogd = pidOf('ulogd');
  await c.begin();
  await ok(c.put('/api/dhcp/fw1', { start_ip: '10.1.0.130', end_ip: '10.1.0.140' }));
  await c.commit();
  expect(alive('dnsmasq', dnsmasq)).toBe(false);
  expect(alive('dnsmasq', pidOf('dnsmasq'))).toBe(true);
  expect(lease('new-pool')).toMatch(/^10\.1\.0\.1(3\d|40)$/);
  await second!.close();
  second = undefined;
  // the same data folder, started and stopped by a daemon that stops its helpers
  const last = await startTestDaemon({ FW_DATAPLANE: 'linux', FW_NETNS: ld.lab.fw, FW_INTERFACES: ld.lab.peers.map((p) => p.link).join(',') }, ld.td.dir);
  const adopted = [pidOf('dnsmasq'), pidOf('ulogd')];
  expect(adopted[1]).toBe(ulogd);
  await last.close();
  expect(adopted.map((pid, i) => alive(i ? 'ulogd' : 'dnsmasq', pid))).toEqual([false, false]);
}, 180_000);
