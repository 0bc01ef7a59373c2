// deploy/haproxy-tls.cfg for real (Debian's haproxy): clients speak TLS to haproxy, haproxy
// speaks TLS to the instances (FW_TLS_CERT) and verifies each against the CA that issued their
// certificate. An impostor instance (a certificate of the right name from another CA) is never
// sent a request. Certificates are made with openssl in the test's folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { eventually } from '../helpers/cluster';
import { freePort } from '../helpers/redis';
import { ownChild, waitForPort } from '../helpers/watchdog';
import { httpsJson, issueCert, makeCert, type TestCert } from '../helpers/tls';

const dir = tempDir('fwd-haproxy-tls-');
const daemons: TestDaemon[] = [];
let haproxy: ChildProcess | undefined;
let log = '';
let port = 0;
let publicCert: TestCert;

/** deploy/haproxy-tls.cfg with the test's addresses and files; throws if the shipped file changed. */
function config(instances: string[], listen: number): string {
  let cfg = fs.readFileSync(path.resolve(__dirname, '../../../deploy/haproxy-tls.cfg'), 'utf8');
  const swap = (re: RegExp, by: (...m: string[]) => string) => {
    if (!re.test(cfg)) throw new Error(`deploy/haproxy-tls.cfg has no ${re}`);
    cfg = cfg.replace(re, by as (...a: string[]) => string);
  };
  swap(/^(\s*bind\s+):8443\b/m, (_, head) => `${head}127.0.0.1:${listen}`);
  swap(/^(\s*server\s+api(\d)\s+)api\d:8080$/gm, (_, head, n) => `${head}${instances[Number(n) - 1]}`);
  swap(/\/usr\/local\/etc\/haproxy\/tls\//g, () => `${dir}/`);
  swap(/^(\s*maxconn\s+)\d+/m, (_, head) => `${head}200`);
  return cfg;
}

beforeAll(async () => {
  const ca = makeCert(dir, 'fwd-ca', undefined, 'DNS:fwd-ca');
  const instance = issueCert(dir, 'fwd', ca, 'DNS:fwd-api');
  const impostor = makeCert(dir, 'impostor', undefined, 'DNS:fwd-api'); // the right name, another CA
  publicCert = makeCert(dir, 'public');
  fs.writeFileSync(path.join(dir, 'public.pem'), publicCert.pem + fs.readFileSync(publicCert.key, 'utf8'));
  const env = { FW_JWT_SECRET: randomBytes(32).toString('base64') }; // one secret for both instances
  daemons.push(await startTestDaemon({ ...env, FW_TLS_CERT: instance.cert, FW_TLS_KEY: instance.key, FW_NODE_ID: 'genuine' }));
  daemons.push(await startTestDaemon({ ...env, FW_TLS_CERT: impostor.cert, FW_TLS_KEY: impostor.key, FW_NODE_ID: 'impostor' }));
  port = await freePort();
  const cfgFile = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfgFile, config(daemons.map((d) => `127.0.0.1:${d.daemon.port}`), port));
  haproxy = spawn('haproxy', ['-db', '-f', cfgFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  ownChild(haproxy);
  haproxy.stdout!.on('data', (b: Buffer) => { log += b.toString(); });
  haproxy.stderr!.on('data', (b: Buffer) => { log += b.toString(); });
  await waitForPort(port, haproxy, () => log);
});

afterAll(async () => {
  if (haproxy && haproxy.exitCode === null) {
    const exited = new Promise((r) => haproxy!.once('exit', r));
    haproxy.kill('SIGTERM');
    await exited;
  }
  for (const d of daemons) await d.close();
});

test('through haproxy over TLS to verified instances only; the impostor is never asked', async () => {
  const login = await httpsJson(port, publicCert.pem, 'POST', '/api/login', undefined, { username: ADMIN, password: ADMIN_PASSWORD });
  expect(login.status).toBe(200);
  const token = login.body.token as string;
  // the impostor fails its TLS health checks (fall 2); from then on every request is the genuine one's
  const onlyGenuine = async () => {
    for (let i = 0; i < 10; i++) {
      const r = await httpsJson(port, publicCert.pem, 'GET', '/api/status', token);
      if (r.status !== 200 || r.body.node !== 'genuine') return false;
    }
    return true;
  };
  expect(await eventually(onlyGenuine, 15_000)).toBe(true);
  const me = await httpsJson(port, publicCert.pem, 'GET', '/api/me', token);
  expect({ status: me.status, username: me.body.username }).toEqual({ status: 200, username: ADMIN });
  expect(['TLSv1.2', 'TLSv1.3']).toContain(me.protocol);
  // a request sent to the impostor meanwhile failed its handshake and was redispatched (retries),
  // so the genuine answers can come before the check marks it down: wait for that line
  const down = /api2 is DOWN[^\n]*(SSL|handshake|certificate)/i;
  if (!(await eventually(async () => down.test(log), 15_000))) expect(log).toMatch(down);
});
