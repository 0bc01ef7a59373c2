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
