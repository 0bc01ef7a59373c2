// fwctl apply and the session it takes (issue 43): a SIGINT or SIGTERM while it loads discards
// the session it began (exit 130/143, said on stderr) instead of leaving it locked until the
// idle expiry; every refusal fwctl can make alone (no terminal without --yes, a file that does
// not parse) comes before the session is taken, so it says that and not "session held"; fwctl
// discard ends one's own session, and another user's only with --force.
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, Client, ok, tempDir, useDaemon } from '../helpers/daemon';
import { fwctl, startFwctl } from '../helpers/fwctl';

const d = useDaemon();
const home = tempDir('fwctl-int-');
const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home });
const file = (name: string) => path.join(home, name);
let other: Client;

beforeAll(async () => {
  const r = await fwctl(['login', d.url, '--user', ADMIN], { ...env(), FWCTL_PASSWORD: ADMIN_PASSWORD });
  expect(r.code).toBe(0);
  await d.client.begin();
  await ok(d.client.post('/api/addresses', { name: 'web', ips: ['10.0.0.10'] }));
  await ok(d.client.post('/api/users', { username: 'other', password: 'other-password-123', role: 'operator' }));
  await d.client.commit();
  other = await new Client(d.url).login('other', 'other-password-123');
  // a rule base big enough that its load is still running when the signal comes
  const doc = (await ok(d.client.get('/api/config/export'))).body;
  doc.policies = Array.from({ length: 20_000 }, (_, i) => ({ action: 'allow', 'dst-addr': 'web', description: `rule ${i}` }));
  fs.writeFileSync(file('big.json'), JSON.stringify(doc));
});

const session = async () => (await ok(d.client.get('/api/config/session'))).body;
const version = async () => (await ok(d.client.get('/api/status'))).body.version;

async function until(what: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test.each([['SIGINT', 130], ['SIGTERM', 143]] as const)('%s during apply\'s load: the session fwctl began is discarded, said so, exit %i, nothing applied', async (signal, exit) => {
  const before = await version();
  const run = startFwctl(['apply', '-f', file('big.json'), '--yes'], env());
  await until(() => /loading \d+ KiB into the candidate/.test(run.output().stderr));
  run.proc.kill(signal);
  const r = await run.done;
  expect({ code: r.code, err: r.stderr }).toEqual({
    code: exit, err: expect.stringMatching(new RegExp(`interrupted \\(${signal}\\): the session fwctl began is discarded, nothing was applied\\n$`)),
  });
  expect((await session()).active).toBe(false); // the next apply is not locked out
  expect(await version()).toBe(before);
  expect((await fwctl(['apply', '-f', file('big.json'), '--yes', '--json'], env())).code).toBe(0);
  await d.client.begin(); // back to the small rule base for the next case
  await ok(d.client.put('/api/config/candidate?mode=replace', (await ok(d.client.get(`/api/config/export?version=${before}`))).body));
  await d.client.commit();
}, 120_000);

test('refusals fwctl can make alone come before the session: no terminal without --yes, a file that does not parse (64, not "held by other")', async () => {
  fs.writeFileSync(file('broken.json'), '{"format": "fwd-config/1", "policies": [');
  fs.writeFileSync(file('broken.yaml'), 'policies:\n  - action: allow\n   bad: indent\n');
  await other.begin();
  try {
    const noTty = await fwctl(['apply', '-f', file('big.json')], env());
    expect({ code: noTty.code, err: noTty.stderr }).toEqual({ code: 64, err: 'fwctl apply: not a terminal: pass --yes to apply without asking\n' });
    const json = await fwctl(['apply', '-f', file('broken.json'), '--yes'], env());
    expect({ code: json.code, err: json.stderr }).toEqual({ code: 64, err: expect.stringMatching(/^fwctl apply: \S+broken\.json is not valid JSON: /) });
    const yaml = await fwctl(['apply', '-f', file('broken.yaml'), '--yes'], env());
    expect({ code: yaml.code, err: yaml.stderr }).toEqual({ code: 64, err: expect.stringMatching(/^fwctl apply: \S+broken\.yaml is not valid YAML: /) });
    expect((await session()).owner).toBe('other');
  } finally {
    await ok(other.post('/api/config/discard'));
  }
});

test('fwctl discard: ends one\'s own session (0), says when there is none (4), another user\'s only with --force', async () => {
  await d.client.begin();
  const mine = await fwctl(['discard'], env());
  expect({ code: mine.code, out: mine.stdout }).toEqual({ code: 0, out: 'session discarded\n' });
  expect((await session()).active).toBe(false);
  const none = await fwctl(['discard'], env());
  expect({ code: none.code, err: none.stderr }).toEqual({ code: 4, err: 'fwctl discard: there is no session to discard\n' });
  await other.begin();
  const theirs = await fwctl(['discard'], env());
  expect({ code: theirs.code, err: theirs.stderr }).toEqual({ code: 4, err: expect.stringMatching(/^fwctl discard: the session is another user's \(other\): an admin can end it with --force\n$/) });
  expect((await session()).owner).toBe('other');
  const forced = await fwctl(['discard', '--force', '--json'], env());
  expect({ code: forced.code, out: JSON.parse(forced.stdout) }).toEqual({ code: 0, out: { message: 'config session discarded' } });
  expect((await session()).active).toBe(false);
});
