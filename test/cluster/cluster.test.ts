// Three instances on one Redis behave as one firewall: a session begun on one is continued on
// another and committed on a third; every instance serves the commit once it is answered;
// logouts, deleted users and the login limit are shared; an idle session expires through its
// Redis lease.
import { ADMIN, ADMIN_PASSWORD, Client, expectError, expectMessage } from '../helpers/daemon';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';

let cluster: TestCluster;
let a: Client, b: Client, c: Client;

beforeAll(async () => {
  cluster = await startCluster(3, { FW_LOGIN_MAX_FAILURES: '3', FW_SESSION_TIMEOUT: '3' });
  [a, b, c] = cluster.clients;
});
afterAll(async () => {
  await cluster?.close();
});

afterEach(async () => {
  if ((await a.get('/api/config/session')).body.active) await a.post('/api/config/discard?force=true');
});

test('begin on one instance, change on another, commit on a third: every instance serves it', async () => {
  expectMessage(await a.post('/api/config/begin'), 'config session started');
  expectMessage(await b.post('/api/addresses', { name: 'web', ips: ['10.0.0.10/32'] }), 'address created in candidate');
  expectMessage(await c.post('/api/services', { name: 'https', protocol: 'tcp', ports: [443] }), 'service created in candidate');
  // the candidate is the same wherever it is read
  for (const x of [a, b, c]) {
    expect(Object.keys((await x.get('/api/addresses?config=candidate')).body)).toEqual(['web']);
    expect((await x.get('/api/config/session')).body).toMatchObject({ active: true, owner: ADMIN, changes: 2 });
  }
  const commit = await c.post('/api/config/commit', { description: 'from the third' });
  expectMessage(commit, 'commit successful');
  expect(commit.body.unconfirmed_nodes).toBeUndefined();
  const version = Number(commit.body.version);
  // a read sent after the commit's answer, to any instance, sees the commit
  for (const x of [a, b, c]) {
    expect(Object.keys((await x.get('/api/addresses')).body)).toEqual(['web']);
    expect((await x.get('/api/status')).body).toMatchObject({ version, store: 'redis', store_reachable: true });
    expect((await x.get('/api/config/session')).body.active).toBe(false);
  }
  const nodes = (await b.get('/api/cluster/nodes')).body;
  expect(nodes.map((n: { id: string }) => n.id)).toEqual(['node0', 'node1', 'node2']);
  for (const n of nodes) {
    expect(n).toMatchObject({ version, live: true });
    expect(n.dataplane).toMatchObject({ mode: 'none', applied_version: version, error: null });
    expect(n.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Date.now() - Date.parse(n.last_heartbeat)).toBeLessThan(10_000);
  }
  expect(nodes.filter((n: { self: boolean }) => n.self).map((n: { id: string }) => n.id)).toEqual(['node1']);
  const versions = (await a.get('/api/config/versions')).body;
  expect(versions[versions.length - 1]).toMatchObject({ version, description: 'from the third', author: ADMIN });
});

test('50 concurrent begins spread over the instances: exactly one wins', async () => {
  const clients = [a, b, c];
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => clients[i % 3].post('/api/config/begin')));
  expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  for (const r of answers.filter((x) => x.status !== 200)) expectError(r, 409, 'ERR_SYS_3002');
});

test('concurrent changes from every instance: none is lost, ids are never handed out twice', async () => {
  await a.begin();
  const clients = [a, b, c];
  const answers = await Promise.all(Array.from({ length: 90 }, (_, i) =>
    clients[i % 3].post('/api/addresses', { name: `h${i}`, ips: [`10.9.${i}.0/24`] })));
  for (const r of answers) expectMessage(r, 'address created in candidate');
  const policies = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    clients[i % 3].post('/api/policies', { action: 'allow', 'dst-addr': `h${i}` })));
  for (const r of policies) expect(r.status).toBe(200);
  const ids = policies.map((r) => Number(r.body.id));
  expect(new Set(ids).size).toBe(30);
  for (const x of clients) {
    const cand = (await x.get('/api/addresses?config=candidate')).body;
    for (let i = 0; i < 90; i++) expect(cand[`h${i}`]).toBeDefined();
    expect((await x.get('/api/config/session')).body.changes).toBe(120);
  }
  expectMessage(await b.post('/api/config/commit'), 'commit successful');
  for (const x of clients) {
    const running: { id: number; dstAddr: { name: string } }[] = (await x.get('/api/policies')).body;
    expect(running.map((p) => p.id).sort((m, n) => m - n)).toEqual([...ids].sort((m, n) => m - n));
    // each answer's id is the policy that request created
    for (const [i, id] of ids.entries()) expect(running.find((p) => p.id === id)?.dstAddr.name).toBe(`h${i}`);
  }
});

