// Every operation of the OpenAPI document, called as every role, with a login JWT and with an
// API token: 403 ERR_SEC_5008 exactly where the role is not among the operation's x-roles,
// never elsewhere. A route added without a permission has no x-roles and fails here; the
// x-roles come from the one roles table, so the document, the router and this test agree.
import fs from 'node:fs';
import path from 'node:path';
import { ROLES, rolesFor, type Role } from '../../src/auth/roles';
import { Client, ok, useDaemon } from '../helpers/daemon';
import { roleClients, type RoleClients } from '../helpers/roles';

const d = useDaemon();
let doc: any; // eslint-disable-line @typescript-eslint/no-explicit-any
let clients: Record<Role, RoleClients>;
/** the operations that take no token at all */
const PUBLIC = ['post /api/login', 'get /healthz', 'get /readyz', 'get /api/openapi.json'];

beforeAll(async () => {
  doc = await (await fetch(`${d.url}/api/openapi.json`)).json();
  clients = await roleClients(d.client, d.url);
});

interface Op { method: string; path: string; roles: Role[] | undefined; body: boolean }

function operations(): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) { // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const [method, op] of Object.entries<any>(item)) { // eslint-disable-line @typescript-eslint/no-explicit-any
      out.push({ method: method.toUpperCase(), path, roles: op['x-roles'], body: op.requestBody !== undefined });
    }
  }
  return out;
}

/** A concrete request path: every parameter a name that exists nowhere (a number for ids). */
function concrete(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, p: string) => (/id|^n$/.test(p) ? '999999' : 'no-such-thing'));
}

/** A client with the credential of `kind` for `role`; logout gets a fresh one it may revoke. */
async function caller(role: Role, kind: keyof RoleClients, op: Op): Promise<Client> {
  if (op.path !== '/api/logout') return clients[role][kind];
  const c = new Client(d.url);
  if (kind === 'jwt') return role === 'admin' ? c.login() : c.login(`${role}-user`, 'role-password-123');
  const maker = role === 'operator' ? clients.operator.jwt : d.client;
  c.token = (await ok(maker.post('/api/tokens', { name: `logout-${role}-${Date.now()}`, role }))).body.token;
  return c;
}

/**
 * One call of the matrix: the status, and the body of a refusal. An answer that is not a
 * refusal is not read to its end (a stream, such as server-sent events, never ends): its
 * status is all the matrix needs, and the other API tests check those answers' bodies.
 */
async function call(c: Client, op: Op): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers: Record<string, string> = { Authorization: `Bearer ${c.token}` };
  if (op.body) headers['Content-Type'] = 'application/json';
  const r = await fetch(d.url + concrete(op.path), { method: op.method, headers, body: op.body ? '{}' : undefined });
  if (r.status !== 403) {
    await r.body?.cancel();
    return { status: r.status, body: null };
  }
  return { status: r.status, body: await r.json() };
}

test('every operation but the public ones names its roles (x-roles, and in its description), from the roles table', () => {
  const ops = operations();
  expect(ops.length).toBeGreaterThan(60);
  for (const op of ops) {
    const key = `${op.method.toLowerCase()} ${op.path}`;
    if (PUBLIC.includes(key)) {
      expect({ key, roles: op.roles }).toEqual({ key, roles: undefined });
      continue;
    }
    expect({ key, admin: op.roles?.[0] }).toEqual({ key, admin: 'admin' }); // admin may do everything
    const item = doc.paths[op.path][op.method.toLowerCase()];
    expect(item.description).toContain(`Roles: ${op.roles!.join(', ')}.`);
    expect(Object.keys(item.responses)).toContain('403');
  }
  // the reads every role has, and the writes only configuring roles have
  // every role but feeder (issue 40: it feeds dynamic sets and reads nothing)
  expect(doc.paths['/api/me'].get['x-roles']).toEqual(ROLES.filter((r) => r !== 'feeder'));
  expect(doc.paths['/api/dynamic-sets/{name}/entries'].post['x-roles']).toEqual(['admin', 'operator', 'feeder']);
  expect(doc.paths['/api/addresses'].post['x-roles']).toEqual(['admin', 'operator']);
  expect(doc.paths['/api/audit'].get['x-roles']).toEqual(rolesFor('audit'));
  expect(doc.paths['/api/users'].post['x-roles']).toEqual(['admin']);
});

for (const kind of ['jwt', 'api'] as const) {
  test(`every operation as every role (${kind === 'jwt' ? 'login JWT' : 'API token'}): 403 exactly where the role lacks the permission`, async () => {
    const wrong: string[] = [];
    let refused = 0;
    for (const op of operations()) {
      if (!op.roles) continue;
      for (const role of ROLES) {
        const c = await caller(role, kind, op);
        const r = await call(c, op);
        const allowed = op.roles.includes(role);
        if (allowed ? r.status === 403 : r.status !== 403 || r.body.code !== 'ERR_SEC_5008') {
          wrong.push(`${role} ${op.method} ${op.path}: ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
        }
        if (!allowed) {
          refused++;
          if (!r.body.details.includes(`your role: ${role}`) || !r.body.details.includes(op.roles.join(' or '))) wrong.push(`${role} ${op.method} ${op.path}: details "${r.body.details}"`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(refused).toBeGreaterThan(50); // the matrix did refuse: viewers wrote nothing
  });
}

test('the role table of docs/operations.md is the document\'s x-roles, row for row', () => {
  const text = fs.readFileSync(path.resolve(__dirname, '../../../docs/operations.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const m of text.matchAll(/^\| (GET|POST|PUT|DELETE|PATCH) (\S+) \| (.+) \|$/gm)) rows.set(`${m[1]} ${m[2]}`, m[3].split(' | '));
  for (const op of operations()) {
    const key = `${op.method} ${op.path}`;
    const expected = ROLES.map((r) => (!op.roles ? 'public' : op.roles.includes(r) ? 'yes' : '—'));
    expect({ key, cells: rows.get(key) }).toEqual({ key, cells: expected });
  }
});
