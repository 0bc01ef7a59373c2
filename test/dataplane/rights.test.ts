// Issue 32, point 2: a daemon with FW_DATAPLANE=linux that lacks the rights to change the
// kernel (CAP_NET_ADMIN dropped with setpriv) says so plainly at start, and /readyz answers
// 503 with the reason, while the same daemon with its rights is ready. Real processes, a
// namespace of our own as FW_NETNS (nothing on the host is touched either way).
import fs from 'node:fs';
import { Lab, requireLab, sh } from '../helpers/netns';
import { startChild, type Child } from '../helpers/process';
import { tempDir } from '../helpers/daemon';

let lab: Lab;
const children: Child[] = [];

beforeAll(async () => {
  requireLab();
  sh(['sh', '-c', 'command -v setpriv']);
  lab = new Lab();
  await lab.create(1);
});

afterAll(async () => {
  for (const c of children) {
    c.proc.kill('SIGTERM');
    await c.exited;
  }
  await lab?.destroy();
});

async function start(launcher: string[]): Promise<Child> {
  const dir = tempDir('fwd-rights-');
  const child = await startChild({
    FW_DATAPLANE: 'linux', FW_NETNS: lab.fw, FW_INTERFACES: lab.peers.map((p) => p.link).join(','), FW_DATA_DIR: dir,
  }, undefined, undefined, [], launcher);
  children.push(child);
  child.exited.then(() => fs.rmSync(dir, { recursive: true, force: true }), () => undefined);
  return child;
}

async function readyz(child: Child): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const r = await fetch(`${child.url}/readyz`);
  return { status: r.status, body: await r.json() as { status: string; checks: Record<string, string> } };
}

test('without CAP_NET_ADMIN: the start log says what is needed and /readyz is 503 with the reason', async () => {
  const child = await start(['setpriv', '--inh-caps=-all', '--bounding-set=-net_admin']);
  const r = await readyz(child);
  expect(r.status).toBe(503);
  expect(r.body.status).toBe('not ready');
  expect(r.body.checks.dataplane).toMatch(/^the kernel holds no version of ours, not the running version 0: version 0: .*Operation not permitted/);
  expect(r.body.checks.dataplane).toMatch(/needs root, or CAP_NET_ADMIN and CAP_SYS_ADMIN \(FW_NETNS\).*this process lacks CAP_NET_ADMIN/);
  expect(r.body.checks.store).toBe('ok');
  const line = child.stdout().split('\n').find((l) => l.includes('FW_DATAPLANE=linux needs'));
  expect(JSON.parse(line!)).toEqual(expect.objectContaining({ level: 50, netns: lab.fw }));
});

test('with its rights the same daemon is ready, the data plane check among those passed', async () => {
  const child = await start([]);
  const r = await readyz(child);
  expect(r).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', running: 'ok', dataplane: 'ok' } } });
  expect(child.stdout()).not.toMatch(/FW_DATAPLANE=linux needs/);
});
