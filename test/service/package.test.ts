// Issue 42, points 1, 2 and 4: the Debian package, built as `npm run package` builds it (into
// a folder of this test), is inspected (control fields, files, modes, conffiles, maintainer
// scripts, lintian); its unit passes `systemd-analyze verify` and its security exposure is
// asserted; and its tree, extracted with dpkg-deb -x into a folder of this test, runs as the
// unit runs it (tests/helpers/service-unit.ts: the unit's own lines, a system user of this
// test's, exactly the unit's capabilities, the FW_NETNS drop-in's for a lab namespace): it
// enforces a configuration there, runs dnsmasq and ulogd as that user, tells a notification
// socket it is ready, reads its 0640 settings file again on SIGHUP, and survives a restart
// with its helpers serving on. Root is needed (a user, namespaces, setpriv).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, ok } from '../helpers/daemon';
import { Lab, requireLab, sh, fwAddress } from '../helpers/netns';
import { requirePackages, SERVICE_PACKAGES } from '../helpers/packages';
import { FakeNotifySocket } from '../helpers/notify-socket';
import { ambientCapabilities, asServiceUser, createServiceUser, startService, stopService, unitDirectives, unitEnvironment, type ServiceProcess, type ServiceUser } from '../helpers/service-unit';
import { tempDir } from '../helpers/temp-dirs';
import { runsWith } from '../../src/dataplane/helper-process';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const run = (argv: string[], opts: { cwd?: string } = {}) => execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });

let deb: string;
let tree: string;
let user: ServiceUser | undefined;
let lab: Lab | undefined;
let daemon: ServiceProcess | undefined;
let sock: FakeNotifySocket | undefined;
let dataDir: string;

beforeAll(() => {
  requireLab();
  requirePackages(SERVICE_PACKAGES, 'the package tests');
  const out = tempDir('fwd-deb-out-');
  deb = run([process.execPath, path.join(ROOT, 'scripts/package.mjs'), '--out', out], { cwd: ROOT }).trim();
  tree = tempDir('fwd-deb-tree-');
  run(['dpkg-deb', '-x', deb, tree]);
  fs.chmodSync(tree, 0o755); // the service user goes through it to /usr/lib/fwd
}, 300_000);