test('changes racing a commit on another instance: each is in the committed version or refused, never half', async () => {
  await a.begin();
  await a.post('/api/addresses', { name: 'during', ips: ['10.44.0.0/16'] });
  const commit = c.post('/api/config/commit');
  const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => b.post('/api/addresses', { name: `late${i}`, ips: [`10.45.${i}.0/24`] })));
  let answer = await commit;
  // a change that landed between the commit's start and its claim makes it 409: commit again
  while (answer.status === 409) {
    expectError(answer, 409, 'ERR_SYS_3002');
    answer = await c.post('/api/config/commit');
  }
  expectMessage(answer, 'commit successful');
  const running = (await a.get('/api/addresses')).body;
  expect(running.during).toBeDefined();
  for (const [i, r] of racing.entries()) {
    if (r.status === 200) expect(running[`late${i}`]).toBeDefined(); // acknowledged: committed
    else {
      // refused while the commit held the session, or after it ended the session
      expect({ status: r.status, refused: ['ERR_SYS_3001', 'ERR_SYS_3002'].includes(r.body.code) }).toEqual({ status: 409, refused: true });
      expect(running[`late${i}`]).toBeUndefined();
    }
  }
  expect((await b.get('/api/config/session')).body.active).toBe(false);
});

test('a logout is refused by every instance within a second; so is a deleted user', async () => {
  const t = await new Client(a.url).login();
  const onB = new Client(b.url);
  const onC = new Client(c.url);
  onB.token = onC.token = t.token;
  expect((await onB.get('/api/me')).status).toBe(200); // now cached by B and C
  expect((await onC.get('/api/me')).status).toBe(200);
  expectMessage(await t.post('/api/logout'), 'logged out');
  expect((await t.get('/api/me')).status).toBe(401); // at once where it was revoked
  expect(await eventually(async () => (await onB.get('/api/me')).status === 401, 1000)).toBe(true);
  expect(await eventually(async () => (await onC.get('/api/me')).status === 401, 1000)).toBe(true);

  expectMessage(await a.post('/api/users', { username: 'bob', password: 'bob-password-1' }), 'user created');
  const bob = await new Client(b.url).login('bob', 'bob-password-1');
  const bobOnC = new Client(c.url);
  bobOnC.token = bob.token;
  expect((await bobOnC.get('/api/me')).status).toBe(200);
  expectMessage(await a.del('/api/users/bob'), 'user deleted');
  expect(await eventually(async () => (await bob.get('/api/me')).status === 401, 1000)).toBe(true);
  expect(await eventually(async () => (await bobOnC.get('/api/me')).status === 401, 1000)).toBe(true);
});

test('a role change, a revoked API token and a deleted user\'s tokens reach every instance within a second', async () => {
  expectMessage(await a.post('/api/users', { username: 'dana', password: 'dana-password-1', role: 'operator' }), 'user created');
  const dana = await new Client(b.url).login('dana', 'dana-password-1');
  const made = (await dana.post('/api/tokens', { name: 'ci', role: 'operator' })).body;
  const other = (await dana.post('/api/tokens', { name: 'other', role: 'operator' })).body;
  const on = (x: Client, token: string) => Object.assign(new Client(x.url), { token });
  const [jwtOnC, apiOnB, apiOnC, otherOnC] = [on(c, dana.token), on(b, made.token), on(c, made.token), on(c, other.token)];
  for (const x of [jwtOnC, apiOnB, apiOnC, otherOnC]) expect((await x.get('/api/me')).body.role).toBe('operator'); // cached
  expectMessage(await a.put('/api/users/dana', { role: 'viewer' }), 'user updated');
  for (const x of [dana, jwtOnC, apiOnB, apiOnC]) {
    expect(await eventually(async () => (await x.get('/api/me')).body.role === 'viewer', 1000)).toBe(true);
  }
  expectError(await apiOnC.post('/api/config/begin'), 403, 'ERR_SEC_5008');
  expectMessage(await a.del('/api/tokens/ci?owner=dana'), 'token revoked');
  expect(await eventually(async () => (await apiOnB.get('/api/me')).status === 401, 1000)).toBe(true);
  expect(await eventually(async () => (await apiOnC.get('/api/me')).status === 401, 1000)).toBe(true);
  expectMessage(await a.del('/api/users/dana'), 'user deleted');
  expect(await eventually(async () => (await otherOnC.get('/api/me')).status === 401, 1000)).toBe(true);
});

