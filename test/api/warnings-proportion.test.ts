// Warnings in proportion to the change (issue 43, item 7): with many policies already
// shadowed, a one-field change that shadows one more answers validate and commit with that one
// first and one counted line for the rest, not every finding again; GET /api/analysis still
// lists them all, and fwctl apply prints the same few lines.
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, expectMessage, ok, tempDir, useDaemon } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';

const d = useDaemon();
const c = d.client;
const home = tempDir('fwctl-warn-');
const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home });

beforeAll(async () => {
  await c.begin();
  for (let i = 0; i < 40; i++) await ok(c.post('/api/addresses', { name: `h${i}`, ips: [`10.1.0.${i + 1}`] }));
  await ok(c.post('/api/addresses', { name: 'net', ips: ['10.1.0.0/24'] }));
  await ok(c.post('/api/addresses', { name: 'other', ips: ['10.2.0.0/24'] }));
  await ok(c.post('/api/policies', { action: 'deny', 'dst-addr': 'net' })); // 1 shadows the 30 below
  for (let i = 0; i < 30; i++) await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': `h${i}` })); // 2-31
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'h35' })); // 32: shadowed too
  await ok(c.post('/api/policies', { action: 'allow', 'dst-addr': 'other' })); // 33: not shadowed
  await c.commit();
  const r = await fwctl(['login', d.url, '--user', ADMIN], { ...env(), FWCTL_PASSWORD: ADMIN_PASSWORD });
  expect(r.code).toBe(0);
});

test('validate and commit: the finding the change makes first, then one counted line for those already there', async () => {
  const all = (await ok(c.get('/api/analysis'))).body;
  expect(all.shadowed).toHaveLength(31);
  await c.begin();
  await ok(c.put('/api/policies/33', { 'dst-addr': 'h36' })); // one field: 33 becomes shadowed by 1
  const v = expectMessage(await c.post('/api/config/validate'), 'validation passed');
  expect(v.body.warnings.split('\n')).toEqual([
    'policy 33 is shadowed by policy 1',
    '31 policies were already shadowed or redundant before this change (GET /api/analysis lists them all)',
  ]);
  const r = expectMessage(await c.post('/api/config/commit'), 'commit successful');
  expect(r.body.warnings).toBe(v.body.warnings);
  expect((await ok(c.get('/api/analysis'))).body.shadowed).toHaveLength(32); // the full list stays there
});

test('a change that alters no finding answers only the counted line; fwctl apply prints it', async () => {
  const doc = (await ok(c.get('/api/config/export'))).body;
  doc.policies.find((p: { id: number }) => p.id === 2).description = 'one field';
  const file = path.join(home, 'one-field.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const r = await fwctl(['apply', '-f', file, '--yes'], env());
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('warnings:\n32 policies were already shadowed or redundant before this change (GET /api/analysis lists them all)\n');
  expect(r.stderr).not.toMatch(/is shadowed by/);
});
