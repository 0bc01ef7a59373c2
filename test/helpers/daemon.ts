// Starts the real daemon in this process on a free port with a throwaway data folder, and a
// small HTTP client for the tests. useDaemon() gives a test file one daemon and a logged-in
// admin client for all its tests.
import net from 'node:net';
import pino from 'pino';
import { startDaemon, type Daemon } from '../../src/app';
import { loadSettings, type Settings } from '../../src/settings';
import { checkerFor } from './openapi';
import { redisDir, startRedis, type TestRedis } from './redis';
import { tempDir } from './temp-dirs';

export { tempDir };

/** The store the API suite runs on: FW_TEST_STORE=redis runs it on a throwaway redis-server. */
export const TEST_STORE = process.env.FW_TEST_STORE === 'redis' ? 'redis' : 'embedded';

export const ADMIN = 'admin';
export const ADMIN_PASSWORD = 'admin-password-123';
/** The JWT secret of every test instance on Redis (a cluster requires one from the environment). */
export const CLUSTER_SECRET = 'test-cluster-secret-Qm9vZ2xlLXRlc3QtY2x1c3Rlci1zZWNyZXQtMjAyNg';

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  dir: string;
  settings: Settings;
  /** The throwaway redis-server of this daemon (FW_TEST_STORE=redis), stopped by close(). */
  redis: TestRedis | null;
  close(): Promise<void>;
}

export async function startTestDaemon(env: Record<string, string> = {}, dir = tempDir(), logger = pino({ level: 'silent' })): Promise<TestDaemon> {
  // on Redis, the folder keeps the server's append-only file: a daemon restarted on the same
  // folder finds its data again, as on the embedded store
  const redis = TEST_STORE === 'redis' && !env.REDIS_URL ? await startRedis(redisDir(dir)) : null;
  try {
    return await startOn(env, dir, logger, redis);
  } catch (e) {
    await redis?.stop();
    throw e;
  }
}

async function startOn(env: Record<string, string>, dir: string, logger: pino.Logger, redis: TestRedis | null): Promise<TestDaemon> {
  const settings = loadSettings({
    ...(redis ? { REDIS_URL: redis.url } : {}),
    FW_PORT: '0',
    FW_DATA_DIR: dir,
    FW_INTERFACES: 'eth0,eth1,eth2,eth3',
    FW_ADMIN_USER: ADMIN,
    FW_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FW_LOG_LEVEL: 'silent',
    ...(redis || env.REDIS_URL ? { FW_JWT_SECRET: CLUSTER_SECRET } : {}),
    ...env,
  });
  const daemon = await startDaemon(settings, { logger, announce: () => undefined });
  const url = `http://127.0.0.1:${daemon.port}`;
  return {
    daemon, url, dir, settings, redis,
    close: async () => {
      try {
        await daemon.close();
      } finally {
        await redis?.stop();
      }
    },
  };
}

export interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
  text: string;
}

export class Client {
  token = '';
  constructor(public url: string) {}

  async raw(method: string, p: string, body?: string, headers: Record<string, string> = {}): Promise<Res> {
    const h: Record<string, string> = { ...headers };
    if (this.token && !('Authorization' in h)) h.Authorization = `Bearer ${this.token}`;
    if (body !== undefined && !('Content-Type' in h)) h['Content-Type'] = 'application/json';
    const r = await fetch(this.url + p, { method, body, headers: h });
    const text = await r.text();
    // every answer must be one the OpenAPI document describes
    (await checkerFor(this.url)).check(method, p, r.status, r.headers.get('content-type'), r.headers.get('x-request-id'), text);
    let parsed: unknown = undefined;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
    return { status: r.status, body: parsed, headers: r.headers, text };
  }

  req(method: string, p: string, body?: unknown): Promise<Res> {
    return this.raw(method, p, body === undefined ? undefined : JSON.stringify(body));
  }
  get(p: string) { return this.req('GET', p); }
  post(p: string, body?: unknown) { return this.req('POST', p, body); }
  put(p: string, body?: unknown) { return this.req('PUT', p, body); }
  del(p: string) { return this.req('DELETE', p); }

