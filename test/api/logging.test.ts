// Structured logs: one line per request with its request id; passwords, password hashes and
// tokens never appear in them.
import pino from 'pino';
import { ADMIN_PASSWORD, Client, startTestDaemon, tempDir } from '../helpers/daemon';

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
