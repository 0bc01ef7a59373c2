// fwctl against a real daemon, run as a process: login (profile file 0600), status, trace,
// confirm, watch, and the exit codes a script relies on. The configuration-file commands
// (export, plan, apply) are in fwctl-config.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, expectMessage, ok, tempDir, useDaemon } from '../helpers/daemon';
import { lanWan } from '../helpers/lan-wan';
import { fwctl } from '../helpers/fwctl';
import { freePort } from '../helpers/redis';

const d = useDaemon();
const home = tempDir('fwctl-');
const profile = path.join(home, 'cfg', 'fwctl', 'config.json');
const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home });

beforeAll(async () => {
  const r = await fwctl(['login', d.url, '--user', ADMIN], { ...env(), FWCTL_PASSWORD: ADMIN_PASSWORD });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/^logged in to http:\/\/127\.0\.0\.1:\d+ as admin/);
});

test('login keeps URL and token in a file only its owner can read; status reads the daemon with it', async () => {
  expect(fs.statSync(profile).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.dirname(profile)).mode & 0o777).toBe(0o700);
  const saved = JSON.parse(fs.readFileSync(profile, 'utf8'));
  expect(saved).toEqual({ url: d.url, token: expect.any(String), user: ADMIN });
  const me = await fetch(`${d.url}/api/me`, { headers: { Authorization: `Bearer ${saved.token}` } });
  expect(me.status).toBe(200);
  const table = await fwctl(['status'], env());
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/^daemon +http:\/\/127\.0\.0\.1:\d+ \(node /m);
  expect(table.stdout).toMatch(/^running +version \d+ by /m);
  expect(table.stdout).toMatch(/^confirm +nothing pending$/m);
  const json = await fwctl(['status', '--json'], env());
  expect(JSON.parse(json.stdout)).toEqual((await ok(d.client.get('/api/status'))).body && expect.objectContaining({ version: expect.any(Number), node: d.daemon.daemon.ctx.nodes.id }));
});

test('FWCTL_TOKEN and FWCTL_URL need no profile; a login with FWCTL_TOKEN stores it', async () => {
  const bare = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'none') };
  const r = await fwctl(['status', '--json'], { ...bare, FWCTL_URL: d.url, FWCTL_TOKEN: d.client.token });
  expect(r.code).toBe(0);
  const other = path.join(home, 'token-login.json');
  const l = await fwctl(['login', d.url], { ...bare, FWCTL_CONFIG: other, FWCTL_TOKEN: d.client.token });
  expect(l.code).toBe(0);
  expect(JSON.parse(fs.readFileSync(other, 'utf8')).token).toBe(d.client.token);
});