test('a password reset, and an account created again with a deleted one\'s name, end its tokens on every instance', async () => {
  expectMessage(await a.post('/api/users', { username: 'erin', password: 'erin-password-1', role: 'operator' }), 'user created');
  const erin = await new Client(b.url).login('erin', 'erin-password-1');
  const on = (x: Client, token: string) => Object.assign(new Client(x.url), { token });
  const api = on(b, (await erin.post('/api/tokens', { name: 'ci', role: 'operator' })).body.token);
  const [jwtOnC, apiOnC] = [on(c, erin.token), on(c, api.token)];
  for (const x of [erin, api, jwtOnC, apiOnC]) expect((await x.get('/api/me')).status).toBe(200); // cached
  expectMessage(await a.put('/api/users/erin', { password: 'erin-password-2' }), 'user updated');
  for (const x of [erin, api, jwtOnC, apiOnC]) {
    expect(await eventually(async () => (await x.get('/api/me')).status === 401, 1000)).toBe(true);
  }
  const again = await new Client(b.url).login('erin', 'erin-password-2');
  const againOnC = on(c, again.token);
  expect((await againOnC.get('/api/me')).status).toBe(200);
  expectMessage(await a.del('/api/users/erin'), 'user deleted');
  expectMessage(await a.post('/api/users', { username: 'erin', password: 'erin-password-3', role: 'admin' }), 'user created');
  for (const x of [again, againOnC]) {
    expect(await eventually(async () => (await x.get('/api/users')).status === 401, 1000)).toBe(true);
  }
});

test('the failed-login limit is shared: spreading attempts over instances does not dodge it', async () => {
  expectMessage(await a.post('/api/users', { username: 'carol', password: 'carol-password-1' }), 'user created');
  const clients = [a, b, c];
  for (let i = 0; i < 3; i++) {
    expectError(await clients[i].post('/api/login', { username: 'carol', password: 'wrong' }), 401, 'ERR_SEC_5005');
  }
  for (const x of clients) {
    const r = expectError(await x.post('/api/login', { username: 'carol', password: 'carol-password-1' }), 429, 'ERR_SEC_5007');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  // the admin account is not affected
  await new Client(c.url).login(ADMIN, ADMIN_PASSWORD);
});

test('a one-change commit is a small delta in Redis, which the other instances apply to the version they serve', async () => {
  await a.begin();
  expectMessage(await b.post('/api/addresses', { name: 'delta-one', ips: ['10.66.0.1/32'] }), 'address created in candidate');
  const commit = await c.post('/api/config/commit', { description: 'one address' });
  expectMessage(commit, 'commit successful');
  const version = Number(commit.body.version);
  const redis = cluster.peek();
  expect(await redis.strlen(`fw:{${cluster.name}}:version-delta:${version}`)).toBeGreaterThan(0);
  expect(await redis.strlen(`fw:{${cluster.name}}:version-delta:${version}`)).toBeLessThan(2000);
  expect(await redis.exists(`fw:{${cluster.name}}:version:${version}`)).toBe(0); // no whole record: not a keyframe
  // the instances other than the one whose worker committed followed through the delta
  const followed = new RegExp(`"version":${version},[^\\n]*"read":"deltas"[^\\n]*loaded a running version committed elsewhere`);
  expect(await eventually(async () => cluster.nodes.filter((n) => followed.test(n.stdout())).length === 2, 10_000)).toBe(true);
  // and every instance answers the version alike
  const answers = await Promise.all([a, b, c].map(async (x) => (await x.get(`/api/config/versions/${version}`)).text));
  expect(new Set(answers).size).toBe(1);
  expect(JSON.parse(answers[0]).config.addresses.map((x: { name: string }) => x.name)).toContain('delta-one');
});

test('an idle session expires through its Redis lease, even with every instance frozen', async () => {
  await b.begin();
  await b.post('/api/addresses', { name: 'idle', ips: ['10.77.0.0/16'] });
  expect((await c.get('/api/config/session')).body.active).toBe(true);
  const redis = cluster.peek();
  const key = `fw:{${cluster.name}}:session`;
  const ttl = await redis.pttl(key);
  expect(ttl).toBeGreaterThan(0); // a lease: FW_SESSION_TIMEOUT (3 s) plus 5 s of slack
  expect(ttl).toBeLessThanOrEqual(8000);
  // no instance can end it now: only Redis can
  for (const n of cluster.nodes) n.proc.kill('SIGSTOP');
  try {
    expect(await eventually(async () => (await redis.exists(key)) === 0, 15_000)).toBe(true);
  } finally {
    for (const n of cluster.nodes) n.proc.kill('SIGCONT');
  }
  for (const x of [a, b, c]) expect((await x.get('/api/config/session')).body.active).toBe(false);
  expectError(await c.post('/api/addresses', { name: 'late', ips: ['10.78.0.0/16'] }), 409, 'ERR_SYS_3001');
});