  async login(username = ADMIN, password = ADMIN_PASSWORD): Promise<this> {
    const r = await this.post('/api/login', { username, password });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    this.token = r.body.token;
    return this;
  }

  /** Begins a session (ending one a failed test left open, so one failure does not cascade). */
  async begin(): Promise<void> {
    if ((await this.get('/api/config/session')).body.active) await this.post('/api/config/discard');
    expectMessage(await this.post('/api/config/begin'), 'config session started');
  }

  /** Commits the session and expects success. */
  async commit(): Promise<void> {
    const r = await this.post('/api/config/commit');
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: expect.objectContaining({ message: 'commit successful' }) });
  }
}

/** Awaits a request that must answer 200 (set-up steps); anything else throws with the answer. */
export async function ok(p: Promise<Res>): Promise<Res> {
  const r = await p;
  if (r.status !== 200) throw new Error(`expected 200: ${r.status} ${r.text}`);
  return r;
}

export interface UsedDaemon {
  /** Logged in as admin by beforeAll; the same object for the whole file. */
  readonly client: Client;
  /** The daemon started by beforeAll (throws before it has run). */
  readonly daemon: TestDaemon;
  /** Its base URL, for more clients. */
  readonly url: string;
}

/**
 * Registers beforeAll (start a daemon with `env`, log the admin client in) and afterAll (close
 * it) for the calling test file. More beforeAll hooks registered after this run after it.
 */
export function useDaemon(env: Record<string, string> = {}): UsedDaemon {
  const client = new Client('');
  let daemon: TestDaemon | undefined;
  beforeAll(async () => {
    daemon = await startTestDaemon(env);
    client.url = daemon.url;
    await client.login();
  });
  afterAll(async () => {
    await daemon?.close();
  });
  return {
    client,
    get daemon() {
      if (!daemon) throw new Error('the test daemon is not started yet (use it inside a test or hook)');
      return daemon;
    },
    get url() {
      return this.daemon.url;
    },
  };
}

/** Expects an error answer with the contract's body shape and returns it. */
export function expectError(r: Res, status: number, code: string): Res {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(typeof r.body.message).toBe('string');
  expect(typeof r.body.details).toBe('string');
  return r;
}

/**
 * A checker of refused requests: `bad(body, status, code, details?)` sends `body` with `send`
 * and expects that error answer (and details matching `details`).
 */
export function refusal<B>(send: (body: B) => Promise<Res>) {
  return async (body: B, status: number, code: string, details?: RegExp): Promise<Res> => {
    const r = expectError(await send(body), status, code);
    if (details) expect(r.body.details).toMatch(details);
    return r;
  };
}

export function expectMessage(r: Res, message: string): Res {
  expect({ status: r.status, message: r.body?.message }).toEqual({ status: 200, message });
  for (const v of Object.values(r.body)) expect(typeof v).toBe('string');
  return r;
}

/**
 * POSTs a body with Transfer-Encoding: chunked (no Content-Length), in 1,000-byte chunks, over
 * a raw socket. A server that answers early (413) and closes while the body is still going
 * out still gives its status.
 */
export function rawChunked(url: string, path: string, token: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
      for (let i = 0; i < body.length; i += 1000) {
        const part = body.slice(i, i + 1000);
        s.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
      }
      s.write('0\r\n\r\n');
    });
    const chunks: Buffer[] = [];
    const settle = (e?: Error) => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d+)[^]*?\r\n\r\n/.exec(text);
      if (m) resolve({ status: Number(m[1]), body: text.slice(m[0].length) });
      else reject(e ?? new Error(`no answer: ${text.slice(0, 200)}`));
    };
    s.on('data', (b: Buffer) => chunks.push(b));
    s.on('error', (e) => settle(e));
    s.on('close', () => settle());
  });
}
