// Issue 38 item 3: Redis was trusted blindly. Anyone who could write to it added an admin
// (`HSET fw:{name}:users rogue {...}`: that login worked) or registered a fake node in
// fw:{name}:nodes, after which `GET /api/sessions?node=fake` sent the caller's own JWT to the
// fake address. A cluster also generated its JWT secret into Redis, where any reader found it.
// Each reproduction below failed before the fix: the rogue login answered 200, the fake node
// received the admin's Authorization header, a start without FW_JWT_SECRET went ahead.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { ADMIN, ADMIN_PASSWORD, Client, tempDir } from '../helpers/daemon';
import { startChild } from '../helpers/process';
import { hashPassword } from '../../src/auth/passwords';
import { mintApiToken } from '../../src/auth/api-tokens';

jest.setTimeout(120_000);

let cluster: TestCluster;
let writer: Redis; // the "anyone who can write to Redis" of the issue
const received: Array<{ method?: string; url?: string; authorization?: string }> = [];
let fakeNode: http.Server;

beforeAll(async () => {
  cluster = await startCluster(2, { FW_ANALYSIS_TIMEOUT: '0' });
  writer = new Redis(cluster.redis.url);
  fakeNode = http.createServer((req, res) => {
    received.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"dataplane":"none","total":0,"sessions":[],"next":null}');
  });
  await new Promise<void>((resolve) => fakeNode.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  writer?.disconnect();
  await new Promise((resolve) => fakeNode?.close(resolve));
  await cluster?.close();
});

const key = (what: string) => `fw:{${cluster.name}}:${what}`;

async function loginStatus(url: string, username: string, password: string): Promise<number> {
  return (await new Client(url).post('/api/login', { username, password })).status;
}

test('an account written into Redis by anyone else is ignored and logged: its login fails, the real admin is unaffected', async () => {
  const password = 'Rogue-pass-9f8e7d6c';
  const rogue = { username: 'rogue', hash: await hashPassword(password), createdAt: Date.now(), role: 'admin', id: 'b1d7c0de-0000-4000-8000-000000000001', epoch: 0 };
  await writer.hset(key('users'), 'rogue', JSON.stringify(rogue));
  // a MAC copied from a real record does not fit another record
  const admin = JSON.parse((await writer.hget(key('users'), ADMIN))!) as { mac: string };
  expect(typeof admin.mac).toBe('string');
  await writer.hset(key('users'), 'rogue2', JSON.stringify({ ...rogue, username: 'rogue2', mac: admin.mac }));
  // the admin's own record under another name: the MAC covers the name
  await writer.hset(key('users'), 'copy', (await writer.hget(key('users'), ADMIN))!);
  for (const url of cluster.nodes.map((n) => n.url)) {
    expect(await loginStatus(url, 'rogue', password)).toBe(401);
    expect(await loginStatus(url, 'rogue2', password)).toBe(401);
    expect(await loginStatus(url, 'copy', ADMIN_PASSWORD)).toBe(401);
    expect(await loginStatus(url, ADMIN, ADMIN_PASSWORD)).toBe(200);
  }
  const users = await cluster.clients[0].get('/api/users');
  expect(users.status).toBe(200);
  const names = JSON.stringify(users.body);
  expect(names).not.toContain('rogue');
  expect(names).toContain(ADMIN);
  await eventually(async () => /"name":"copy"/.test(cluster.nodes[0].stdout()), 5000);
  const log = cluster.nodes[0].stdout();
  expect(log).toMatch(/"record":"user","name":"rogue","reason":"unsealed".*has no MAC and is ignored/);
  expect(log).toMatch(/"record":"user","name":"rogue2","reason":"forged".*has a MAC this cluster did not make/);
  expect(log).not.toContain(rogue.hash); // no secret material in the log
});

