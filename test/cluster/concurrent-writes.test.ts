// Many writers on three instances at once (issue 20 part 4): address and service changes made
// on different instances land without waiting for each other (footprints), yet every change is
// judged as if alone after every change before it in the journal. Checked over HTTP: no
// change is refused for contention (policies from every instance at once included); of two
// creations of one name exactly one wins; of a
// delete racing a policy that refers to the same address exactly one wins; every instance and
// an instance started afterwards (which replays the journal from the start) hold the same
// candidate; the commit holds it too.
import { ADMIN, Client, expectError, type Res } from '../helpers/daemon';
import { startCluster, type TestCluster } from '../helpers/cluster';

let cluster: TestCluster;
let clients: Client[];

beforeAll(async () => {
  cluster = await startCluster(3);
  clients = cluster.clients;
});
afterAll(async () => {
  await cluster?.close();
});

/** Runs `jobs` with at most `width` in flight, spreading them over the instances in turn. */
async function spread<T>(jobs: Array<(c: Client) => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i](clients[i % clients.length]);
    }
  }));
  return out;
}

const statuses = (rs: Res[]) => rs.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.body?.code}`));

async function candidateOf(c: Client): Promise<string> {
  const r = await c.get('/api/config/export?config=candidate');
  expect(r.status).toBe(200);
  const { version: _v, ...config } = r.body;
  return JSON.stringify(config);
}

test('three instances, 64 writers: nothing refused for contention, every conflict decided once, one candidate everywhere', async () => {
  expect((await clients[0].post('/api/config/begin')).status).toBe(200);
  // 900 distinct creations, 60 names created twice at once on two instances, 90 services
  const jobs: Array<(c: Client) => Promise<Res>> = [];
  for (let i = 0; i < 900; i++) jobs.push((c) => c.post('/api/addresses', { name: `h${i}`, ips: [`10.${i >> 8}.${i & 255}.0/24`] }));
  for (let i = 0; i < 60; i++) {
    const body = { name: `twice${i}`, ips: [`10.200.${i}.0/24`] };
    jobs.push((c) => c.post('/api/addresses', body), (c) => c.post('/api/addresses', body));
  }
  for (let i = 0; i < 90; i++) jobs.push((c) => c.post('/api/services', { name: `s${i}`, protocol: 'tcp', ports: [1000 + i] }));
  const answers = await spread(jobs, 64);
  expect(statuses(answers.slice(0, 900)).filter((s) => s !== 200)).toEqual([]);
  expect(statuses(answers.slice(1020)).filter((s) => s !== 200)).toEqual([]);
  for (let i = 0; i < 60; i++) {
    const pair = [answers[900 + 2 * i], answers[901 + 2 * i]];
    expect(pair.filter((r) => r.status === 200)).toHaveLength(1);
    expectError(pair.find((r) => r.status !== 200)!, 409, 'ERR_NET_2006');
  }

  // a delete of h<i> races a policy naming h<i> on another instance: exactly one of them wins
  const races: Array<(c: Client) => Promise<Res>> = [];
  for (let i = 0; i < 40; i++) {
    races.push((c) => c.del(`/api/addresses/h${i}`), (c) => c.post('/api/policies', { action: 'allow', 'dst-addr': `h${i}` }));
  }
  const raced = await spread(races, 64);
  for (let i = 0; i < 40; i++) {
    const [del, pol] = [raced[2 * i], raced[2 * i + 1]];
    expect([del.status, pol.status].filter((s) => s === 200)).toHaveLength(1);
    if (del.status !== 200) expectError(del, 409, 'ERR_NET_2007');
    if (pol.status !== 200) expectError(pol, 400, 'ERR_NET_2003');
  }

  // policies from every instance at once: each round one instance's group lands, the others
  // catch up and try again, none is given up on (409 ERR_SYS_3002), no id is handed out twice
  const policyJobs = Array.from({ length: 600 }, (_, i) => (c: Client) => c.post('/api/policies', { action: i % 2 ? 'allow' : 'deny', 'dst-addr': `h${100 + (i % 800)}` }));
  const policies = await spread(policyJobs, 64);
  expect(statuses(policies).filter((s) => s !== 200)).toEqual([]);
  expect(new Set(policies.map((r) => r.body.id)).size).toBe(600);

  // every instance holds the same candidate, and so does one that replays the whole journal
  const seen = await Promise.all(clients.map(candidateOf));
  await cluster.restart(3);
  const fresh = await candidateOf(cluster.clients[3]);
  for (const s of seen) expect(s).toBe(fresh);
  const cand = JSON.parse(fresh) as { addresses: Array<{ name: string }>; policies: Array<{ 'dst-addr': string }>; services: unknown[] };
  const names = new Set(cand.addresses.map((a) => a.name));
  expect(names.size).toBe(900 + 60 - raced.filter((r, i) => i % 2 === 0 && r.status === 200).length);
  for (const p of cand.policies) expect(names.has(p['dst-addr'])).toBe(true);
  expect(cand.services).toHaveLength(90);
  const changes = answers.filter((r) => r.status === 200).length + raced.filter((r) => r.status === 200).length + policies.length;
  for (const c of cluster.clients) expect((await c.get('/api/config/session')).body).toMatchObject({ active: true, owner: ADMIN, changes });

  const commit = await clients[2].post('/api/config/commit', { description: 'many writers' });
  expect(commit.status).toBe(200);
  for (const c of cluster.clients) {
    const running = await c.get('/api/config/export');
    const { version: _v, ...config } = running.body;
    expect(JSON.stringify(config)).toBe(fresh);
  }
});
