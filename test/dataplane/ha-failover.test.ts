// Issue 39 with real packets: two fwd nodes, instances of one cluster on a Redis of the test's
// own, are one firewall on the wire (test/helpers/ha-lab.ts). A client on the LAN keeps a
// TCP connection and a UDP flow to a server on the WAN through the source translation to the
// WAN's virtual address, each exchanging a message every 50 ms. A "power off" of the master
// (every link down, its daemon, keepalived and conntrackd killed) keeps both alive with no
// reset and a bounded pause; the old master comes back and takes over again (preempt); a
// controlled POST /api/ha/failover does the same; and with the sync link removed the same
// failover cuts a TCP connection made since (the test measures the sync, not luck).
import { addresses, HaLab, LAB_SETUP_TIMEOUT_MS, LAN, WAN, type Prober } from '../helpers/ha-lab';
import { flowsAlive, PAUSE_BOUND_MS } from '../helpers/ha-checks';
import { ok } from '../helpers/daemon';
import { sh } from '../helpers/netns';
import { fwctl } from '../helpers/fwctl';
import { kill9 } from '../helpers/process';


let lab: HaLab;
let probe: Prober;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  lab = await HaLab.started(async (lab) => {
    await lab.configure(200);
    await lab.echo();
  });
}, LAB_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await lab?.destroy();
}, 60_000);

test('a commit on the pair gives both kernels their own addresses and the translation to the virtual one; the master alone holds the virtual addresses', async () => {
  const [a, b] = lab.nodes;
  expect(addresses(a.ns, 'lan')).toEqual([`${LAN.vip}/24`, `${LAN.a}/24`].sort());
  expect(addresses(a.ns, 'wan')).toEqual([`${WAN.vip}/24`, `${WAN.a}/24`].sort());
  expect(addresses(b.ns, 'lan')).toEqual([`${LAN.b}/24`]);
  expect(addresses(b.ns, 'wan')).toEqual([`${WAN.b}/24`]);
  for (const n of lab.nodes) expect(sh(['ip', 'netns', 'exec', n.ns, 'nft', 'list', 'chain', 'inet', 'fwdaemon', 'nat_post'])).toContain(`snat ip to ${WAN.vip}`);
  const s = await lab.status(a);
  expect(s).toMatchObject({ node: 'fw-a', enabled: true, state: 'master', maintenance: false, dataplane_ok: true, peer: { node: 'fw-b', priority: 100 } });
  expect(s.virtual_addresses).toEqual([
    { interface: 'lan', vrid: 39, address: `${LAN.vip}/24`, held: true },
    { interface: 'wan', vrid: 40, address: `${WAN.vip}/24`, held: true },
  ]);
  expect(s.sync.running).toBe(true);
  expect(typeof s.processes.keepalived).toBe('number');
  // any instance answers for the other node (?node=)
  const viaA = await ok(a.client!.get('/api/ha/status?node=fw-b'));
  expect(viaA.body).toMatchObject({ node: 'fw-b', state: 'backup' });
  expect(viaA.body.virtual_addresses.every((v: { held: boolean }) => !v.held)).toBe(true);
}, 60_000);

test('kill -9 and restart of the master\'s daemon: no failover, the same keepalived and conntrackd adopted, the flows go on', async () => {
  const [a, b] = lab.nodes;
  probe = await lab.prober(50);
  await sleep(1500);
  await flowsAlive(probe, 'before');
  const before = await lab.status(a);
  await kill9(a.child!);
  await sleep(2000);
  await lab.start(a);
  const after = await lab.status(a);
  expect({ state: after.state, since: after.since, processes: after.processes }).toEqual({ state: 'master', since: before.since, processes: before.processes });
  expect((await lab.status(b)).state).toBe('backup');
  await flowsAlive(probe, 'across the restart of the daemon');
}, 120_000);

