// The node credential of a request sent on to another instance (src/cluster/node-auth.ts):
// good for one request, to one node, on the routes that forward, within the time window, once,
// for an account still in the same credential epoch; and a registration's MAC covers the
// node's identity.
import { FORWARD_WINDOW_MS, NodeAuth } from '../../src/cluster/node-auth';
import type { AuthUser } from '../../src/auth/user';
import type { UserRecord } from '../../src/store/types';

const SECRET = 'unit-node-auth-secret-4b1d0c9e8f7a6b5c4d3e2f1a0b9c8d7e';
const account: UserRecord = { username: 'ops', hash: 'x', createdAt: 1, role: 'operator', id: 'acc-1', epoch: 2 };
const user: AuthUser = { username: 'ops', role: 'viewer', jti: 'jwt-1', accountId: 'acc-1', epoch: 2, exp: Math.floor(Date.now() / 1000) + 600 };

function pair(accounts: Record<string, UserRecord> = { ops: account }): { from: NodeAuth; to: NodeAuth } {
  const from = new NodeAuth(SECRET, async (n) => accounts[n]);
  const to = new NodeAuth(SECRET, async (n) => accounts[n]);
  from.selfId = 'n0';
  to.selfId = 'n1';
  return { from, to };
}

const req = (path = '/api/sessions', query = 'port=80', method = 'GET') => ({ method, path, query: new URLSearchParams(query) });

test('a request signed for node n1 runs there as the caller, with the caller\'s role (not the account\'s)', async () => {
  const { from, to } = pair();
  const header = from.sign(req(), 'port=80', user, 'n1');
  expect(header).not.toContain('jwt-1');
  const u = await to.verify(header, req('/api/sessions', 'port=80&node=n1'));
  expect(u).toMatchObject({ username: 'ops', role: 'viewer', accountId: 'acc-1', epoch: 2 });
});

test('refused: a replay, another node, another path or query, a route that does not forward, a stale time, another secret', async () => {
  const { from, to } = pair();
  const header = from.sign(req(), 'port=80', user, 'n1');
  await to.verify(header, req());
  await expect(to.verify(header, req())).rejects.toMatchObject({ code: 'ERR_SEC_5003', details: expect.stringContaining('already used') });
  await expect(to.verify(from.sign(req(), 'port=80', user, 'n2'), req())).rejects.toMatchObject({ details: expect.stringContaining('made for node "n2"') });
  await expect(to.verify(from.sign(req(), 'port=80', user, 'n1'), req('/api/sessions', 'port=22'))).rejects.toMatchObject({ details: expect.stringContaining('another request') });
  await expect(to.verify(from.sign(req('/api/users', ''), '', user, 'n1'), req('/api/users', ''))).rejects.toMatchObject({ details: expect.stringContaining('only for the routes that forward') });
  const old = from.sign(req(), 'port=80', user, 'n1', Date.now() - FORWARD_WINDOW_MS - 5000);
  await expect(to.verify(old, req())).rejects.toMatchObject({ details: expect.stringContaining('from this node\'s clock') });
  const stranger = new NodeAuth('another-secret-entirely-0f1e2d3c4b5a69788796a5b4c3d2e1f0', async () => account);
  stranger.selfId = 'n0';
  await expect(to.verify(stranger.sign(req(), 'port=80', user, 'n1'), req())).rejects.toMatchObject({ details: expect.stringContaining('MAC is not the cluster\'s') });
});

test('refused when the account is gone or its credentials changed since (another epoch)', async () => {
  const { from, to } = pair({ ops: { ...account, epoch: 3 } });
  await expect(to.verify(from.sign(req(), 'port=80', user, 'n1'), req())).rejects.toMatchObject({ code: 'ERR_SEC_5003', details: 'account no longer exists' });
  const gone = pair({});
  await expect(gone.to.verify(gone.from.sign(req(), 'port=80', user, 'n1'), req())).rejects.toMatchObject({ code: 'ERR_SEC_5003' });
});

test('a registration MAC covers id, address and start time', () => {
  const { from } = pair();
  const reg = { id: 'n0', address: '10.0.0.1:8080', startedAt: 1234 };
  const mac = from.registrationMac(reg);
  expect(from.registrationValid({ ...reg, mac })).toBe(true);
  expect(from.registrationValid({ ...reg, address: '10.6.6.6:8080', mac })).toBe(false);
  expect(from.registrationValid({ ...reg, id: 'n9', mac })).toBe(false);
  expect(from.registrationValid(reg)).toBe(false);
});
