// Structured logs: one line per request with its request id; passwords, password hashes and
// tokens never appear in them; a commit's line says where its time went.
import pino from 'pino';
import { ADMIN_PASSWORD, Client, startTestDaemon, tempDir } from '../helpers/daemon';
import { startChild } from '../helpers/process';

test('request lines carry the request id; secrets never reach the log', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => { lines.push(s); } });
  const d = await startTestDaemon({}, tempDir(), logger);
  try {
    const c = await new Client(d.url).login();
    await c.raw('GET', '/api/me', undefined, { 'X-Request-Id': 'trace-me-1' });
    await c.post('/api/users', { username: 'ops', password: 'ops-secret-password' });
    await new Client(d.url).post('/api/login', { username: 'ops', password: 'wrong-secret-password' });
    await c.put('/api/users/ops', { password: 'changed-secret-password' });
    const entries = lines.map((l) => JSON.parse(l));
    const requests = entries.filter((e) => e.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(5);
    for (const r of requests) {
      expect(typeof r.reqId).toBe('string');
      expect(typeof r.status).toBe('number');
      expect(typeof r.ms).toBe('number');
    }
    expect(requests.find((r) => r.reqId === 'trace-me-1')).toMatchObject({ method: 'GET', path: '/api/me', status: 200 });
    const failed = entries.find((e) => e.msg === 'login failed');
    expect(failed).toMatchObject({ username: 'ops', reqId: expect.any(String) });
    const all = lines.join('\n');
    for (const secret of [ADMIN_PASSWORD, 'ops-secret-password', 'wrong-secret-password', 'changed-secret-password', c.token, 'scrypt$']) {
      expect(all).not.toContain(secret);
    }
  } finally {
    await d.close();
  }
});

test('the commit line has the milliseconds of each step of the commit, and their total', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => { lines.push(s); } });
  const d = await startTestDaemon({}, tempDir(), logger);
  try {
    const c = await new Client(d.url).login();
    await c.post('/api/config/begin');
    await c.post('/api/addresses', { name: 'web', ips: ['10.0.0.1/32'] });
    await c.post('/api/config/commit', { description: 'timed' });
    const commit = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'commit');
    const steps = ['refresh', 'sync', 'claim', 'checks', 'compile', 'dataplane', 'delta', 'store', 'swap'];
    expect(Object.keys(commit.ms).sort()).toEqual([...steps, 'total'].sort());
    for (const k of steps) expect(commit.ms[k]).toBeGreaterThanOrEqual(0);
    const sum = steps.reduce((n, k) => n + commit.ms[k], 0);
    expect(Math.abs(commit.ms.total - sum)).toBeLessThanOrEqual(steps.length); // each step rounded
    // nothing else wrote the journal: the cached candidate is the journal's (on Redis, their
    // digests are the same), so the commit did not build it again
    expect(commit.candidate).toBe('cached');
  } finally {
    await d.close();
  }
});

test('a quiet daemon writes its buffered log lines out within a second or so', async () => {
  // the daemon buffers its log (4 KiB writes): one request, then nothing more, must still be
  // on standard output soon, not when 4 KiB more lines have come
  const child = await startChild({ FW_DATA_DIR: tempDir() });
  try {
    const r = await fetch(`${child.url}/api/me`, { headers: { 'X-Request-Id': 'quiet-line-1' } });
    expect(r.status).toBe(401); // health checks are not logged; a refused request is
    const deadline = Date.now() + 5_000;
    while (!child.stdout().includes('quiet-line-1') && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(child.stdout()).toContain('"reqId":"quiet-line-1"');
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
});
