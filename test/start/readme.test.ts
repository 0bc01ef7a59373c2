// The README's examples, run as they are written (curl, then fwctl) in one shell against a real
// daemon: the address, the admin password and `npx fwctl` are the only things replaced. Every
// command must succeed (plan: exit 2, the file was edited), and the trace must answer what
// its comment says (it answered DENY no-route after its own curl steps; issue 29).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_PASSWORD, tempDir, useDaemon } from '../helpers/daemon';
import { FWCTL } from '../helpers/fwctl';

const ROOT = path.resolve(__dirname, '../../..');
const d = useDaemon();

/** The indented code lines under the README heading `heading`, continuation lines joined. */
function readmeBlock(heading: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const lines = text.slice(start, end < 0 ? undefined : end).split('\n').filter((l) => l.startsWith('    ')).map((l) => l.slice(4));
  return lines.join('\n').replace(/\\\n\s*/g, '').split('\n');
}

/** A README line as this test runs it: this daemon's address and password, the built fwctl. */
function adapted(line: string, url: string): string | null {
  if (line.startsWith('npm run build')) return null; // the test runs on the build
  let out = line.replace(/http:\/\/127\.0\.0\.1:8080|localhost:8080/g, url).replace(/choose-a-long-password/g, ADMIN_PASSWORD);
  out = out.replace(/npx fwctl/g, `node ${FWCTL}`);
  if (/fwctl(\.js)? watch$/.test(out) || out.endsWith('main.js watch')) out += ' --count 1 --since 0'; // it would stream forever
  return out;
}

/** Runs a bash script (asynchronously: the daemon it talks to runs in this process); its standard output. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<string> {
  const p = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('close', () => { clearTimeout(timer); resolve(out); });
  });
}

test('the README\'s curl and fwctl examples run as written; the trace answers ALLOW (policy)', async () => {
  const lines = [...readmeBlock('Try it with curl'), ...readmeBlock('Automation and fwctl')];
  expect(lines.filter((l) => /fwctl trace/.test(l))).toHaveLength(1);
  const dir = tempDir('readme-');
  const steps = lines.map((l) => adapted(l, d.url)).filter((l): l is string => l !== null);
  // each step's exit code after its output, on a line of its own
  const script = steps.map((s, i) => `${s}\necho "@@step ${i} rc=$?"`).join('\n');
  const stdout = await bash(script, dir, { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg'), FWCTL_PASSWORD: ADMIN_PASSWORD });
  const codes = [...stdout.matchAll(/@@step (\d+) rc=(\d+)/g)].map((m) => ({ step: steps[Number(m[1])], rc: Number(m[2]) }));
  expect(codes).toHaveLength(steps.length);
  for (const c of codes) expect(c).toEqual({ step: c.step, rc: /fwctl.* plan /.test(c.step) || /main\.js plan /.test(c.step) ? 2 : 0 });
  expect(stdout).toMatch(/^verdict +ALLOW \(policy\)$/m);
  expect(stdout).toMatch(/^~ +policy +1 +at position 1\n +log: true -> false$/m); // plan's field-level line for the sed edit, the rule's place named (issue 43 item 8)
  expect(stdout).toMatch(/^version \d+ confirmed$/m);
});
