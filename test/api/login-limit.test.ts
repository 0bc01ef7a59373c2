// The failed-login limit as a weapon (issue 25): failures count per (user name, client
// address) with delays that grow, so that an attacker elsewhere cannot lock the owner out; a
// limit per address still bounds spraying from one place. Clients are told apart by the
// X-Forwarded-For of a trusted proxy (the test client on 127.0.0.1).
import { ADMIN, ADMIN_PASSWORD, Client, expectError, startTestDaemon, type Res, type TestDaemon } from '../helpers/daemon';
import { eventually } from '../helpers/cluster';

const daemons: TestDaemon[] = [];
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
});

async function daemon(env: Record<string, string>): Promise<string> {
  const d = await startTestDaemon({ FW_TRUSTED_PROXIES: '127.0.0.1', ...env });
  daemons.push(d);
  return d.url;
}

function login(url: string, from: string, username: string, password: string): Promise<Res> {
  return new Client(url).raw('POST', '/api/login', JSON.stringify({ username, password }), { 'X-Forwarded-For': from });
}

function retryAfter(r: Res): number {
  return Number(expectError(r, 429, 'ERR_SEC_5007').headers.get('retry-after'));
}

describe('FW_LOGIN_MAX_FAILURES 3 within 60 s', () => {
  let url = '';
  beforeAll(async () => {
    url = await daemon({ FW_LOGIN_MAX_FAILURES: '3', FW_LOGIN_WINDOW: '60' });
  });

  test('an attacker\'s failures lock its own (user, address) pair, not the owner logging in from elsewhere', async () => {
    for (let i = 0; i < 3; i++) expectError(await login(url, '198.51.100.66', ADMIN, `guess-${i}-xxxxxx`), 401, 'ERR_SEC_5005');
    // from the attacker's address even the right password waits
    const wait = retryAfter(await login(url, '198.51.100.66', ADMIN, ADMIN_PASSWORD));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await login(url, '198.51.100.77', ADMIN, ADMIN_PASSWORD)).status).toBe(200);
  });

  test('an IPv6 client is counted by its /64: a new address within it does not start over, another network is not locked', async () => {
    for (const host of ['1', '2', '3']) expectError(await login(url, `2001:db8::${host}`, ADMIN, 'wrong-password-6'), 401, 'ERR_SEC_5005');
    retryAfter(await login(url, '2001:db8::ffff', ADMIN, 'wrong-password-6'));
    expect((await login(url, '2001:db8:0:1::1', ADMIN, ADMIN_PASSWORD)).status).toBe(200);
  });

  test('4 x 3 failures from one address, each for another name, refuse every name from there (spraying), not elsewhere', async () => {
    for (let i = 0; i < 12; i++) expectError(await login(url, '198.51.100.88', `sprayed${i}`, 'wrong-password-1'), 401, 'ERR_SEC_5005');
    retryAfter(await login(url, '198.51.100.88', ADMIN, ADMIN_PASSWORD));
    expect((await login(url, '198.51.100.89', ADMIN, ADMIN_PASSWORD)).status).toBe(200);
  });

  test('a success clears the pair: the owner\'s typos before it do not count after it', async () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) expectError(await login(url, '198.51.100.99', ADMIN, 'typo-typo-typo'), 401, 'ERR_SEC_5005');
      expect((await login(url, '198.51.100.99', ADMIN, ADMIN_PASSWORD)).status).toBe(200);
    }
  });
});

test('each failure past the limit doubles the pair\'s wait (FW_LOGIN_MAX_FAILURES 1, FW_LOGIN_WINDOW 2: 2 s, 4 s, 8 s)', async () => {
  const url = await daemon({ FW_LOGIN_MAX_FAILURES: '1', FW_LOGIN_WINDOW: '2' });
  const wrong = () => login(url, '198.51.100.5', ADMIN, 'wrong-password-5');
  expectError(await wrong(), 401, 'ERR_SEC_5005');
  const waits = [retryAfter(await wrong())];
  for (let i = 0; i < 2; i++) {
    // once the wait is over, the next try is heard (and fails again): tries refused meanwhile do not count
    expect(await eventually(async () => (await wrong()).status === 401, 10_000)).toBe(true);
    waits.push(retryAfter(await wrong()));
  }
  // whole seconds, rounded up, from a moment after the failure
  expect(waits[0]).toBeGreaterThanOrEqual(1);
  expect(waits[0]).toBeLessThanOrEqual(2);
  expect(waits[1]).toBeGreaterThanOrEqual(3);
  expect(waits[1]).toBeLessThanOrEqual(4);
  expect(waits[2]).toBeGreaterThanOrEqual(7);
  expect(waits[2]).toBeLessThanOrEqual(8);
  // the owner elsewhere is not refused meanwhile
  expect((await login(url, '198.51.100.6', ADMIN, ADMIN_PASSWORD)).status).toBe(200);
});
