// Schedules on a real kernel (issue 40 item 4): the daemon switches rules at their edges
// without a commit (docs/schedules.md). Peer 1 to peer 2 is allowed by a one-time schedule
// that ends a few seconds ahead of the real clock, peer 2 to peer 1 by one that starts then:
// pings pass one way and not the other before the edge, the reverse after it, within a
// generous bound, with the running version unchanged; eval agrees on both sides.
// FW_TEST_FIGURES=1 prints the time from the edge to the first ping through.
import { within as pollWithin } from '../helpers/poll';
import { ok } from '../helpers/daemon';
import type { Peer } from '../helpers/netns';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon | undefined;
/** the edge: a few seconds after the commit below, whatever the machine's load */
let edge = 0;

beforeAll(async () => {
  ld = await startLabDaemon(2);
  const c = ld.client;
  edge = Date.now() + 15_000;
  const iso = (t: number) => new Date(t).toISOString();
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/schedules', { name: 'until-edge', type: 'once', start: iso(edge - 3600_000), end: iso(edge) }));
  await ok(c.post('/api/schedules', { name: 'from-edge', type: 'once', start: iso(edge), end: iso(edge + 3600_000) }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', schedule: 'until-edge' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'dmz', 'dst-zone': 'lan', schedule: 'from-edge' }));
  await c.commit();
}, 120000);

afterAll(async () => {
  await stopLabDaemon(ld);
});

const pingAnswered = (from: Peer, to: Peer) => ld!.lab.pingAnswered(from, to, 1);

const within = (boundMs: number, want: () => boolean) => pollWithin(boundMs, want, 200);
const icmp = (from: Peer, to: Peer) => ({ 'src-ip': from.address, 'dst-ip': to.address, protocol: 'icmp', 'icmp-type': 8, 'in-interface': from.link });

test('at the edge the kernel switches both rules, without a commit', async () => {
  const { client: c, lab } = ld!;
  const [p1, p2] = lab.peers;
  const version = (await ok(c.get('/api/status'))).body.version;
  expect(pingAnswered(p1, p2)).toBe(true);
  expect(pingAnswered(p2, p1)).toBe(false);
  // the checks above must have run before the edge, or they prove nothing
  expect(edge - Date.now()).toBeGreaterThan(1000);
  expect((await ok(c.post('/api/eval', icmp(p2, p1)))).body).toMatchObject({ action: 'deny', skipped: { id: 2, reason: 'schedule', schedule: 'from-edge' } });

  // after the edge: the switch is checked each second, then the held version's nft table is
  // written again; 20 s is a bound for a loaded CI machine (1.3-1.4 s were measured at load
  // 22-25 on 2 cores: docs/performance.md)
  await new Promise((r) => setTimeout(r, Math.max(0, edge - Date.now())));
  expect(await within(20_000, () => pingAnswered(p2, p1))).not.toBeNull();
  if (process.env.FW_TEST_FIGURES === '1') process.stdout.write(`schedule edge to first ping through: ${Date.now() - edge} ms\n`);
  expect(await within(5000, () => !pingAnswered(p1, p2))).not.toBeNull();
  expect((await ok(c.get('/api/status'))).body.version).toBe(version);
  expect((await ok(c.post('/api/eval', icmp(p1, p2)))).body).toMatchObject({ action: 'deny', skipped: { id: 1, reason: 'expired', schedule: 'until-edge' } });
  expect((await ok(c.post('/api/eval', icmp(p2, p1)))).body).toMatchObject({ action: 'allow', policy: { id: 2 } });
  // the analysis reports the ended one as expired
  expect((await ok(c.get('/api/analysis'))).body.expired).toEqual([1]);
}, 120000);
