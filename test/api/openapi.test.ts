// The OpenAPI document: served without a token, valid by a linter nobody here wrote
// (@redocly/cli with its recommended rules), generated from the very schemas the handlers
// validate with, and a checker (test/helpers/openapi.ts, which every API test runs on every
// answer) that refuses what the document does not describe.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RESOURCES } from '../../src/config/resources';
import { AddressModel } from '../../src/config/render/objects';
import { Client, tempDir, useDaemon } from '../helpers/daemon';
import { OpenApiChecker } from '../helpers/openapi';
import { plain } from '../../src/api/openapi';

const d = useDaemon();
let doc: any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  const r = await fetch(`${d.url}/api/openapi.json`); // no token
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/json');
  doc = await r.json();
});

test('the document is OpenAPI 3.1 with the bearer scheme, and lints with zero errors (@redocly/cli, recommended rules)', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  const dir = tempDir('fwd-openapi-');
  try {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const bin = path.resolve(__dirname, '../../../node_modules/.bin/redocly');
    // offline: no telemetry, no update check, no notifications
    const run = spawnSync(bin, ['lint', file, '--extends', 'recommended', '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', CI: 'true' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = run.stdout;
    const report = JSON.parse(out.slice(out.indexOf('{')));
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(run.status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 150_000);

test('request bodies and read models in the document are the schemas the code validates and answers with', () => {
  const op = (m: string, p: string) => doc.paths[p][m];
  const bodyOf = (m: string, p: string) => op(m, p).requestBody.content['application/json'].schema;
  expect(bodyOf('post', '/api/addresses')).toEqual(plain(RESOURCES.address.bodies.create));
  expect(bodyOf('put', '/api/zones/{name}')).toEqual(plain(RESOURCES.zone.bodies.update));
  expect(bodyOf('post', '/api/policies/{id}/move')).toEqual(plain(RESOURCES.policy.bodies.move));
  expect(bodyOf('post', '/api/nat')).toEqual(plain(RESOURCES.nat.bodies.create));
  expect(op('get', '/api/addresses/{name}').responses['200'].content['application/json'].schema).toEqual(plain(AddressModel));
  // every kind's create, update and move operations, wherever the resource has them
  for (const ops of Object.values(RESOURCES)) {
    for (const schema of Object.values(ops.bodies)) {
      const found = Object.values(doc.paths).some((item: any) => // eslint-disable-line @typescript-eslint/no-explicit-any
        Object.values(item).some((o: any) => JSON.stringify(o.requestBody?.content['application/json'].schema) === JSON.stringify(plain(schema)))); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(found).toBe(true);
    }
  }
});

test('every operation lists its error answers with the contract\'s codes, and the bearer requirement', () => {
  const del = doc.paths['/api/addresses/{name}'].delete;
  expect(Object.keys(del.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '422', '500', '503']);
  const e404 = doc.components.responses.Error404.content['application/json'].schema;
  expect(e404.properties.code.anyOf.map((c: { const: string }) => c.const).sort()).toEqual(['ERR_NET_1003', 'ERR_NET_1011']);
  expect(doc.paths['/api/login'].post.security).toEqual([]);
  expect(doc.paths['/healthz'].get.security).toEqual([]);
  expect(doc.paths['/api/me'].get.security).toBeUndefined(); // the document's: bearer
  expect(doc.security).toEqual([{ bearer: [] }]);
  expect(doc.paths['/api/policies'].get.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'config', in: 'query' }), expect.objectContaining({ name: 'stats', in: 'query' })]));
  expect(doc.paths['/api/policies'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['config', 'cursor', 'disabled', 'limit', 'name', 'q', 'stats', 'tag']);
});

test('the checker refuses answers the document does not describe', () => {
  const checker = new OpenApiChecker(doc);
  const ok = () => checker.check('GET', '/api/me', 200, 'application/json', 'x-1', JSON.stringify({ username: 'a', role: 'admin', expires: 1 }));
  expect(ok).not.toThrow();
  expect(() => checker.check('GET', '/api/me', 200, 'application/json', 'x-1', JSON.stringify({ username: 'a', role: 'admin' }))).toThrow(/does not match/);
  expect(() => checker.check('GET', '/api/me', 409, 'application/json', 'x-1', '{}')).toThrow(/not listed/);
  expect(() => checker.check('GET', '/api/me', 200, 'application/json', null, '{}')).toThrow(/X-Request-Id/);
  expect(() => checker.check('GET', '/api/nothing', 200, 'application/json', 'x', '{}')).toThrow(/expected 404/);
  expect(() => checker.check('POST', '/api/me', 405, 'application/json', 'x', JSON.stringify({ code: 'ERR_NET_1009', message: 'm', details: '' }))).not.toThrow();
  const wrongCode = JSON.stringify({ code: 'ERR_NET_1003', message: 'm', details: '' }); // a 404 code on a 400
  expect(() => checker.check('POST', '/api/addresses', 400, 'application/json', 'x', wrongCode)).toThrow(/does not match/);
});

test('the client of every API test checks its answers: an undescribed one fails the request', async () => {
  const c = new Client(d.url);
  await c.login();
  expect((await c.get('/api/me')).status).toBe(200);
  // the same client on a tampered document: /api/me no longer lists 200
  const checker = new OpenApiChecker(JSON.parse(JSON.stringify(doc)));
  delete checker.doc.paths['/api/me'].get.responses['200'];
  const r = await fetch(`${d.url}/api/me`, { headers: { Authorization: `Bearer ${c.token}` } });
  expect(() => checker.check('GET', '/api/me', r.status, r.headers.get('content-type'), r.headers.get('x-request-id'), '{}')).toThrow(/not listed/);
});