afterAll(async () => {
  await stopService(daemon);
  // the helpers outlive the daemon by design: ended here as the package's prerm ends them
  for (const name of ['dnsmasq', 'ulogd']) {
    try {
      const pid = Number(fs.readFileSync(path.join(dataDir, 'dataplane', `${name}.pid`), 'utf8'));
      if (runsWith(pid, dataDir)) process.kill(pid, 'SIGTERM');
    } catch {
      // none started
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  sock?.close();
  await lab?.destroy();
  user?.remove();
}, 60_000);

/** The bits of /proc/PID/status's capability sets (capability.h numbers). */
function capabilityBits(caps: string[]): bigint {
  const numbers: Record<string, number> = { net_bind_service: 10, net_admin: 12, net_raw: 13, sys_admin: 21 };
  return caps.reduce((bits, c) => bits | (1n << BigInt(numbers[c])), 0n);
}

/** `dpkg-deb -c`: path -> "mode owner/group". */
function listing(): Map<string, string> {
  return new Map(run(['dpkg-deb', '-c', deb]).trim().split('\n').map((l) => {
    const [mode, owner, , , , ...rest] = l.split(/\s+/);
    return [rest.join(' ').replace(/ -> .*$/, ''), `${mode} ${owner}`];
  }));
}

test('the package: its name, control fields, files and their modes, the conffile, the maintainer scripts', () => {
  const arch = run(['dpkg', '--print-architecture']).trim();
  expect(path.basename(deb)).toBe(`fwd_${pkg.version}_${arch}.deb`);
  const field = (f: string) => run(['dpkg-deb', '-f', deb, f]).trim();
  expect([field('Package'), field('Version'), field('Architecture'), field('Section')]).toEqual(['fwd', pkg.version, arch, 'net']);
  const depends = field('Depends').split(/,\s*/);
  for (const d of ['adduser', 'nftables', 'iproute2', 'conntrack', 'dnsmasq-base', 'ulogd2', 'ulogd2-json', 'keepalived', 'conntrackd', 'nodejs (>= 20)', 'nodejs (<< 21)']) {
    expect(depends).toContain(d);
  }
  expect(depends.find((d) => d.startsWith('libc6'))).toMatch(/^libc6 \(>= 2\.\d+\)$/);

  const files = listing();
  expect(files.get('./usr/bin/fwd')).toBe('-rwxr-xr-x root/root');
  expect(files.get('./usr/bin/fwctl')).toBe('-rwxr-xr-x root/root');
  expect(files.get('./etc/fwd/fwd.env')).toBe('-rw-r----- root/root'); // group fwd: the postinst's
  expect(files.get('./lib/systemd/system/fwd.service')).toBe('-rw-r--r-- root/root');
  expect(files.get('./usr/share/doc/fwd/examples/netns.conf')).toBe('-rw-r--r-- root/root');
  for (const f of ['./usr/lib/fwd/dist/src/main.js', './usr/lib/fwd/dist/src/cli/main.js', './usr/lib/fwd/dist/console/index.html', './usr/lib/fwd/package.json', './usr/share/doc/fwd/copyright', './usr/share/doc/fwd/changelog.gz']) {
    expect(files.has(f)).toBe(true);
  }
  const paths = [...files.keys()];
  expect(paths.filter((p) => /\/dist\/(test|bench)\//.test(p))).toEqual([]);
  // no development module, no other platform's native file, nothing but root's
  const devModules = Object.keys(pkg.devDependencies).map((m) => `./usr/lib/fwd/node_modules/${m}/`);
  expect(paths.filter((p) => devModules.some((m) => p.startsWith(m)))).toEqual([]);
  expect(paths.filter((p) => p.endsWith('.node') && /darwin|win32|musl|_arm|arm64/.test(p))).toEqual([]);
  expect([...new Set(paths.filter((p) => /uws_linux_\w+_\d+\.node$/.test(p)).map((p) => path.basename(p)))]).toEqual([`uws_linux_${process.arch}_${process.versions.modules}.node`]);
  expect([...files.values()].filter((v) => !v.endsWith(' root/root'))).toEqual([]);

  const control = tempDir('fwd-deb-control-');
  run(['dpkg-deb', '-e', deb, control]);
  expect(fs.readFileSync(path.join(control, 'conffiles'), 'utf8')).toBe('/etc/fwd/fwd.env\n');
  expect(fs.readFileSync(path.join(control, 'md5sums'), 'utf8')).toMatch(/^[0-9a-f]{32} {2}usr\/lib\/fwd\/dist\/src\/main\.js$/m);
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const file = path.join(control, script);
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    run(['sh', '-n', file]);
  }
  const postinst = fs.readFileSync(path.join(control, 'postinst'), 'utf8');
  expect(postinst).toMatch(/adduser --system --group .* fwd/);
  expect(postinst).toMatch(/if \[ -z "\$2" \] && \[ ! -e "\$SECRETS" \]; then\n\s+make_secrets/); // the first install only
  expect(postinst).toMatch(/chown root:fwd "\$SECRETS\.new"\n\s+chmod 0640 "\$SECRETS\.new"/);
  expect(postinst).toMatch(/chown root:fwd \/etc\/fwd \/etc\/fwd\/fwd\.env/);
  // a secret is never printed (apt's terminal log keeps what is)
  expect(postinst.split('\n').filter((l) => /\b(echo|printf)\b/.test(l) && /\$(secret|password)/.test(l))).toEqual([]);
  expect(postinst).not.toMatch(/systemctl (enable|start)|deb-systemd-invoke start/); // not started on this host at install
  expect(fs.readFileSync(path.join(control, 'prerm'), 'utf8')).toMatch(/remove\|deconfigure\)\n[^]*deb-systemd-invoke stop fwd\.service[^]*stop_helpers/);
  expect(fs.readFileSync(path.join(control, 'postrm'), 'utf8')).toMatch(/purge\)\n[^]*rm -rf \/etc\/fwd \/var\/lib\/fwd\n[^]*deluser --system --quiet fwd/);
}, 60_000);

test('lintian reports no error', () => {
  const r = spawnSync('lintian', ['--tag-display-limit', '0', deb], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const lines = `${r.stdout}${r.stderr}`.split('\n');
  expect(lines.filter((l) => /^E: /.test(l))).toEqual([]);
  expect([0, 1]).toContain(r.status); // 1: tags below errors; 2: lintian itself failed
}, 300_000);

/** The package's tree with the host's units (the targets fwd.service names) and kill, as systemd-analyze --root wants. */
function analyzeRoot(withDropIn: boolean): string {
  const root = tempDir('fwd-analyze-');
  fs.cpSync(tree, root, { recursive: true });
  for (const unit of fs.readdirSync('/lib/systemd/system')) {
    const to = path.join(root, 'lib/systemd/system', unit);
    if (!fs.existsSync(to)) fs.cpSync(path.join('/lib/systemd/system', unit), to, { recursive: true, verbatimSymlinks: true });
  }
  fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync('/usr/bin/kill', path.join(root, 'bin/kill'));
  if (withDropIn) {
    fs.mkdirSync(path.join(root, 'etc/systemd/system/fwd.service.d'), { recursive: true });
    fs.copyFileSync(path.join(tree, 'usr/share/doc/fwd/examples/netns.conf'), path.join(root, 'etc/systemd/system/fwd.service.d/netns.conf'));
  }
  return root;
}

function exposure(root: string): number {
  const out = run(['systemd-analyze', 'security', '--offline=true', `--root=${root}`, '--no-pager', 'fwd.service']);
  return Number(/Overall exposure level for fwd\.service: (\d+\.\d)/.exec(out)![1]);
}

test('the unit: systemd-analyze verify is clean; exposure 2.5 or lower (2.9 or lower with the FW_NETNS drop-in); the lines that tell the truth', () => {
  for (const withDropIn of [false, true]) {
    const root = analyzeRoot(withDropIn);
    const r = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'fwd.service'], { encoding: 'utf8' });
    expect({ status: r.status, output: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, output: '' });
    expect(exposure(root)).toBeLessThanOrEqual(withDropIn ? 2.9 : 2.5);
  }
  const unit = unitDirectives(path.join(tree, 'lib/systemd/system/fwd.service'));
  const one = (k: string) => unit.get(k)?.join(' ');
  expect([one('Type'), one('NotifyAccess'), one('KillMode'), one('User'), one('ExecReload'), one('WatchdogSec')])
    .toEqual(['notify', 'all', 'process', 'fwd', '/bin/kill -HUP $MAINPID', '30s']);
  expect(ambientCapabilities(unit)).toEqual(['net_admin', 'net_raw', 'net_bind_service']);
  expect(one('CapabilityBoundingSet')).toBe(one('AmbientCapabilities'));
  expect(unitEnvironment(unit, tree)).toEqual(expect.objectContaining({ FW_DATA_DIR: '/var/lib/fwd', FW_ENV_FILE: '/etc/fwd/fwd.env', FW_HELPERS_ON_STOP: 'keep', FW_DATAPLANE: 'linux' }));
  const dropIn = unitDirectives(path.join(tree, 'usr/share/doc/fwd/examples/netns.conf'));
  expect(ambientCapabilities(dropIn)).toEqual(['sys_admin']);
}, 60_000);

