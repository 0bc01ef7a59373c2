// Commit confirmed on a real kernel: a commit that takes the management access away from the
// link an operator uses, left unconfirmed, is reverted by the daemon, and the access returns.
import { expectMessage, ok } from '../helpers/daemon';
import { fwAddress, type Agent } from '../helpers/netns';
import { startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
let fwAgent: Agent;
let peer: Agent;
let sport = 41000;

beforeAll(async () => {
  ld = await startLabDaemon(1);
  fwAgent = await ld.lab.agent(ld.lab.fw, [fwAddress(1)], [22]);
  peer = await ld.lab.agent(ld.lab.peers[0].ns, [], []);
}, 120000);

afterAll(async () => {
  peer?.abort();
  fwAgent?.abort();
  await stopLabDaemon(ld);
});

/** Whether an ssh connection from the peer reaches the firewall (waits for it, bounded). */
async function sshReaches(label: string): Promise<boolean> {
  const p = ld.lab.peers[0];
  const token = `${label}-${sport}`;
  peer.send([{ token, proto: 'tcp', src: p.address, sport: sport++, dst: fwAddress(1), dport: 22 }]);
  const end = Date.now() + 3000;
  while (!fwAgent.got.has(token) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return fwAgent.got.has(token);
}

test('a commit confirmed that removes ssh management, not confirmed, is reverted and ssh works again', async () => {
  const c = ld.client;
  await c.begin();
  await ok(c.put('/api/interfaces/fw1', { management: ['ssh'] }));
  await c.commit();
  expect(await sshReaches('before')).toBe(true);

  await c.begin();
  await ok(c.put('/api/interfaces/fw1', { management: [] }));
  // the deadline leaves the cut-off probe (up to 3 s, after the answer and a status read)
  // well inside it on a loaded machine: with 4 s, CI's probe once ran into the rollback
  const r = expectMessage(await c.post('/api/config/commit', { description: 'locks us out', confirm_timeout: 10 }), 'commit successful');
  const cut = Number(r.body.version);
  expect((await ok(c.get('/api/status'))).body.dataplane.applied_version).toBe(cut);
  expect(await sshReaches('cut-off')).toBe(false);

  // nobody confirms: the daemon restores version cut - 1 as a new version and applies it
  const end = Date.now() + 30000;
  let status = (await ok(c.get('/api/status'))).body;
  while (status.version === cut && Date.now() < end) {
    await new Promise((res) => setTimeout(res, 200));
    status = (await ok(c.get('/api/status'))).body;
  }
  expect(status.version).toBe(cut + 1);
  expect(status.lastCommit.description).toMatch(new RegExp(`^automatic rollback: version ${cut} `));
  expect(status.dataplane).toEqual(expect.objectContaining({ applied_version: cut + 1, error: null }));
  expect((await ok(c.get('/api/interfaces/fw1'))).body.management).toEqual(['ssh']);
  expect(await sshReaches('after')).toBe(true);
}, 90000);