test('an API token written into Redis by anyone else does not authenticate', async () => {
  const adminRecord = JSON.parse((await writer.hget(key('users'), ADMIN))!) as { id: string; epoch: number };
  const { token, record } = mintApiToken({ username: ADMIN, role: 'admin', jti: '', accountId: adminRecord.id, epoch: adminRecord.epoch, exp: Infinity }, 'planted', 'admin', null);
  await writer.hset(key('api-tokens'), record.hash, JSON.stringify(record));
  await writer.hset(key('api-token-names'), `${ADMIN}/planted`, record.hash);
  const c = new Client(cluster.nodes[1].url);
  c.token = token;
  const r = await c.get('/api/status');
  expect(r.status).toBe(401);
  // a token made through the API works (sealed), so the refusal is the MAC's
  const made = await cluster.clients[0].post('/api/tokens', { name: 'real', role: 'viewer' });
  expect(made.status).toBe(200);
  c.token = made.body.token;
  expect((await c.get('/api/status')).status).toBe(200);
});

test('a fake node registered in Redis never receives the caller\'s credential; the request is refused', async () => {
  const port = (fakeNode.address() as AddressInfo).port;
  const fake = { id: 'fake', address: `127.0.0.1:${port}`, version: 0, dataplane: { mode: 'none', applied_version: null, error: null }, heartbeat: Date.now(), startedAt: Date.now() };
  await writer.hset(key('nodes'), 'fake', JSON.stringify(fake));
  // a registration with a real node's MAC but another address fails too (the MAC covers it)
  const node1 = JSON.parse((await writer.hget(key('nodes'), 'node1'))!) as { mac: string; startedAt: number };
  await writer.hset(key('nodes'), 'node1-moved', JSON.stringify({ ...fake, id: 'node1-moved', mac: node1.mac, startedAt: node1.startedAt }));
  for (const id of ['fake', 'node1-moved']) {
    const r = await cluster.clients[0].get(`/api/sessions?node=${id}`);
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('ERR_SYS_4008');
    expect(r.body.details).toContain(`node "${id}" is registered in Redis without the cluster's MAC`);
  }
  expect(received).toEqual([]);
  // not listed among the cluster's nodes either
  const nodes = await cluster.clients[0].get('/api/cluster/nodes');
  expect(JSON.stringify(nodes.body)).not.toContain('fake');
  // the log is written out within a second
  expect(await eventually(async () => cluster.nodes[0].stdout().includes('a node registration in Redis without a valid MAC is ignored'), 5000)).toBe(true);
});

test('a real node answers a request sent on, authenticated by the cluster key, not by the caller\'s token', async () => {
  const via0 = await cluster.clients[0].get('/api/sessions?node=node1');
  expect(via0.status).toBe(200);
  expect(via0.body.sessions).toEqual([]);
  // the caller's role applies there: a read-only token cannot end connections through another node
  const made = await cluster.clients[0].post('/api/tokens', { name: 'reader', role: 'viewer' });
  const reader = new Client(cluster.nodes[0].url);
  reader.token = made.body.token;
  expect((await reader.get('/api/sessions?node=node1')).status).toBe(200);
  const end = await reader.raw('DELETE', '/api/sessions?node=node1&port=1');
  expect(end.status).toBe(403);
  // a node credential is good only on the routes that forward, and only once
  const planted = await new Client(cluster.nodes[1].url).raw('GET', '/api/users', undefined, { Authorization: 'FwNode eyJ4IjoxfQ.bm90LWEtbWFj' });
  expect(planted.status).toBe(401);
  expect(planted.body.details).toMatch(/node credential refused/);
});

test('cluster mode without FW_JWT_SECRET: the start is refused, saying why and what to do', async () => {
  const dir = tempDir('fwd-no-secret-');
  await expect(startChild({ REDIS_URL: cluster.redis.url, FW_CLUSTER_NAME: cluster.name, FW_DATA_DIR: dir, FW_JWT_SECRET: '' }))
    .rejects.toThrow(/FW_JWT_SECRET is required in cluster mode \(REDIS_URL or REDIS_SENTINELS\): a cluster's secrets come from the environment, never from Redis/);
});
