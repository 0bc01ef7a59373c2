// fwctl's messages as an operator reads them (issue 43, item 8): `fwctl trace` with options
// missing names them instead of printing the usage line alone. No daemon is needed: the
// command line is refused (64) before any request. Item 9: `fwctl logs` and `fwctl sessions`
// without a data plane say why there is nothing, as `fwctl hits` does, not empty headers.
import { useDaemon } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';

const d = useDaemon(); // FW_DATAPLANE=none: the test daemon enforces nothing
const daemonEnv = () => ({ FWCTL_URL: d.url, FWCTL_TOKEN: d.client.token });

const env = { FWCTL_URL: 'http://127.0.0.1:9', FWCTL_TOKEN: 'unused' };

test('trace names the options that are missing', async () => {
  const one = await fwctl(['trace', '--src', '10.0.0.5', '--dst', '10.0.0.6'], env);
  expect({ code: one.code, err: one.stderr }).toEqual({ code: 64, err: 'fwctl trace: --proto is required (fwctl trace --help)\n' });
  const two = await fwctl(['trace', '--src', '10.0.0.5'], env);
  expect({ code: two.code, err: two.stderr }).toEqual({ code: 64, err: 'fwctl trace: --dst and --proto are required (fwctl trace --help)\n' });
});

test('logs and sessions without a data plane say why they are empty instead of printing headers', async () => {
  expect(await fwctl(['logs'], daemonEnv())).toEqual({ code: 0, stdout: '',
    stderr: 'no traffic log: the daemon enforces nothing (FW_DATAPLANE=none); the linux data plane logs traffic\n' });
  expect(await fwctl(['sessions'], daemonEnv())).toEqual({ code: 0, stdout: '',
    stderr: 'no connections: the daemon enforces nothing (FW_DATAPLANE=none); the linux data plane tracks connections\n' });
  // --json stays the API's answer, for scripts
  expect(JSON.parse((await fwctl(['sessions', '--json'], daemonEnv())).stdout)).toEqual({ total: 0, sessions: [] });
});

test('status counts the session\'s changes in the right number: "1 change", not "1 changes"', async () => {
  await d.client.begin();
  try {
    const r = await d.client.post('/api/addresses', { name: 'wording-one', ips: ['192.0.2.7'] });
    expect(r.status).toBe(200);
    const st = await fwctl(['status'], daemonEnv());
    expect(st.stdout).toMatch(/^session +admin, 1 change, expires /m);
  } finally {
    await d.client.post('/api/config/discard');
  }
});