test('exit codes: 3 not logged in or refused, 5 unreachable, 64 bad command line', async () => {
  const bare = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'none') };
  const none = await fwctl(['status'], bare);
  expect({ code: none.code, err: none.stderr }).toEqual({ code: 3, err: expect.stringMatching(/not logged in/) });
  const bad = await fwctl(['login', d.url, '--user', ADMIN], { ...bare, FWCTL_PASSWORD: 'wrong-password-1' });
  expect({ code: bad.code, err: bad.stderr }).toEqual({ code: 3, err: expect.stringMatching(/401 ERR_SEC_5005/) });
  const revoked = await fwctl(['status'], { ...bare, FWCTL_URL: d.url, FWCTL_TOKEN: 'not.a.token' });
  expect(revoked.code).toBe(3);
  const port = await freePort();
  const down = await fwctl(['status', '--url', `http://127.0.0.1:${port}`], { ...bare, FWCTL_TOKEN: 'x' });
  expect({ code: down.code, err: down.stderr }).toEqual({ code: 5, err: expect.stringMatching(/cannot reach/) });
  expect((await fwctl(['frobnicate'], env())).code).toBe(64);
  expect((await fwctl(['status', '--bogus'], env())).code).toBe(64);
  expect((await fwctl(['trace', '--src', '10.0.0.5'], env())).code).toBe(64);
  expect((await fwctl(['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'tcp', '--dport', 'x'], env())).code).toBe(64);
});

test('trace shows a packet\'s way through the running configuration as a table, and --json gives /api/eval\'s answer', async () => {
  await d.client.begin();
  await lanWan(d.client);
  await ok(d.client.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' }));
  await d.client.commit();
  const args = ['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'tcp', '--dport', '443'];
  const r = await fwctl(args, env());
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/^packet +10\.0\.0\.5 -> 8\.8\.8\.8 tcp\/443$/m);
  expect(r.stdout).toMatch(/^zones +lan -> wan$/m);
  expect(r.stdout).toMatch(/^route +#\d+ 0\.0\.0\.0\/0 via eth0$/m);
  expect(r.stdout).toMatch(/^policy +#\d+ allow$/m);
  expect(r.stdout).toMatch(/^verdict +ALLOW \(policy\)$/m);
  const json = JSON.parse((await fwctl([...args, '--json'], env())).stdout);
  const direct = (await ok(d.client.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'tcp', 'dst-port': 443 }))).body;
  expect(json).toEqual(direct);
  const refused = await fwctl(['trace', '--src', 'nonsense', '--dst', '8.8.8.8', '--proto', 'tcp', '--dport', '1'], env());
  expect({ code: refused.code, err: refused.stderr }).toEqual({ code: 1, err: expect.stringMatching(/400 ERR_NET_1001/) });
});

test('trace of an ICMP packet by type and code (issue 27): the table names them, --json is /api/eval\'s answer', async () => {
  await d.client.begin();
  await ok(d.client.post('/api/services', { name: 'ping', protocol: 'icmp', 'icmp-type': 8 }));
  await ok(d.client.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['ping'] }));
  await ok(d.client.post('/api/policies/2/move', { position: 'top' }));
  await d.client.commit();
  const args = ['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'icmp', '--icmp-type', '8', '--icmp-code', '0'];
  const r = await fwctl(args, env());
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/^packet +10\.0\.0\.5 -> 8\.8\.8\.8 icmp type 8 code 0$/m);
  expect(r.stdout).toMatch(/^policy +#2 deny$/m);
  const json = JSON.parse((await fwctl([...args, '--json'], env())).stdout);
  expect(json).toEqual((await ok(d.client.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'icmp', 'icmp-type': 8, 'icmp-code': 0 }))).body);
  const echoReply = JSON.parse((await fwctl(['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'icmp', '--icmp-type', '0', '--json'], env())).stdout);
  expect(echoReply.policy).toEqual({ id: 1, action: 'allow', log: false });
  expect((await fwctl(['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'icmp', '--icmp-type', '256'], env())).code).toBe(64);
});

test('trace --sport (issue 27): a service with source ports takes the packet from one of them only; the table names the port', async () => {
  await d.client.begin();
  await ok(d.client.post('/api/services', { name: 'dns-53', protocol: 'udp', ports: [53], 'source-ports': [53] }));
  await ok(d.client.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', services: ['dns-53'], position: 'top' }));
  await d.client.commit();
  const top = (await ok(d.client.get('/api/policies'))).body[0].id;
  const args = (sport: string) => ['trace', '--src', '10.0.0.5', '--dst', '8.8.8.8', '--proto', 'udp', '--dport', '53', '--sport', sport];
  const r = await fwctl(args('53'), env());
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/^packet +10\.0\.0\.5 -> 8\.8\.8\.8 udp\/53 from port 53$/m);
  expect(r.stdout).toMatch(new RegExp(`^policy +#${top} deny$`, 'm'));
  for (const sport of ['53', '54']) {
    const json = JSON.parse((await fwctl([...args(sport), '--json'], env())).stdout);
    expect(json).toEqual((await ok(d.client.post('/api/eval', { 'src-ip': '10.0.0.5', 'dst-ip': '8.8.8.8', protocol: 'udp', 'dst-port': 53, 'src-port': Number(sport) }))).body);
    expect(json.policy?.id === top).toBe(sport === '53');
  }
  expect((await fwctl(args('65536'), env())).code).toBe(64);
});

test('confirm: 4 with nothing pending; after a commit confirmed, 0 and the version', async () => {
  const none = await fwctl(['confirm'], env());
  // said once (the answer's message and details said it twice more)
  expect({ code: none.code, err: none.stderr }).toEqual({ code: 4, err: 'fwctl confirm: no commit is waiting for confirmation (409 ERR_SYS_3004)\n' });
  await d.client.begin();
  await ok(d.client.post('/api/addresses', { name: 'cli-confirm', ips: ['192.0.2.1'] }));
  const c = expectMessage(await d.client.post('/api/config/commit', { confirm_timeout: 600 }), 'commit successful');
  const st = await fwctl(['status'], env());
  expect(st.stdout).toMatch(new RegExp(`^confirm +version ${c.body.version} by admin must be confirmed by ${c.body.confirm_by.replace(/\./g, '\\.')}`, 'm'));
  const r = await fwctl(['confirm'], env());
  expect({ code: r.code, out: r.stdout }).toEqual({ code: 0, out: `version ${c.body.version} confirmed\n` });
});

test('watch prints the events as they happen (--count ends it; --json one object a line)', async () => {
  const watching = fwctl(['watch', '--types', 'session', '--count', '2', '--json'], env());
  const lines = fwctl(['watch', '--types', 'session', '--count', '2'], env());
  // the streams are open once the daemon counts their subscribers
  const hub = d.daemon.daemon.ctx.events;
  const deadline = Date.now() + 20_000;
  while (hub.subscriberCount < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await d.client.begin();
  await ok(d.client.post('/api/config/discard'));
  const r = await watching;
  expect(r.code).toBe(0);
  const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(events.map((e) => e.state)).toEqual(['begun', 'discarded']);
  const t = await lines;
  expect(t.stdout).toMatch(/^\S+Z +\d+ +session +begun \(owner admin, by admin\)$/m);
  expect(t.stdout).toMatch(/^\S+Z +\d+ +session +discarded \(owner admin, by admin\)$/m);
});

test('watch stops with exit 3 when its token is revoked while it watches (the daemon ends the stream; the reconnection is refused)', async () => {
  const token = (await ok(d.client.post('/api/tokens', { name: 'fwctl-watch', role: 'viewer' }))).body.token;
  const streams = d.daemon.daemon.ctx.eventStreams;
  const before = streams.size;
  const watching = fwctl(['watch'], { HOME: home, XDG_CONFIG_HOME: path.join(home, 'none'), FWCTL_URL: d.url, FWCTL_TOKEN: token });
  const deadline = Date.now() + 20_000;
  while (streams.size <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expectMessage(await d.client.del('/api/tokens/fwctl-watch'), 'token revoked');
  const r = await watching;
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/event stream ended; reconnecting/);
  expect(r.stderr).toMatch(/401 ERR_SEC_5003/);
});

test('login --password-stdin reads the password from a pipe; without it and without a terminal, the message names it', async () => {
  const other = path.join(home, 'stdin-login.json');
  const bare = { HOME: home, FWCTL_CONFIG: other };
  const r = await fwctl(['login', d.url, '--user', ADMIN, '--password-stdin'], bare, `${ADMIN_PASSWORD}\n`);
  expect({ code: r.code, out: r.stdout, err: r.stderr }).toEqual({ code: 0, out: expect.stringMatching(/^logged in to .* as admin/), err: '' });
  expect(JSON.parse(fs.readFileSync(other, 'utf8')).user).toBe(ADMIN);
  const piped = await fwctl(['login', d.url, '--user', ADMIN], bare, `${ADMIN_PASSWORD}\n`);
  expect({ code: piped.code, err: piped.stderr }).toEqual({ code: 64, err: expect.stringMatching(/^fwctl login: no terminal .*--password-stdin/) });
  const empty = await fwctl(['login', d.url, '--user', ADMIN, '--password-stdin'], bare, '');
  expect(empty.code).toBe(64);
});

test('messages: one "fwctl" prefix, --version, --help per command, and --json errors as JSON on stdout', async () => {
  const unknown = await fwctl(['frobnicate'], env());
  expect({ code: unknown.code, err: unknown.stderr }).toEqual({ code: 64, err: 'fwctl: unknown command "frobnicate" (fwctl help)\n' });
  const bogus = await fwctl(['status', '--bogus'], env());
  expect(bogus.stderr).toMatch(/^fwctl status: Unknown option '--bogus' \(fwctl status --help\)\n$/);
  const version = await fwctl(['--version'], env());
  expect({ code: version.code, out: version.stdout }).toEqual({ code: 0, out: `fwctl ${JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).version}\n` });
  const help = await fwctl(['plan', '--help'], env());
  expect({ code: help.code, out: help.stdout }).toEqual({ code: 0, out: expect.stringMatching(/^usage: fwctl plan -f FILE \[--merge\]\n/) });
  expect(help.stdout).not.toMatch(/fwctl trace/); // that command's help only
  expect((await fwctl(['help', 'trace'], env())).stdout).toMatch(/^usage: fwctl trace --src IP/);
  const json = await fwctl(['trace', '--src', 'nonsense', '--dst', '8.8.8.8', '--proto', 'tcp', '--json'], env());
  expect({ code: json.code, out: JSON.parse(json.stdout), err: json.stderr }).toEqual({
    code: 1, out: { error: { message: expect.stringMatching(/^POST \/api\/eval: 400 ERR_NET_1001/), code: 'ERR_NET_1001', status: 400, exit_code: 1 } }, err: '',
  });
  const usage = await fwctl(['frobnicate', '--json'], env());
  expect({ code: usage.code, out: JSON.parse(usage.stdout) }).toEqual({ code: 64, out: { error: { message: 'unknown command "frobnicate" (fwctl help)', exit_code: 64 } } });
});

test('an unreachable URL is exit 5 also without a token; a reachable daemon without one is 3 with how to log in', async () => {
  const bare = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'none') };
  const port = await freePort();
  const down = await fwctl(['status', '--url', `http://127.0.0.1:${port}`], bare);
  expect({ code: down.code, err: down.stderr }).toEqual({ code: 5, err: expect.stringMatching(/^fwctl status: cannot reach/) });
  const noToken = await fwctl(['status', '--url', d.url, '--json'], bare);
  expect({ code: noToken.code, out: JSON.parse(noToken.stdout) }).toEqual({
    code: 3, out: { error: expect.objectContaining({ message: `not logged in to ${d.url}: run fwctl login ${d.url} (or set FWCTL_TOKEN)`, status: 401 }) },
  });
});

test('impact and hits without a kernel: no live connection to cut (exit 0), no counts (said on stderr); impact needs a session (exit 4)', async () => {
  expect((await fwctl(['impact'], env())).code).toBe(4);
  await d.client.begin();
  try {
    const text = await fwctl(['impact'], env());
    expect(text).toEqual({ code: 0, stdout: expect.stringMatching(/^running version \d+ -> candidate: 0 live connections, 0 would be cut, 0 with another NAT \(kept\)\n$/), stderr: '' });
    const json = await fwctl(['impact', '--json'], env());
    expect(JSON.parse(json.stdout)).toEqual((await ok(d.client.get('/api/config/impact'))).body);
  } finally {
    await ok(d.client.post('/api/config/discard'));
  }
  expect(await fwctl(['hits'], env())).toEqual({ code: 0, stdout: '', stderr: expect.stringMatching(/^no hit counts: the daemon enforces nothing/) });
  const unused = await fwctl(['hits', '--unused', '30', '--json'], env());
  expect(JSON.parse(unused.stdout)).toEqual({ dataplane: 'none', version: expect.any(Number), days: 30, since: expect.any(String), rules: null });
  const bad = await fwctl(['hits', '--unused', 'soon'], env());
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/^fwctl hits: GET \/api\/analysis\/unused\?days=soon: 400 ERR_NET_1004 .*days/);
});