test('power off of the master: the TCP and UDP flows go on through the backup with no reset, the pause bounded', async () => {
  const [a, b] = lab.nodes;
  await sleep(1000); // the previous test marked just now: a window long enough to hold echoes
  await flowsAlive(probe, 'before');
  await lab.synced(b);
  await lab.powerOff(a);
  await lab.waitState(b, 'master', 30_000);
  await sleep(4000);
  const gap = await flowsAlive(probe, 'across the power off');
  expect(gap.tcp).toBeLessThan(PAUSE_BOUND_MS);
  expect(gap.udp).toBeLessThan(PAUSE_BOUND_MS);
  expect(addresses(b.ns, 'wan')).toContain(`${WAN.vip}/24`);
  // the change is in the audit trail (and so in syslog) and in /metrics
  const audit = await ok(b.client!.get('/api/audit?limit=100'));
  expect(JSON.stringify(audit.body)).toMatch(/node fw-b: backup -> master/);
  const metrics = await b.client!.get('/metrics');
  expect(metrics.text).toMatch(/fwd_ha_state\{state="master"\} 1/);
}, 120_000);

test('the old master comes back and takes over again (preempt): the flows go on', async () => {
  const [a, b] = lab.nodes;
  await lab.powerOn(a);
  await lab.waitState(a, 'master', 60_000);
  await lab.waitState(b, 'backup', 30_000);
  await sleep(4000);
  const gap = await flowsAlive(probe, 'across the preemption');
  expect(gap.tcp).toBeLessThan(PAUSE_BOUND_MS);
}, 120_000);

test('POST /api/ha/failover steps the master down (audited), the flows go on; resume gives the role back', async () => {
  const [a, b] = lab.nodes;
  await lab.synced(b);
  const r = await ok(a.client!.post('/api/ha/failover'));
  expect(r.body).toEqual({ message: 'node stepping down', node: 'fw-a' });
  await lab.waitState(b, 'master', 30_000);
  expect((await lab.status(a)).maintenance).toBe(true);
  await sleep(3000);
  await flowsAlive(probe, 'across the step-down');
  const audit = await ok(a.client!.get('/api/audit?limit=100'));
  expect(JSON.stringify(audit.body)).toMatch(/ha\.failover[^}]*step-down on node fw-a/);
  await lab.synced(a);
  // through the other node (?node=): a forwarded failover carries its action in the query, which
  // the node credential covers (it covers no body; before, the credential was refused here)
  const resumed = await fwctl(['ha', 'resume', '--node', 'fw-a'], { FWCTL_URL: b.child!.url, FWCTL_TOKEN: b.client!.token });
  expect({ code: resumed.code, out: resumed.stdout }).toEqual({ code: 0, out: 'node resumed (fw-a)\n' });
  await lab.waitState(a, 'master', 60_000);
  await sleep(3000);
  await flowsAlive(probe, 'across the resume');
  const st = await fwctl(['ha'], { FWCTL_URL: a.child!.url, FWCTL_TOKEN: a.client!.token });
  expect(st.stdout).toMatch(/^node fw-a: master since [\s\S]*sync sync: connected/);
}, 180_000);

test('with the sync link removed, the same failover cuts a TCP connection made since, and keeps the one synced before', async () => {
  const [a, b] = lab.nodes;
  await lab.synced(b);
  lab.cutSync();
  const unsynced = await lab.prober(50);
  await sleep(2000);
  await flowsAlive(unsynced, 'the new connection before the failover');
  await lab.powerOff(a);
  await lab.waitState(b, 'master', 30_000);
  // echoes counted from here on are forwarded by the new master alone
  await sleep(1000);
  await unsynced.mark();
  await probe.mark();
  await sleep(5000);
  await flowsAlive(probe, 'the connection synced before the cut');
  const cut = await unsynced.mark();
  expect({ tcpEchoes: cut.tcp.echoes }).toEqual({ tcpEchoes: 0 });
}, 180_000);
