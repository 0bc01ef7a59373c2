// An external list on a real kernel (issue 40, item 3): a deny policy naming the list, an
// allow behind it, the list served by an HTTP server of the test's own. When the served list
// comes to hold peer 2's address (with an overlapping prefix: the kernel's interval set gets
// disjoint ranges), peer 1's pings to it stop within a generous bound, with no commit; a
// failing server keeps the list in the kernel; an emptied list lets the pings through again.
import { within } from '../helpers/poll';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ok } from '../helpers/daemon';
import type { Peer } from '../helpers/netns';
import { sh } from '../helpers/netns';
import { listNftSetName } from '../../src/dataplane/nft';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon | undefined;
let answer = { status: 200, body: '# nothing of the lab yet\n192.0.2.0/24\n' };
const server = http.createServer((_req, res) => {
  res.writeHead(answer.status, { 'content-type': 'text/plain' });
  res.end(answer.body);
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ld = await startLabDaemon(2, [], 4, { FW_LIST_REFRESH_MIN: '1' });
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/addresses', { name: 'blocklist', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`, refresh: 1 }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'dmz', 'dst-addr': 'blocklist' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz' }));
  await c.commit();
}, 120000);

afterAll(async () => {
  try {
    await stopLabDaemon(ld);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

const pingAnswered = (from: Peer, to: Peer) => ld!.lab.pingAnswered(from, to, 1);

const kernelSet = () => sh(['ip', 'netns', 'exec', ld!.lab.fw, 'nft', 'list', 'set', 'inet', 'fwdaemon', listNftSetName('blocklist', 4)]);

test('a list holding the address blocks it without a commit; a failing server keeps it; an emptied list lets it through', async () => {
  const { client: c, lab } = ld!;
  const [p1, p2] = lab.peers;
  const version = (await ok(c.get('/api/status'))).body.version;
  expect(await within(10_000, async () => (await ok(c.get('/api/addresses/blocklist'))).body.entries === 1)).not.toBeNull();
  expect(kernelSet()).toContain('192.0.2.0/24');
  expect(pingAnswered(p1, p2)).toBe(true);

  // the address and its /24: overlapping entries, one range in the kernel
  const net = p2.address.replace(/\.\d+$/, '.0/24');
  answer = { status: 200, body: `${p2.address}\n${net}\n192.0.2.0/24\n` };
  expect(await within(15_000, () => !pingAnswered(p1, p2))).not.toBeNull();
  expect(kernelSet()).toContain(net);
  expect((await ok(c.get('/api/status'))).body.version).toBe(version);
  const traced = (await ok(c.post('/api/eval', { 'src-ip': p1.address, 'dst-ip': p2.address, protocol: 'icmp', 'icmp-type': 8, 'in-interface': p1.link }))).body;
  expect(traced).toMatchObject({ action: 'deny', policy: { id: 1 }, lists: [{ list: 'blocklist', field: 'dst-addr' }] });

  // the server fails: the kernel keeps the list
  answer = { status: 500, body: 'oops' };
  expect(await within(10_000, async () => (await ok(c.get('/api/addresses/blocklist'))).body.lastError === 'HTTP 500 Internal Server Error')).not.toBeNull();
  expect(pingAnswered(p1, p2)).toBe(false);
  expect(kernelSet()).toContain(net);

  // an emptied list: the pings pass again, still the same version
  answer = { status: 200, body: '# empty now\n' };
  expect(await within(15_000, () => pingAnswered(p1, p2))).not.toBeNull();
  expect(kernelSet()).not.toContain(net);
  expect((await ok(c.get('/api/status'))).body.version).toBe(version);
}, 120000);
