// Soak of the hardened request paths (issue 25): `npm run bench:soak-security -- [--rounds N]
// [--logins N] [--streams N] [--keys N] [--tokens N]`.
// Starts the daemon with --expose-gc behind a trusted proxy address (so that failed logins can
// come from many client addresses), then, round after round:
// - N failed logins, from as many names and addresses (the failed-login aggregation and the
//   per-(user, address) limiter keep state for each);
// - N event streams opened by fresh logins and ended by their logout (each stream is tracked
//   with its credential until the forget closes it);
// - N API tokens created with an Idempotency-Key (the secret is never stored) and revoked;
// - N Idempotency-Key changes (address creations) in a session, then discarded.
// After each round the daemon collects its garbage (SIGUSR2) and one row is printed: RSS, heap
// after GC, the audit trail's length. A leak shows as a slope over the rounds. FW_TOKEN_TTL and
// FW_LOGIN_WINDOW from the environment shorten what the daemon keeps on purpose (revoked
// tokens until they expire, failure times for their window), so that a slope left is a leak.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { EmbeddedStore } from '../src/store/embedded';
import { emptyDoc } from '../src/config/document';
import { closeAgent, login, request, seedStore, startInstance } from './http-load';
import { HeapProbe } from './heap-probe';

function count(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const n = Number(i >= 0 ? process.argv[i + 1] : def);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** A POST from client address `ip` (X-Forwarded-For through the trusted loopback proxy). */
function postFrom(port: number, ip: string, p: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens GET /api/events with `token` and resolves once the answer's head is in; `done` when the daemon ends it. */
function openStream(port: number, token: string): Promise<{ status: number; done: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/events', headers: { Authorization: `Bearer ${token}` } }, (res) => {
      const done = new Promise<void>((end) => res.on('close', end));
      res.resume();
      resolve({ status: res.statusCode ?? 0, done });
    });
    req.on('error', reject);
  });
}

async function failedLogins(port: number, round: number, n: number): Promise<void> {
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => {
      const j = i + k;
      const ip = `10.${round % 250}.${(j >> 8) & 255}.${j & 255}`;
      return postFrom(port, ip, '/api/login', JSON.stringify({ username: `user${round}-${j}`, password: 'not-the-password' }));
    }));
  }
}

async function streamsEndedByLogout(port: number, n: number): Promise<void> {
  for (let i = 0; i < n; i += 25) {
    const tokens = await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => login(port)));
    const streams = await Promise.all(tokens.map((t) => openStream(port, t)));
    if (streams.some((s) => s.status !== 200)) throw new Error(`a stream was refused: ${streams.map((s) => s.status).join(',')}`);
    await Promise.all(tokens.map((t) => request(port, 'POST', '/api/logout', t)));
    await Promise.all(streams.map((s) => s.done));
  }
}

async function apiTokensMadeAndRevoked(port: number, admin: string, round: number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const name = `soak-${round}-${i}`;
    const r = await request(port, 'POST', '/api/tokens', admin, JSON.stringify({ name, role: 'viewer' }));
    if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
    await request(port, 'DELETE', `/api/tokens/${name}`, admin);
  }
}

async function idempotentChanges(port: number, admin: string, round: number, n: number): Promise<void> {
  await request(port, 'POST', '/api/config/begin', admin);
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({ name: `idem-${round}-${i}`, ips: [`10.200.${round % 250}.${i % 250}/32`] });
    const r = await keyed(port, admin, `soak-${round}-${i}`, '/api/addresses', body);
    if (r !== 200) throw new Error(`idempotent change: ${r}`);
  }
  await request(port, 'POST', '/api/config/discard', admin);
}

function keyed(port: number, token: string, key: string, p: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key };
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const rounds = count('rounds', 6);
  const logins = count('logins', 500);
  const streams = count('streams', 200);
  const keys = count('keys', 300);
  const tokens = count('tokens', 100);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-soak-security-'));
  await seedStore(new EmbeddedStore({ dir }), emptyDoc(['eth0', 'eth1']));
  // 5 s tokens' worth of idempotency keys: the keys of a round expire before the next ends
  const env = { FW_DATA_DIR: dir, FW_TRUSTED_PROXIES: '127.0.0.1', FW_EVENT_STREAMS_PER_USER: String(streams), FW_IDEMPOTENCY_TTL: '5', FW_AUDIT_KEEP: '1000' };
  const inst = await startInstance(env, undefined, ['--expose-gc']);
  const probe = new HeapProbe(inst.proc);
  try {
    let admin = await login(inst.port);
    console.log(`\nSoak of the hardened paths: ${rounds} rounds of ${logins} failed logins, ${streams} streams ended by logout, ${tokens} API tokens made and revoked, ${keys} Idempotency-Key changes; load ${os.loadavg()[0].toFixed(2)}\n`);
    console.log('| round | RSS MB | heap after GC MB | heap total MB | audit entries | round s |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    const row = async (round: number, secs: number) => {
      const h = await probe.afterGc();
      const audit = await request(inst.port, 'GET', '/api/audit?limit=1000', admin);
      const entries = (JSON.parse(audit.text) as { entries: unknown[] }).entries.length;
      console.log(`| ${round} | ${(h.rss / 2 ** 20).toFixed(1)} | ${(h.heapUsed / 2 ** 20).toFixed(1)} | ${(h.heapTotal / 2 ** 20).toFixed(1)} | ${entries} | ${secs.toFixed(1)} |`);
    };
    await row(0, 0);
    for (let round = 1; round <= rounds; round++) {
      const t0 = Date.now();
      admin = await login(inst.port); // a fresh token each round: a long soak may outlive FW_TOKEN_TTL
      await failedLogins(inst.port, round, logins);
      await streamsEndedByLogout(inst.port, streams);
      await apiTokensMadeAndRevoked(inst.port, admin, round, tokens);
      await idempotentChanges(inst.port, admin, round, keys);
      await row(round, (Date.now() - t0) / 1000);
    }
  } finally {
    inst.proc.kill('SIGTERM');
    closeAgent();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
