// Schedules and rule expiry over HTTP (issue 40 item 4): the committed object and its read
// model (on now or not), refusals with the contract's codes (an unknown schedule named by a
// policy as an unknown address is), eval with a `time` either side of an edge (the rule
// skipped named), expiry in eval and in the analysis, a timed rule never claimed as a cover,
// export and load, the audit trail, fwctl. Runs on both stores.
import { Client, expectError, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { fwctl } from '../helpers/fwctl';

const dir = tempDir();
let d: TestDaemon;
const c = new Client('');

const packet = (time?: string, src = '10.0.0.5') => ({ 'src-ip': src, 'dst-ip': '198.51.100.7', protocol: 'tcp', 'dst-port': 443, ...(time ? { time } : {}) });
const evalAt = async (time?: string, src?: string) => (await ok(c.post('/api/eval', packet(time, src)))).body;

// office: 08:00-18:00 Monday to Friday in Berlin (UTC+1 in December: 07:00Z is the edge)
const OFFICE = { name: 'office', type: 'recurring', 'time-zone': 'Europe/Berlin', days: ['fri', 'mon', 'tue', 'wed', 'thu'], ranges: ['08:00-18:00'] };
const MONDAY_BEFORE = '2026-12-07T06:59:59Z';
const MONDAY_AFTER = '2026-12-07T07:00:00Z';
const SATURDAY = '2026-12-12T09:00:00Z';

beforeAll(async () => {
  d = await startTestDaemon({}, dir);
  c.url = d.url;
  await c.login();
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/schedules', OFFICE));
  await ok(c.post('/api/schedules', { name: 'gone', type: 'once', start: '2020-01-01T00:00:00Z', end: '2020-01-02T00:00:00+01:00' }));
  await ok(c.post('/api/addresses', { name: 'contractor', ips: ['10.0.0.66'] }));
  await ok(c.post('/api/addresses', { name: 'host77', ips: ['10.0.0.77'] }));
  // 1: the contractor until the end of 2026-12-31; 2: lan to wan in office hours;
  // 3: deny lan to wan (would be shadowed by 2 were 2 always on); 4: deny host77 (covered by 2
  // first: the claim is dropped, docs/schedules.md); 5: a policy whose one-time schedule is
  // over; 6: one whose expiry is past; 7 and 8: a static pair (8 redundant: the control)
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'contractor', 'expires-at': '2026-12-31T23:59:59+01:00' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', schedule: 'office' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'host77' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan', schedule: 'gone' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan', 'expires-at': '2021-01-01T00:00:00Z' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'lan', 'src-addr': 'host77' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'lan', 'src-addr': 'host77', services: ['any'] }));
  await c.commit();
});

afterAll(async () => {
  await d?.close();
});

test('the read model: fields as given (days in week order, instants in UTC), on now or not', async () => {
  const list = (await ok(c.get('/api/schedules'))).body;
  expect(list).toEqual([
    { name: 'gone', type: 'once', 'time-zone': 'UTC', start: '2020-01-01T00:00:00.000Z', end: '2020-01-01T23:00:00.000Z', description: '', active: false },
    { ...OFFICE, days: ['mon', 'tue', 'wed', 'thu', 'fri'], description: '', active: expect.any(Boolean) },
  ]);
  const one = (await ok(c.get('/api/policies/2'))).body;
  expect(one.schedule).toBe('office');
  expect((await ok(c.get('/api/policies/1'))).body.expiresAt).toBe('2026-12-31T22:59:59.000Z');
  expect((await ok(c.get('/api/policies/3'))).body.schedule).toBeUndefined();
});

test('refusals: the contract codes, the field named, nothing changed', async () => {
  await c.begin();
  const bad = async (body: unknown, status: number, code: string, details: RegExp) => {
    const r = expectError(await c.post('/api/schedules', body), status, code);
    expect(r.body.details).toMatch(details);
  };
  await bad({ ...OFFICE, name: 'x', 'time-zone': 'Mars/Olympus' }, 400, 'ERR_NET_1004', /time-zone.*IANA/);
  await bad({ ...OFFICE, name: 'x', ranges: ['18:00-08:00'] }, 400, 'ERR_NET_1004', /ranges\[0\].*ends before it starts/);
  await bad({ ...OFFICE, name: 'x', ranges: ['8-18'] }, 400, 'ERR_NET_1004', /ranges\[0\]/);
  await bad({ ...OFFICE, name: 'x', days: ['someday'] }, 400, 'ERR_NET_1005', /days\[0\]/);
  await bad({ ...OFFICE, name: 'x', start: '2027-01-01T00:00:00Z' }, 400, 'ERR_NET_1004', /"start": not a field of a recurring schedule/);
  await bad({ name: 'x', type: 'once', start: '2027-01-02T00:00:00Z', end: '2027-01-01T00:00:00Z' }, 400, 'ERR_NET_1004', /"end": not after "start"/);
  await bad({ name: 'x', type: 'once', start: '2027-01-02T00:00:00', end: '2027-01-03T00:00:00Z' }, 400, 'ERR_NET_1004', /"start".*offset/);
  await bad({ name: 'x', type: 'weekly' }, 400, 'ERR_NET_1005', /type/);
  await bad(OFFICE, 409, 'ERR_NET_2006', /already exists/);
  // a policy naming an unknown schedule: as an unknown address
  const unknown = expectError(await c.post('/api/policies', { action: 'allow', schedule: 'night' }), 400, 'ERR_NET_2003');
  expect(unknown.body.details).toBe('field "schedule": schedule "night" does not exist');
  expectError(await c.post('/api/local-policies', { action: 'allow', schedule: 'night' }), 400, 'ERR_NET_2003');
  const when = expectError(await c.put('/api/policies/3', { 'expires-at': 'tomorrow' }), 400, 'ERR_NET_1004');
  expect(when.body.details).toMatch(/expires-at/);
  const inUse = expectError(await c.del('/api/schedules/office'), 409, 'ERR_NET_2007');
  expect(inUse.body.details).toMatch(/policy 2/);
  expect((await ok(c.get('/api/config/diff'))).body.added).toEqual([]);
  await ok(c.post('/api/config/discard', {}));
});

test('eval with a time either side of the edge: the rule off names itself as skipped', async () => {
  const before = await evalAt(MONDAY_BEFORE);
  expect(before).toMatchObject({ action: 'deny', policy: { id: 3 }, skipped: { id: 2, table: 'policies', reason: 'schedule', schedule: 'office' } });
  const after = await evalAt(MONDAY_AFTER);
  expect(after).toMatchObject({ action: 'allow', policy: { id: 2 } });
  expect(after.skipped).toBeUndefined();
  expect(await evalAt(SATURDAY)).toMatchObject({ action: 'deny', policy: { id: 3 }, skipped: { id: 2 } });
  // the same edge in the candidate
  await c.begin();
  const cand = await ok(c.post('/api/eval?config=candidate', packet(MONDAY_BEFORE)));
  expect(cand.body.skipped).toMatchObject({ id: 2, reason: 'schedule' });
  await ok(c.post('/api/config/discard', {}));
  expectError(await c.post('/api/eval', packet('Monday morning')), 400, 'ERR_NET_1004');
});

test('expiry: matches until expires-at, then never again (eval and the analysis)', async () => {
  expect(await evalAt('2026-12-31T22:59:58Z', '10.0.0.66')).toMatchObject({ action: 'allow', policy: { id: 1 } });
  const after = await evalAt('2026-12-31T22:59:59Z', '10.0.0.66');
  expect(after.policy.id).not.toBe(1);
  expect(after.skipped).toEqual({ id: 1, table: 'policies', reason: 'expired' });
  // 6 expired in 2021, 5's one-time schedule ended in 2020: both expired now
  const wanLan = { 'src-ip': '198.51.100.7', 'dst-ip': '10.0.0.5', protocol: 'tcp', 'dst-port': 22, 'in-interface': 'eth0' };
  const r = (await ok(c.post('/api/eval', wanLan))).body;
  expect(r).toMatchObject({ action: 'deny', reason: 'default-deny', skipped: { id: 5, reason: 'expired', schedule: 'gone' } });
  const a = (await ok(c.get('/api/analysis'))).body;
  expect(a.expired).toEqual([5, 6]);
});

test('the analysis never claims a scheduled rule as a cover, and still reports static ones', async () => {
  const a = (await ok(c.get('/api/analysis'))).body;
  const covers = [...a.shadowed, ...a.redundant];
  // 3 (deny lan to wan) would be shadowed by 2 (allow lan to wan) were 2 always on
  expect(covers.find((x: { id: number }) => x.id === 3)).toBeUndefined();
  for (const x of covers) for (const timed of [1, 2, 5, 6]) expect(x.coveredBy).not.toContain(timed);
  // 8 is covered by 7, a static rule: reported
  expect(covers).toContainEqual({ id: 8, coveredBy: [7] });
});

test('export and load: schedules and the policies\' fields round-trip; an unknown schedule is placed', async () => {
  const doc = (await ok(c.get('/api/config/export'))).body;
  expect(doc.schedules.map((s: { name: string }) => s.name)).toEqual(['gone', 'office']);
  expect(doc.policies[1].schedule).toBe('office');
  expect(doc.policies[0]['expires-at']).toBe('2026-12-31T22:59:59.000Z');
  await c.begin();
  await ok(c.put('/api/config/candidate', doc));
  const diff = (await ok(c.get('/api/config/diff'))).body;
  expect([...diff.added, ...diff.changed, ...diff.deleted]).toEqual([]);
  const broken = { ...doc, policies: [{ ...doc.policies[1], schedule: 'night' }] };
  const r = expectError(await c.put('/api/config/candidate', broken), 400, 'ERR_NET_2003');
  expect(r.body.details).toMatch(/policies\[0\]\.schedule: schedule "night" does not exist/);
  // a change of a schedule is a change of the candidate: diff and audit
  await ok(c.put('/api/schedules/office', { ranges: ['07:00-19:00'] }));
  expect((await ok(c.get('/api/config/diff'))).body.changed).toEqual([{ kind: 'schedule', key: 'office' }]);
  const audit = (await ok(c.get('/api/audit?action=change.update'))).body;
  expect(JSON.stringify(audit)).toMatch(/schedule office/);
  await ok(c.post('/api/config/discard', {}));
});

test('fwctl schedules and trace --time', async () => {
  const env = { FWCTL_URL: d.url, FWCTL_TOKEN: c.token, FWCTL_CONFIG: `${dir}/fwctl-none.json` };
  const list = await fwctl(['schedules', '--json'], env);
  expect(list.code).toBe(0);
  const out = JSON.parse(list.stdout);
  expect(out.schedules.map((s: { name: string }) => s.name)).toEqual(['gone', 'office']);
  expect(out.off).toEqual(expect.arrayContaining([{ id: 5, reason: 'expired' }, { id: 6, reason: 'expired' }]));
  const text = await fwctl(['schedules'], env);
  expect(text.stdout).toMatch(/office\s+(on|off)\s+mon,tue,wed,thu,fri 08:00-18:00 Europe\/Berlin/);
  const t = await fwctl(['trace', '--src', '10.0.0.5', '--dst', '198.51.100.7', '--proto', 'tcp', '--dport', '443', '--time', MONDAY_BEFORE], env);
  expect(t.code).toBe(0);
  expect(t.stdout).toMatch(/skipped\s+#2 \(off by schedule office\)/);
});