describe('the package\'s tree, run as the unit runs it', () => {
  let unit: Map<string, string[]>;
  let argv: string[];
  let env: Record<string, string>;
  let envFile: string;
  let password: string;

  beforeAll(async () => {
    user = createServiceUser();
    lab = new Lab();
    await lab.create(2);
    sock = await FakeNotifySocket.open();
    // what the postinst does: the settings file's group, the secrets file
    envFile = path.join(tree, 'etc/fwd/fwd.env');
    fs.chownSync(envFile, 0, user.gid);
    // a free port: the file's own setting changed, as an operator would (a reload compares with it)
    fs.writeFileSync(envFile, fs.readFileSync(envFile, 'utf8').replace(/^FW_PORT=8080$/m, 'FW_PORT=0'));
    // random, as the postinst makes them (48 and 24 bytes)
    password = randomBytes(24).toString('base64url');
    const secrets = path.join(tree, 'etc/fwd/secrets.env');
    fs.writeFileSync(secrets, `FW_JWT_SECRET=${randomBytes(48).toString('base64')}\nFW_ADMIN_PASSWORD=${password}\n`, { mode: 0o640 });
    fs.chownSync(secrets, 0, user.gid);
    // what StateDirectory= does: the data folder, the user's
    dataDir = tempDir('fwd-state-');
    fs.chownSync(dataDir, user.uid, user.gid);
    fs.chmodSync(dataDir, 0o750);
    const dropIn = path.join(tree, 'usr/share/doc/fwd/examples/netns.conf');
    unit = unitDirectives(path.join(tree, 'lib/systemd/system/fwd.service'), dropIn);
    argv = [...asServiceUser(user, ambientCapabilities(unit)), path.join(tree, unit.get('ExecStart')![0])];
    // the unit's environment and files; this test's changes: where the tree and the lab are
    // (the file's FW_DATAPLANE=linux enforces in the lab's namespace, not on this host)
    env = {
      ...unitEnvironment(unit, tree),
      FW_ENV_FILE: envFile, FW_DATA_DIR: dataDir, FW_NETNS: lab.fw,
      FW_INTERFACES: lab.peers.map((p) => p.link).join(','), NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '2000000',
    };
    daemon = await startService(argv, env);
  }, 120_000);

  test('it answers, enforces in the namespace, runs dnsmasq and ulogd as its user with its capabilities; READY; SIGHUP reads the 0640 settings file', async () => {
    const ready = await sock!.next((n) => n.fields.READY === '1', 60_000);
    expect(ready.fields.STATUS).toMatch(new RegExp(`^ready: enforcing on ${lab!.fw} version 0, API on http://127\\.0\\.0\\.1:\\d+$`));
    expect((await ok(new Client(daemon!.url).get('/readyz'))).body.checks).toEqual({ store: 'ok', running: 'ok', dataplane: 'ok' });
    const c = await new Client(daemon!.url).login('admin', password);
    await c.begin();
    for (const p of lab!.peers) await ok(c.put(`/api/interfaces/${p.link}`, { ip: `${fwAddress(p.index)}/24` }));
    await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['fw1'] }));
    await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['fw2'] }));
    await ok(c.post('/api/services', { name: 'app', protocol: 'tcp', ports: [5000] }));
    await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['app'], log: true }));
    await ok(c.post('/api/dhcp', { interface: 'fw1', start_ip: '10.1.0.100', end_ip: '10.1.0.120' }));
    await c.commit();
    expect(sh(['ip', 'netns', 'exec', lab!.fw, 'nft', 'list', 'table', 'inet', 'fwdaemon'])).toMatch(/log prefix "fwd policy 1 allow"/);

    // the helpers: the service's user, its capabilities (ambient), no notification socket inherited
    for (const name of ['dnsmasq', 'ulogd']) {
      const pid = Number(fs.readFileSync(path.join(dataDir, 'dataplane', `${name}.pid`), 'utf8'));
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe(String(user!.uid));
      expect(BigInt(`0x${/^CapAmb:\s+(\w+)/m.exec(status)![1]}`)).toBe(capabilityBits(ambientCapabilities(unit)));
      expect(fs.readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain('NOTIFY_SOCKET');
    }
    const dhcp = spawnSync('ip', ['netns', 'exec', lab!.peers[0].ns, 'busybox', 'udhcpc', '-i', 'eth0', '-n', '-q', '-f', '-s', '/bin/true', '-t', '5', '-T', '2'], { encoding: 'utf8', timeout: 30000 });
    expect(`${dhcp.stdout}${dhcp.stderr}`).toMatch(/lease of 10\.1\.0\.1([01]\d|20) obtained/);
    const [p1, p2] = lab!.peers;
    await lab!.agent(p2.ns, [p2.address], [5000]);
    const client = await lab!.agent(p1.ns, [p1.address], []);
    client.send([{ token: 'pkg1', proto: 'tcp', src: p1.address, sport: 43001, dst: p2.address, dport: 5000 }]);
    const until = Date.now() + 10_000;
    let records: Array<{ 'src-port': number; action: string }> = [];
    while (!records.some((r) => r['src-port'] === 43001) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      records = (await ok(c.get('/api/logs/traffic'))).body.records;
    }
    expect(records.find((r) => r['src-port'] === 43001)).toEqual(expect.objectContaining({ action: 'allow' }));

    // SIGHUP: the daemon, as its user, reads the root:group 0640 file again
    fs.appendFileSync(envFile, 'FW_LOG_LEVEL=debug\n');
    const from = sock!.received.length;
    daemon!.proc.kill('SIGHUP');
    const reloaded = await sock!.next((n) => n.fields.READY === '1', 15_000, from);
    expect(reloaded.fields.STATUS).toMatch(/; reloaded \(FW_LOG_LEVEL\)$/);
  }, 180_000);

  test('a restart (SIGTERM, as systemctl restart with KillMode=process) leaves dnsmasq and ulogd serving; the next start adopts them', async () => {
    const pids = ['dnsmasq', 'ulogd'].map((n) => Number(fs.readFileSync(path.join(dataDir, 'dataplane', `${n}.pid`), 'utf8')));
    const from = sock!.received.length;
    expect(await stopService(daemon)).toBe(0);
    expect(sock!.received.slice(from).some((n) => n.fields.STOPPING === '1')).toBe(true);
    expect(pids.map((pid) => runsWith(pid, dataDir))).toEqual([true, true]);
    daemon = await startService(argv, env);
    await sock!.next((n) => n.fields.READY === '1', 60_000, from);
    expect(['dnsmasq', 'ulogd'].map((n) => Number(fs.readFileSync(path.join(dataDir, 'dataplane', `${n}.pid`), 'utf8')))).toEqual(pids);
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
  }, 120_000);
});
