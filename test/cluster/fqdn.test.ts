// FQDN addresses in a cluster (issue 40, item 1): one instance resolves the names (it holds the
// lease) and publishes each answer, and every instance applies the published answer: the three
// read models show the same prefixes with the same resolution times (three resolvers would
// each have their own), eval answers the same on every node, and a change is one event for the
// cluster, not one per instance. When the resolver dies (kill -9), its lease lapses and another
// instance resolves: a later change still reaches every node.
import { Client, expectMessage, ok, tempDir } from '../helpers/daemon';
import { TestDns } from '../helpers/dnsmasq';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster';
import { kill9 } from '../helpers/process';
import { openEvents, type SseStream } from '../helpers/sse';
import { lanWan } from '../helpers/lan-wan';

const NAME = 'app.cluster.test';
const dns = new TestDns(tempDir('fwd-dns-'), 'cluster.test');
let cluster: TestCluster;
let events: SseStream;

beforeAll(async () => {
  await dns.start([`198.51.100.1 ${NAME}`]);
  cluster = await startCluster(3, { FW_DNS_SERVERS: dns.server, FW_FQDN_REFRESH_MIN: '1', FW_FQDN_REFRESH_MAX: '2' });
  const c = cluster.clients[0];
  events = await openEvents(c.url, '/api/events?types=fqdn', { Authorization: `Bearer ${c.token}` });
  expectMessage(await c.post('/api/config/begin'), 'config session started');
  await lanWan(c);
  await ok(c.post('/api/addresses', { name: 'app', fqdn: NAME }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'app' }));
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
}, 120_000);

afterAll(async () => {
  events?.close();
  try {
    await cluster?.close();
  } finally {
    await dns.stop();
  }
});

interface Seen { resolved: string[]; resolvedAt: string | null; changedAt: string | null }
const seen = async (c: Client): Promise<Seen> => {
  const { resolved, resolvedAt, changedAt } = (await ok(c.get('/api/addresses/app'))).body;
  return { resolved, resolvedAt, changedAt };
};
const live = () => cluster.clients.filter((_c, i) => cluster.nodes[i].proc.exitCode === null && cluster.nodes[i].proc.signalCode === null);

/** Every live instance shows `prefix` with one and the same change time; that time. */
async function everywhere(prefix: string): Promise<string> {
  let all: Seen[] = [];
  const same = await eventually(async () => {
    all = await Promise.all(live().map(seen));
    return all.every((s) => s.resolved.join() === prefix && s.changedAt === all[0].changedAt);
  }, 30_000);
  expect(all.map((s) => s.resolved.join())).toEqual(live().map(() => prefix));
  expect(same).toBe(true);
  return all[0].changedAt!;
}

/** The instance holding the resolver's lease (its holder id starts with the node id). */
async function resolver(): Promise<number> {
  const holder = await cluster.peek().get(`fw:{${cluster.name}}:shared:lease:fqdn-resolver`);
  return Number(/^node(\d+)-/.exec(holder ?? '')?.[1] ?? -1);
}

test('one instance resolves and publishes; every instance applies the same answer', async () => {
  await everywhere('198.51.100.1/32');
  expect(await resolver()).toBeGreaterThanOrEqual(0);
  dns.answer([`198.51.100.2 ${NAME}`]);
  const changedAt = await everywhere('198.51.100.2/32');
  // each node evaluates with it and names the same answer
  for (const c of live()) {
    const a = (await ok(c.post('/api/eval', { 'src-ip': '10.0.0.1', 'dst-ip': '198.51.100.2', protocol: 'tcp', 'dst-port': 443 }))).body;
    expect(a).toMatchObject({ action: 'allow', policy: { id: 1 }, fqdn: [{ address: 'app', entry: '198.51.100.2/32' }] });
  }
  // one event for the cluster per change (three resolvers would make three)
  await events.next((m) => m.data.resolved?.join() === '198.51.100.2/32', 'the change event');
  await new Promise((r) => setTimeout(r, 2000));
  const changes = events.messages.filter((m) => m.data.state === 'changed');
  expect(changes.map((m) => m.data.resolved.join())).toEqual(['198.51.100.1/32', '198.51.100.2/32']);
  expect(Date.parse(changes[1].data.resolvedAt)).toBe(Date.parse(changedAt));
}, 90_000);

test('when the resolver dies another instance takes over', async () => {
  const dead = await resolver();
  await kill9(cluster.nodes[dead]);
  dns.answer([`198.51.100.3 ${NAME}`]);
  // the lease (15 s) lapses and one of the others resolves the new answer
  await everywhere('198.51.100.3/32');
  const now = await resolver();
  expect(now).toBeGreaterThanOrEqual(0);
  expect(now).not.toBe(dead);
}, 90_000);
