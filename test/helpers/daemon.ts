// Starts the real daemon in this process on a free port with a throwaway data folder, and a
// small HTTP client for the tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startDaemon, type Daemon } from '../../src/app';
import { loadSettings, type Settings } from '../../src/settings';

export const ADMIN = 'admin';
export const ADMIN_PASSWORD = 'admin-password-123';

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  dir: string;
  settings: Settings;
  close(): Promise<void>;
}

export function tempDir(prefix = 'fwd-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestDaemon(env: Record<string, string> = {}, dir = tempDir()): Promise<TestDaemon> {
  const settings = loadSettings({
    FW_PORT: '0',
    FW_DATA_DIR: dir,
    FW_INTERFACES: 'eth0,eth1,eth2,eth3',
    FW_ADMIN_USER: ADMIN,
    FW_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FW_LOG_LEVEL: 'silent',
    ...env,
  });
  const daemon = await startDaemon(settings, { logger: pino({ level: 'silent' }), announce: () => undefined });
  const url = `http://127.0.0.1:${daemon.port}`;
  return {
    daemon, url, dir, settings,
    close: async () => {
      await daemon.close();
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
}

/** Expects an error answer with the contract's body shape and returns it. */
export function expectError(r: Res, status: number, code: string): Res {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(typeof r.body.message).toBe('string');
  expect(typeof r.body.details).toBe('string');
  return r;
}

export function expectMessage(r: Res, message: string): Res {
  expect({ status: r.status, message: r.body?.message }).toEqual({ status: 200, message });
  for (const v of Object.values(r.body)) expect(typeof v).toBe('string');
  return r;
}
