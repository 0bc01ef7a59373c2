// fwctl export, plan and apply against a real daemon, run as processes: the file round trip,
// plan's exit codes (0 no change, 2 changes), apply with --yes (without it and no terminal: 64),
// apply --confirm (the daemon reverts it unless fwctl confirm comes), a refused file leaves
// no session behind, a session held by another user is exit 4 for apply (plan is read-only
// and never takes one), plan's field-level output and rules matched without ids.
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, Client, ok, tempDir, useDaemon } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';

const d = useDaemon();
const home = tempDir('fwctl-');
const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home });
const file = (name: string) => path.join(home, name);

beforeAll(async () => {
  const r = await fwctl(['login', d.url, '--user', ADMIN], { ...env(), FWCTL_PASSWORD: ADMIN_PASSWORD });
  expect(r.code).toBe(0);
  await d.client.begin();
  await ok(d.client.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  await ok(d.client.post('/api/policies', { action: 'allow', 'dst-addr': 'web' }));
  await d.client.commit();
});

async function sessionActive(): Promise<boolean> {
  return (await ok(d.client.get('/api/config/session'))).body.active;
}

test('export writes the running document (JSON or YAML); plan of it is exit 0 with no changes', async () => {
  const json = await fwctl(['export', '-o', file('running.json')], env());
  expect(json.code).toBe(0);
  const doc = JSON.parse(fs.readFileSync(file('running.json'), 'utf8'));
  expect(doc).toEqual((await ok(d.client.get('/api/config/export'))).body);
  const yaml = await fwctl(['export', '--format', 'yaml'], env());
  expect(yaml.stdout).toMatch(/^format: fwd-config\/1$/m);
  fs.writeFileSync(file('running.yaml'), yaml.stdout);
  for (const f of ['running.json', 'running.yaml']) {
    const plan = await fwctl(['plan', '-f', file(f)], env());
    expect({ code: plan.code, out: plan.stdout }).toEqual({ code: 0, out: expect.stringMatching(/^no changes against version \d+$/m) });
  }
  expect(await sessionActive()).toBe(false); // plan leaves no session behind
  expect((await fwctl(['export', '--format', 'xml'], env())).code).toBe(64);
});

test('plan of a changed file: exit 2, the changes as a table (and as the diff with --json); nothing applied', async () => {
  const doc = JSON.parse(fs.readFileSync(file('running.json'), 'utf8'));
  doc.addresses.push({ name: 'db', ips: ['10.0.0.20'] });
  doc.policies[0]['dst-addr'] = 'db';
  doc.policies[0].tags = ['web'];
  fs.writeFileSync(file('changed.json'), JSON.stringify(doc));
  const plan = await fwctl(['plan', '-f', file('changed.json')], env());
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/^\+ +address +db$/m);
  expect(plan.stdout).toMatch(/^~ +policy +\d+ +at position 1$/m); // a rule by its id and its place
  expect(plan.stdout).toMatch(/^~ +policy +\d+ +at position 1\n +dst-addr: "web" -> "db"$/m); // the field, old and new
  expect(plan.stdout).toMatch(/^ +tags: none -> \["web"\]$/m); // an absent list reads none, not null
  expect(plan.stdout).toMatch(/1 to add, 1 to change, 0 to delete, 0 moved \(against/);
  const json = await fwctl(['plan', '-f', file('changed.json'), '--json'], env());
  expect(json.code).toBe(2);
  expect(JSON.parse(json.stdout)).toEqual(expect.objectContaining({ added: [{ kind: 'address', key: 'db' }] }));
  expect((await d.client.get('/api/addresses/db')).status).toBe(404);
  expect(await sessionActive()).toBe(false);
});

test('apply without a terminal and without --yes refuses (64) and applies nothing; --yes commits; applied again, nothing to do', async () => {
  const noTty = await fwctl(['apply', '-f', file('changed.json')], env());
  expect({ code: noTty.code, err: noTty.stderr }).toEqual({ code: 64, err: expect.stringMatching(/--yes/) });
  expect(await sessionActive()).toBe(false);
  const r = await fwctl(['apply', '-f', file('changed.json'), '--yes', '-m', 'add db'], env());
  expect({ code: r.code, out: r.stdout }).toEqual({ code: 0, out: expect.stringMatching(/^committed version (\d+)$/m) });
  expect(r.stderr).toMatch(/loading \d+ KiB into the candidate\.\.\. done/);
  expect(r.stderr).toMatch(/committing\.\.\. done/);
  expect((await ok(d.client.get('/api/addresses/db'))).body.name).toBe('db');
  const status = (await ok(d.client.get('/api/status'))).body;
  expect(status.lastCommit.description).toBe('add db');
  // applied again: nothing to do, exit 0 and no commit
  const again = await fwctl(['apply', '-f', file('changed.json'), '--yes', '--json'], env());
  expect({ code: again.code, body: JSON.parse(again.stdout) }).toEqual({ code: 0, body: expect.objectContaining({ changes: 0 }) });
  expect((await ok(d.client.get('/api/status'))).body.version).toBe(status.version);
});

test('a file the daemon refuses: exit 1 with every problem, and no session left behind', async () => {
  const doc = JSON.parse(fs.readFileSync(file('running.json'), 'utf8'));
  doc.policies.push({ action: 'deny', 'dst-addr': 'nowhere' });
  fs.writeFileSync(file('bad.json'), JSON.stringify(doc));
  const r = await fwctl(['apply', '-f', file('bad.json'), '--yes'], env());
  expect({ code: r.code, err: r.stderr }).toEqual({ code: 1, err: expect.stringMatching(/400 ERR_NET_2003 .*policies\[\d+\]\.dst-addr/) });
  expect(await sessionActive()).toBe(false);
  expect((await fwctl(['apply', '-f', file('missing.json'), '--yes'], env())).code).toBe(64);
});

test('a session held by another user: plan still answers (read-only), apply is exit 4, and that session is untouched', async () => {
  await ok(d.client.post('/api/users', { username: 'other', password: 'other-password-123', role: 'operator' }));
  const other = await new Client(d.url).login('other', 'other-password-123');
  expect((await fwctl(['export', '-o', file('now.json')], env())).code).toBe(0);
  await other.begin();
  try {
    const audited = (await ok(d.client.get('/api/audit?limit=1000'))).body.entries.length;
    const p = await fwctl(['plan', '-f', file('now.json')], env());
    expect({ code: p.code, err: p.stderr }).toEqual({ code: 0, err: '' });
    expect((await ok(d.client.get('/api/audit?limit=1000'))).body.entries.length).toBe(audited); // no begin, load, discard
    const r = await fwctl(['apply', '-f', file('now.json'), '--yes'], env());
    expect({ code: r.code, err: r.stderr }).toEqual({ code: 4, err: expect.stringMatching(/^fwctl apply: .*409 ERR_SYS_3002.*owner: other/) });
    const json = await fwctl(['apply', '-f', file('now.json'), '--yes', '--json'], env());
    expect({ code: json.code, out: JSON.parse(json.stdout) }).toEqual({ code: 4, out: { error: expect.objectContaining({ code: 'ERR_SYS_3002', status: 409, exit_code: 4 }) } });
    expect((await ok(d.client.get('/api/config/session'))).body.owner).toBe('other');
  } finally {
    await ok(other.post('/api/config/discard'));
  }
});

test('plan of a file without ids matches rules by content (no change); a moved rule shows its positions', async () => {
  const doc = JSON.parse(fs.readFileSync(file('now.json'), 'utf8'));
  doc.policies.push({ action: 'deny' });
  fs.writeFileSync(file('with-deny.json'), JSON.stringify(doc));
  expect((await fwctl(['apply', '-f', file('with-deny.json'), '--yes'], env())).code).toBe(0);
  const ids = (await ok(d.client.get('/api/config/export'))).body.policies.map((p: { id: number }) => String(p.id));
  for (const p of doc.policies) delete p.id;
  fs.writeFileSync(file('no-ids.json'), JSON.stringify(doc));
  const same = await fwctl(['plan', '-f', file('no-ids.json')], env());
  expect({ code: same.code, out: same.stdout }).toEqual({ code: 0, out: expect.stringMatching(/^no changes against version \d+$/m) });
  doc.policies.unshift(doc.policies.pop());
  fs.writeFileSync(file('deny-first.json'), JSON.stringify(doc));
  const moved = await fwctl(['plan', '-f', file('deny-first.json')], env());
  expect(moved.code).toBe(2);
  expect(moved.stdout).toMatch(new RegExp(`^\\^ +policy +${ids[1]} +position 2 -> 1, now at the top \\(was at the bottom\\)$`, 'm'));
  expect(moved.stdout).toMatch(/0 to add, 0 to change, 0 to delete, 1 moved \(against/); // one move said once
  const applied = await fwctl(['apply', '-f', file('deny-first.json'), '--yes'], env()); // apply shows the same detail
  expect({ code: applied.code, out: applied.stdout }).toEqual({ code: 0, out: expect.stringMatching(new RegExp(`^\\^ +policy +${ids[1]} +position 2 -> 1`, 'm')) });
});

test('plan names a rule by its id, its name and its place: changed, deleted and moved (issue 43: ids alone)', async () => {
  const doc = (await ok(d.client.get('/api/config/export'))).body;
  doc.policies[0].name = 'web-in';
  doc.policies[1].name = 'deny-rest';
  fs.writeFileSync(file('named.json'), JSON.stringify(doc));
  expect((await fwctl(['apply', '-f', file('named.json'), '--yes'], env())).code).toBe(0);
  const [first, second] = doc.policies.map((p: { id: number }) => p.id);
  doc.policies[0].log = true; // changed
  doc.policies.push(doc.policies.shift()); // web-in moved to the bottom
  doc.policies = doc.policies.filter((p: { name?: string }) => p.name !== 'deny-rest'); // deleted
  doc.policies.push({ action: 'deny', name: 'catch-all' }); // added
  fs.writeFileSync(file('named-changed.json'), JSON.stringify(doc));
  const r = await fwctl(['plan', '-f', file('named-changed.json')], env());
  expect(r.code).toBe(2);
  expect(r.stdout).toMatch(new RegExp(`^~ +policy +${first} web-in +at position \\d+\\n +log: false -> true$`, 'm'));
  expect(r.stdout).toMatch(new RegExp(`^- +policy +${second} deny-rest +was at position 2$`, 'm'));
  expect(r.stdout).toMatch(/^\+ +policy +\d+ catch-all +position \d+$/m);
});

test('apply --confirm: reverted by the daemon unless fwctl confirm comes in time', async () => {
  const doc = JSON.parse(fs.readFileSync(file('changed.json'), 'utf8'));
  doc.addresses.push({ name: 'tmp', ips: ['10.0.0.30'] });
  fs.writeFileSync(file('tmp.json'), JSON.stringify(doc));
  const kept = await fwctl(['apply', '-f', file('tmp.json'), '--yes', '--confirm', '600'], env());
  expect(kept.code).toBe(0);
  expect(kept.stdout).toMatch(/^commit confirmed: run "fwctl confirm" before \S+Z, or version \d+ is restored$/m);
  expect((await fwctl(['confirm'], env())).code).toBe(0);
  expect((await ok(d.client.get('/api/config/session'))).body.pending_confirm).toBeNull();

  doc.addresses.push({ name: 'tmp2', ips: ['10.0.0.31'] });
  fs.writeFileSync(file('tmp2.json'), JSON.stringify(doc));
  const lost = await fwctl(['apply', '-f', file('tmp2.json'), '--yes', '--confirm', '1'], env());
  expect(lost.code).toBe(0);
  const end = Date.now() + 20_000;
  while ((await d.client.get('/api/addresses/tmp2')).status === 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  expect((await d.client.get('/api/addresses/tmp2')).status).toBe(404);
  expect((await ok(d.client.get('/api/status'))).body.lastCommit.description).toMatch(/^automatic rollback/);
  expect((await fwctl(['apply', '-f', file('tmp2.json'), '--yes', '--confirm', 'soon'], env())).code).toBe(64);
});
