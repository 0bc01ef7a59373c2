// The verified-token caches of TokenService: the Map by header and the few recently seen
// headers in front of it must both forget a token that expires, is revoked or loses its user.
import { TokenService } from '../../src/auth/tokens';
import type { Store } from '../../src/store/types';
import type { AuthUser } from '../../src/auth/user';

/** An account as the store answers it (TokenService binds tokens to its id and epoch). */
const account = (username: string) => ({ username, role: 'admin' as const, id: `id-${username}`, epoch: 0 });

function service(revoked: Set<string>, users: Set<string>): TokenService {
  const store = {
    isRevoked: async (jti: string) => revoked.has(jti),
    getUser: async (name: string) => (users.has(name) ? account(name) : null),
  } as unknown as Store;
  return new TokenService('unit-test-secret-of-some-length', 2, store);
}

async function authenticate(t: TokenService, header: string): Promise<AuthUser> {
  return t.authenticate(header);
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('nothing was thrown');
}

afterEach(() => jest.restoreAllMocks());

test('a recently seen token is answered at once, then refused when it expires', async () => {
  const t = service(new Set(), new Set(['admin']));
  const header = `Bearer ${t.issue(account('admin')).token}`;
  const first = t.authenticate(header);
  expect(first).toBeInstanceOf(Promise); // verified against the store once
  const user = await first;
  const again = t.authenticate(header); // from the Map, now among the recent headers
  expect(again).toBe(user);
  expect(t.authenticate(header)).toBe(user); // from the recent headers
  const later = Date.now() + 3_000;
  jest.spyOn(Date, 'now').mockReturnValue(later);
  expect(thrown(() => t.authenticate(header))).toMatchObject({ code: 'ERR_SEC_5003', details: 'token expired' });
  // forgotten by both caches: the next attempt verifies the signature again, and fails
  await expect(authenticate(t, header)).rejects.toMatchObject({ code: 'ERR_SEC_5003' });
});

test('revocation and account deletion reach tokens among the recent headers', async () => {
  const revoked = new Set<string>();
  const users = new Set(['admin', 'ops']);
  const t = service(revoked, users);
  const a = `Bearer ${t.issue(account('admin')).token}`;
  const o = `Bearer ${t.issue(account('ops')).token}`;
  const admin = await authenticate(t, a);
  await authenticate(t, o);
  for (let i = 0; i < 3; i++) expect(t.authenticate(a)).toBe(admin);
  revoked.add(admin.jti);
  t.forgetToken(admin.jti);
  await expect(authenticate(t, a)).rejects.toMatchObject({ code: 'ERR_SEC_5003', details: 'token revoked' });
  expect((t.authenticate(o) as AuthUser).username).toBe('ops');
  users.delete('ops');
  t.forgetUser('ops');
  await expect(authenticate(t, o)).rejects.toMatchObject({ code: 'ERR_SEC_5003', details: 'account no longer exists' });
});

test('more recent tokens than slots: each still resolves to its own user', async () => {
  const names = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
  const t = service(new Set(), new Set(names));
  const headers = names.map((n) => `Bearer ${t.issue(account(n)).token}`);
  for (const h of headers) await authenticate(t, h);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < headers.length; i++) expect((t.authenticate(headers[(i * 3) % headers.length]) as AuthUser).username).toBe(names[(i * 3) % headers.length]);
  }
});

test('a verification that read the account before a forget is answered but not cached (a role change racing it)', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => { release = r; });
  const store = {
    isRevoked: async () => false,
    getUser: async (name: string) => { await gate; return account(name); },
  } as unknown as Store;
  const t = new TokenService('unit-test-secret-of-some-length', 60, store);
  const header = `Bearer ${t.issue(account('ops')).token}`;
  const first = t.authenticate(header) as Promise<AuthUser>;
  t.forgetUser('ops'); // e.g. told of a demotion while the account was being read
  release();
  expect((await first).role).toBe('admin');
  expect(t.authenticate(header)).toBeInstanceOf(Promise); // verified again, not from the cache
  await t.close();
});
