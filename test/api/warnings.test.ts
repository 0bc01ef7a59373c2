// Commit and validate warnings grouped by the covering policies and counted: the catch-all
// moved to the top gives one line for the 30 policies it shadows, not 30 lines run together
// (2,000 of them made a 70 KB paragraph; issue 29). A lone policy keeps its own line
// (test/eval/analysis.test.ts).
import { expectMessage, ok, useDaemon } from '../helpers/daemon';

const d = useDaemon();
const c = d.client;

test('the policies one deny shadows are one counted line; redundant ones are grouped by their cover', async () => {
  await c.begin();
  for (let i = 0; i < 3; i++) await ok(c.post('/api/addresses', { name: `net${i}`, ips: [`10.${i}.0.0/16`] }));
  for (let i = 1; i <= 30; i++) await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': `net${i % 3}`, services: [], log: i % 2 === 0 }));
  await ok(c.post('/api/policies', { action: 'deny' })); // 31
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'net0', log: true })); // 32: redundant with the allows above
  await ok(c.post('/api/policies/31/move', { position: 'top' }));
  const r = expectMessage(await c.post('/api/config/validate'), 'validation passed');
  const lines = r.body.warnings.split('\n');
  expect(lines).toEqual(['policies 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 21 more (31) are shadowed by policy 31']);
  await ok(c.post('/api/policies/31/move', { position: 'bottom' }));
  const commit = expectMessage(await c.post('/api/config/commit'), 'commit successful');
  expect(commit.body.warnings.split('\n')).toEqual(expect.arrayContaining([expect.stringMatching(/^policies 6, 9, 12, .* \(\d+\) are redundant: covered by policy 3$/)]));
});

// Issue 30 part 4: at 100,000 policies with tens of thousands shadowed, each by a cover of its
// own, and one policy covered by 256 narrow ones, the commit's warnings stay 101 lines of a
// few KB: 100 grouped lines, each naming at most ten policies of a group and ten of its cover,
// and a last line counting the groups and the policies left out.
test('the warnings of a commit at 100,000 policies, tens of thousands shadowed, stay a few KB', async () => {
  const x = (await ok(c.get('/api/config/export'))).body;
  const zones = ['za', 'zb', 'zc', 'zd'];
  x.zones = zones.map((name) => ({ name, type: 'l3', color: '', networks: [] }));
  const addresses: Array<{ name: string; ips: string[] }> = [];
  const policies: Array<Record<string, unknown>> = [];
  const policy = (action: string, dst: string, k: number) => policies.push({
    id: policies.length + 1, action, 'src-zone': zones[k % 4], 'dst-zone': zones[(k >> 2) % 4], 'src-addr': 'any', 'dst-addr': dst, services: ['any'], log: false,
  });
  addresses.push({ name: 'big', ips: ['10.250.0.0/16'] });
  for (let j = 0; j < 256; j++) {
    addresses.push({ name: `b${j}`, ips: [`10.250.${j}.0/24`] });
    policy('deny', `b${j}`, 0);
  }
  policy('allow', 'big', 0); // covered by the 256 /24 denies together
  const groups = (100_000 - policies.length) >> 1;
  for (let k = 0; k < groups; k++) {
    const net = `10.${k >> 8 & 255}.${k & 255}`;
    addresses.push({ name: `n${k}`, ips: [`${net}.0/24`] }, { name: `h${k}`, ips: [`${net}.1/32`] });
    policy('deny', `n${k}`, k);
    policy('allow', `h${k}`, k); // shadowed by the deny just before it: a group of its own
  }
  x.addresses = addresses.sort((a, b) => (a.name < b.name ? -1 : 1));
  x.policies = policies;
  await c.begin();
  await ok(c.put('/api/config/candidate', x));
  const r = expectMessage(await c.post('/api/config/commit'), 'commit successful');
  expect(r.text.length).toBeLessThan(16_000);
  const lines: string[] = r.body.warnings.split('\n');
  expect(lines).toHaveLength(101);
  expect(lines[0]).toBe('policy 257 is shadowed by policies 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 246 more (256)');
  expect(lines[1]).toBe('policy 259 is shadowed by policy 258');
  expect(lines[100]).toBe(`... and ${groups + 1 - 100} more warnings about ${groups + 1 - 100} more policies (GET /api/analysis lists them all)`);
}, 300_000);
