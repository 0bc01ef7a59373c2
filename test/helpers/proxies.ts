// The shipped load balancer configurations (deploy/haproxy.cfg, deploy/nginx.conf) run for
// real in front of test instances: the files as shipped with only what names this machine
// rewritten (listen address, instance addresses, log folder) and, for haproxy, maxconn
// lowered when the open-file limit cannot hold it. Every proxy runs in the foreground as a
// child of the test process, in a folder of its own, and dies with it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './redis';
import { tempDir } from './temp-dirs';
import { ownChild, waitForPort } from './watchdog';
import { PROXY_PACKAGES, requirePackages } from './packages';

const DEPLOY = path.resolve(__dirname, '../../../deploy');

export interface TestProxy {
  url: string;
  /** what it wrote on standard output and error so far (haproxy's log lines) */
  output(): string;
  /** nginx's access log so far ('' for haproxy) */
  accessLog(): string;
  stop(): Promise<void>;
}

/** `text` with `pattern` replaced; throws when it does not occur (the shipped file changed). */
function rewrite(text: string, pattern: RegExp, by: string | ((...m: string[]) => string)): string {
  if (!pattern.test(text)) throw new Error(`the shipped configuration has no ${pattern}`);
  pattern.lastIndex = 0;
  return text.replace(pattern, by as (...m: string[]) => string);
}

/** The instance numbered `n` (api1, api2, ...) of the shipped files is `instances[n - 1]`. */
function instance(instances: string[], n: string): string {
  const addr = instances[Number(n) - 1];
  if (!addr) throw new Error(`no test instance for api${n}`);
  return addr;
}

/** This machine's hard limit of open files (what haproxy may raise its own limit to). */
function openFileLimit(): number {
  const out = execFileSync('sh', ['-c', 'ulimit -Hn']).toString().trim();
  return out === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(out);
}

/** deploy/haproxy.cfg for `instances` (host:port each), listening on 127.0.0.1:`port`. */
export function haproxyConfig(instances: string[], port: number): string {
  let cfg = fs.readFileSync(path.join(DEPLOY, 'haproxy.cfg'), 'utf8');
  cfg = rewrite(cfg, /^(\s*bind\s+):8080\b/m, `$1127.0.0.1:${port}`);
  cfg = rewrite(cfg, /^(\s*server\s+api(\d+)\s+)api\d+:8080\b/gm, (_, head: string, n: string) => `${head}${instance(instances, n)}`);
  // haproxy needs about two descriptors a connection (client and server side) and stops
  // when the hard limit cannot hold that: the only change made for this machine
  const limit = openFileLimit();
  return rewrite(cfg, /^(\s*maxconn\s+)(\d+)/m, (_, head: string, n: string) => `${head}${Math.min(Number(n), Math.floor((limit - 200) / 2))}`);
}

/** deploy/nginx.conf for `instances`, listening on 127.0.0.1:`port`, logging into `dir`. */
export function nginxConfig(instances: string[], port: number, dir: string): string {
  let conf = fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');
  conf = rewrite(conf, /^(\s*listen\s+)8080;/m, `$1127.0.0.1:${port};`);
  conf = rewrite(conf, /^(\s*server\s+)api(\d+):8080\b/gm, (_, head: string, n: string) => `${head}${instance(instances, n)}`);
  return rewrite(conf, /\/var\/log\/nginx\//g, `${dir}/`);
}

/** The main configuration around the shipped http-level file, as nginx.conf of a distribution has it. */
function nginxMain(dir: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/${k}_temp;`).join('\n');
  // one process (no workers): killing it, even with SIGKILL, leaves nothing behind
  return `daemon off;\nmaster_process off;\npid ${dir}/nginx.pid;\nerror_log stderr warn;\n`
    + `events { worker_connections 512; }\nhttp {\n${temp}\n  include ${dir}/fwd.conf;\n}\n`;
}

async function launch(cmd: string, args: string[], port: number, accessLog: string | null): Promise<TestProxy> {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  ownChild(proc);
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  let out = '';
  proc.stdout!.on('data', (b) => { out += b.toString(); });
  proc.stderr!.on('data', (b) => { out += b.toString(); });
  const proxy: TestProxy = {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    accessLog: () => (accessLog && fs.existsSync(accessLog) ? fs.readFileSync(accessLog, 'utf8') : ''),
    async stop() {
      // SIGTERM: both stop at once (haproxy's hard stop, nginx's fast shutdown)
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
  try {
    await waitForPort(port, proc, () => out);
  } catch (e) {
    await proxy.stop();
    throw e;
  }
  return proxy;
}

/** haproxy from deploy/haproxy.cfg in front of `instances` (host:port each). */
export async function startHaproxy(instances: string[]): Promise<TestProxy> {
  requirePackages(PROXY_PACKAGES, 'the load balancer tests');
  const dir = tempDir('fwd-haproxy-');
  const port = await freePort();
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(instances, port));
  // -db: foreground, logs on standard output
  return launch('haproxy', ['-db', '-f', cfg], port, null);
}

/** nginx with deploy/nginx.conf in front of `instances`, its prefix, temp folders and pid in a folder of its own. */
export async function startNginx(instances: string[]): Promise<TestProxy> {
  requirePackages(PROXY_PACKAGES, 'the load balancer tests');
  const dir = tempDir('fwd-nginx-');
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'fwd.conf'), nginxConfig(instances, port, dir));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxMain(dir));
  return launch('nginx', ['-e', 'stderr', '-p', `${dir}/`, '-c', path.join(dir, 'nginx.conf')], port, path.join(dir, 'access.log'));
}
