// The daemon started as systemd starts fwd.service, on a machine without systemd as PID 1:
// the unit's own lines are read (ExecStart, Environment=, EnvironmentFile=,
// AmbientCapabilities=, a drop-in's), the environment files parsed as systemd parses them
// (src/service/env-file.ts), and the program run by setpriv as a system user with exactly
// the unit's capabilities, ambient, bounding and inheritable, and no new privileges.
//
// The user is made by the test with a name of its own (fwdt + pid + random: two runs never
// share one) and removed by it afterwards: a system user is state of the machine, and a test
// must not leave an `fwd` user behind, nor take the one an installed package owns.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseEnvFile } from '../../src/service/env-file';
import { ownChild } from './watchdog';

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
  /** Removes the user and its group (its processes must be gone). */
  remove(): void;
}

const run = (argv: string[]) => execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A system user and group of the same name, unique to this run, no home, no shell. */
export function createServiceUser(): ServiceUser {
  const name = `fwdt${process.pid}${randomBytes(2).toString('hex')}`;
  run(['useradd', '--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name]);
  const [uid, gid] = run(['id', '-u', name]).trim().concat(' ', run(['id', '-g', name]).trim()).split(' ').map(Number);
  return {
    name, uid, gid,
    remove: () => {
      try {
        // processes of the user that just ended may wait to be reaped for a moment
        for (let i = 0; ; i++) {
          try {
            run(['userdel', name]);
            break;
          } catch (e) {
            if (i >= 50 || !/currently used by process/.test(String((e as { stderr?: string }).stderr ?? e))) throw e;
            execFileSync('sleep', ['0.1']);
          }
        }
      } finally {
        try {
          run(['groupdel', name]); // when userdel left it (USERGROUPS_ENAB no)
        } catch {
          // gone with the user
        }
      }
    },
  };
}

/** The directives of a unit file and its drop-ins, in order: a name given again adds to the list (as for Environment=). */
export function unitDirectives(...files: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
      const line = raw.trim();
      const m = /^([A-Za-z]+)=(.*)$/.exec(line);
      if (!m || line.startsWith('#')) continue;
      out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
    }
  }
  return out;
}

/** The capabilities AmbientCapabilities= gives, as setpriv names them (net_admin, ...). */
export function ambientCapabilities(unit: Map<string, string[]>): string[] {
  return (unit.get('AmbientCapabilities') ?? []).flatMap((v) => v.split(/\s+/)).filter(Boolean).map((c) => c.replace(/^CAP_/, '').toLowerCase());
}

/**
 * The unit's environment: Environment= assignments, then each EnvironmentFile= (a leading
 * "-": may be missing) read from under `root` (an extracted package tree; "/" when
 * installed), later ones overriding earlier ones, as systemd does.
 */
export function unitEnvironment(unit: Map<string, string[]>, root = '/'): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of unit.get('Environment') ?? []) {
    for (const m of line.matchAll(/(?:"([^"]*)"|(\S+))/g)) {
      const item = m[1] ?? m[2];
      const eq = item.indexOf('=');
      if (eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
    }
  }
  for (const spec of unit.get('EnvironmentFile') ?? []) {
    const optional = spec.startsWith('-');
    const file = path.join(root, optional ? spec.slice(1) : spec);
    if (optional && !fs.existsSync(file)) continue;
    Object.assign(env, parseEnvFile(fs.readFileSync(file, 'utf8')));
  }
  return env;
}

/** setpriv's arguments that run a program as `user` with exactly `caps` (ambient, inheritable, bounding) and no new privileges. */
export function asServiceUser(user: ServiceUser, caps: string[]): string[] {
  const set = ['-all', ...caps.map((c) => `+${c}`)].join(',');
  return ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', `--inh-caps=${set}`, `--ambient-caps=${set}`, `--bounding-set=${set}`, '--no-new-privs', '--'];
}

export interface ServiceProcess {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** standard output and error so far */
  output(): string;
}

/**
 * Runs `argv` with exactly `env` (and PATH) from "/", as systemd runs a service; resolves once
 * the daemon's "listening" line names its port, rejects when it exits first.
 */
export function startService(argv: string[], env: Record<string, string>, ms = 60_000): Promise<ServiceProcess> {
  const proc = spawn(argv[0], argv.slice(1), { cwd: '/', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  ownChild(proc);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${ms} ms: ${out}`)), ms);
    const onData = (b: Buffer) => {
      out += b.toString('utf8');
      const port = /"port":(\d+)[^\n]*"msg":"listening"|listening port=(\d+)/.exec(out);
      if (port) {
        clearTimeout(timer);
        resolve({ proc, url: `http://127.0.0.1:${port[1] ?? port[2]}`, exited, output: () => out });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited with ${code}: ${out}`));
    });
  });
}

/** Sends `signal` and waits for the exit. */
export async function stopService(s: ServiceProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (!s || s.proc.exitCode !== null) return s?.proc.exitCode ?? null;
  s.proc.kill(signal);
  return s.exited;
}
