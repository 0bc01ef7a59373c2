// The console's one way to the API: the bearer token in memory (and sessionStorage, so that a
// reload of the tab keeps the login; never a cookie or localStorage), JSON in and out, and the
// contract's error body as an ApiError. A 401 ends the login.
import { signal } from '@preact/signals';
import type { ApiErrorBody, Me, Role } from './types';

const STORAGE_KEY = 'fwd.token';

export interface Login {
  token: string;
  username: string;
  role: Role;
  /** unix seconds; null: an API token without expiry */
  expires: number | null;
  /** the API token's name when logged in with one */
  tokenName?: string;
}

/** Who is logged in; null: the login page. */
export const login = signal<Login | null>(null);
/** Why the last login ended (expiry, revocation), shown on the login page. */
export const loginNotice = signal('');

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody) {
    super(body.details ? `${body.message}: ${body.details}` : body.message);
  }

  /** The request field the details name (`field "src-zone": ...` → "src-zone"), if any. */
  get field(): string | null {
    const m = /field "([^"[]+)/.exec(this.body.details ?? '');
    return m ? m[1] : null;
  }
}

export function endLogin(notice: string): void {
  sessionStorage.removeItem(STORAGE_KEY);
  login.value = null;
  loginNotice.value = notice;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = login.value?.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json: unknown = text === '' ? undefined : JSON.parse(text);
  if (!res.ok) {
    const err = new ApiError(res.status, (json as ApiErrorBody) ?? { code: '', message: res.statusText, details: '' });
    if (res.status === 401 && token && path !== '/api/login') endLogin('Your login has ended (expired or revoked). Please log in again.');
    throw err;
  }
  return json as T;
}

/** The token's owner, role and expiry as the API tells them. */
async function whoAmI(token: string): Promise<Login> {
  const res = await fetch('/api/me', { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) throw new ApiError(res.status, (await res.json()) as ApiErrorBody);
  const me = (await res.json()) as Me;
  return { token, username: me.username, role: me.role, expires: me.expires, tokenName: me.token };
}

export async function logIn(username: string, password: string): Promise<void> {
  const t = await api<{ token: string }>('POST', '/api/login', { username, password });
  const who = await whoAmI(t.token);
  sessionStorage.setItem(STORAGE_KEY, t.token);
  loginNotice.value = '';
  login.value = who;
}

export async function logOut(): Promise<void> {
  try {
    await api('POST', '/api/logout');
  } finally {
    endLogin('You are logged out.');
  }
}

/** The login of this tab after a reload, if its token still works. */
export async function resumeLogin(): Promise<void> {
  const token = sessionStorage.getItem(STORAGE_KEY);
  if (!token) return;
  try {
    login.value = await whoAmI(token);
  } catch {
    sessionStorage.removeItem(STORAGE_KEY);
  }
}

/** A list answer as an array: addresses and services are listed as objects keyed by name. */
export function asList<T>(answer: T[] | Record<string, T>): T[] {
  return Array.isArray(answer) ? answer : Object.values(answer);
}
