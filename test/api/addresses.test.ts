// Addresses over HTTP: messages, read models (IPv4 and IPv6), normalization, partial
// updates, errors and hostile names.
import { naturalCompare } from '../../src/config/natural-order';
import { expectError, expectMessage, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

beforeAll(async () => {
  await c.post('/api/config/begin');
});

test('create, read back from the candidate and, after commit, from running', async () => {
  expectMessage(await c.post('/api/addresses', { name: 'web', ips: ['10.0.0.5/24', '2001:db8::1/64', '192.168.1.7'] }), 'address created in candidate');
  const expected = {
    name: 'web',
    ips: [
      { ip: [10, 0, 0, 0], mask: [255, 255, 255, 0] },
      { ip: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], mask: [255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0] },
      { ip: [192, 168, 1, 7], mask: [255, 255, 255, 255] },
    ],
  };
  expect((await c.get('/api/addresses?config=candidate')).body).toEqual({ web: expected });
  expect((await c.get('/api/addresses/web?config=candidate')).body).toEqual(expected);
  expect((await c.get('/api/addresses')).body).toEqual({});
  expectError(await c.get('/api/addresses/web'), 404, 'ERR_NET_1003');
  expectMessage(await c.post('/api/config/commit'), 'commit successful');
  expect((await c.get('/api/addresses')).body).toEqual({ web: expected });
  expect((await c.get('/api/addresses/web')).body).toEqual(expected);
  await c.post('/api/config/begin');
});

test('duplicates are removed after host bits are cleared; /0 and /128 are kept', async () => {
  await c.post('/api/addresses', { name: 'dups', ips: ['10.1.2.3/16', '10.1.0.0/16', '0.0.0.0/0', '::1/128'] });
  const r = (await c.get('/api/addresses/dups?config=candidate')).body;
  expect(r.ips).toEqual([
    { ip: [10, 1, 0, 0], mask: [255, 255, 0, 0] },
    { ip: [0, 0, 0, 0], mask: [0, 0, 0, 0] },
    { ip: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], mask: new Array(16).fill(255) },
  ]);
});

test('partial update replaces ips; the name may be repeated but not changed', async () => {
  await c.post('/api/addresses', { name: 'upd', ips: ['10.2.0.0/16'] });
  expectMessage(await c.put('/api/addresses/upd', { ips: ['10.3.0.0/16'] }), 'address updated in candidate');
  expect((await c.get('/api/addresses/upd?config=candidate')).body.ips).toEqual([{ ip: [10, 3, 0, 0], mask: [255, 255, 0, 0] }]);
  expectMessage(await c.put('/api/addresses/upd', { name: 'upd' }), 'address updated in candidate');
  expect((await c.get('/api/addresses/upd?config=candidate')).body.ips).toEqual([{ ip: [10, 3, 0, 0], mask: [255, 255, 0, 0] }]);
  expectError(await c.put('/api/addresses/upd', { name: 'other', ips: ['10.0.0.0/8'] }), 400, 'ERR_NET_1004');
  expectError(await c.put('/api/addresses/nope', { ips: ['10.0.0.0/8'] }), 404, 'ERR_NET_1003');
  expectError(await c.put('/api/addresses/upd', { ips: [] }), 400, 'ERR_NET_1004');
});

test('create errors: exists 409, bad CIDR 400 ERR_NET_1001, missing/unknown/wrong type 400 ERR_NET_1004', async () => {
  await c.post('/api/addresses', { name: 'taken', ips: ['10.4.0.0/16'] });
  expectError(await c.post('/api/addresses', { name: 'taken', ips: ['10.5.0.0/16'] }), 409, 'ERR_NET_2006');
  for (const bad of ['10.0.0.256/24', '10.0.0.0/33', '2001:db8::/129', 'host', '10.0.0', '1.2.3.4/-1', '01.2.3.4', '1:2:3:4:5:6:7:8:9', '']) {
    const r = expectError(await c.post('/api/addresses', { name: 'bad', ips: [bad] }), 400, 'ERR_NET_1001');
    expect(r.body.details).toContain('ips[0]');
  }
  expect(expectError(await c.post('/api/addresses', { name: 'x' }), 400, 'ERR_NET_1004').body.details).toContain('ips');
  expect(expectError(await c.post('/api/addresses', { ips: ['10.0.0.0/8'] }), 400, 'ERR_NET_1004').body.details).toContain('name');
  expect(expectError(await c.post('/api/addresses', { name: 'x', ips: ['10.0.0.0/8'], color: 'red' }), 400, 'ERR_NET_1004').body.details).toContain('color');
  expectError(await c.post('/api/addresses', { name: 'x', ips: '10.0.0.0/8' }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/addresses', { name: 7, ips: ['10.0.0.0/8'] }), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/addresses', ['not', 'an', 'object']), 400, 'ERR_NET_1004');
  expectError(await c.post('/api/addresses', null), 400, 'ERR_NET_1004');
});

test('names: rules enforced, "any" reserved, hostile names are plain data', async () => {
  for (const bad of ['__proto__', '-lead', 'has space', 'any', 'ANY', 'x'.repeat(65), 'semi;colon', 'ünï']) {
    const r = expectError(await c.post('/api/addresses', { name: bad, ips: ['10.0.0.0/8'] }), 400, 'ERR_NET_1004');
    expect(r.body.details).toContain('name');
  }
  const proto = expectError(await c.raw('POST', '/api/addresses', '{"__proto__": {"polluted": 1}, "name": "p", "ips": ["10.0.0.0/8"]}'), 400, 'ERR_NET_1004');
  expect(proto.body.details).toContain('__proto__');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  for (const name of ['constructor', 'toString', 'hasOwnProperty', 'a.b:c-d_e', 'x'.repeat(64)]) {
    expectMessage(await c.post('/api/addresses', { name, ips: ['10.9.9.0/24'] }), 'address created in candidate');
    expect((await c.get(`/api/addresses/${name}?config=candidate`)).body.name).toBe(name);
  }
  const list = (await c.get('/api/addresses?config=candidate')).body;
  expect(Object.prototype.hasOwnProperty.call(list, 'constructor')).toBe(true);
  expect(list.constructor.name).toBe('constructor');
  expectError(await c.get('/api/addresses/prototype?config=candidate'), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/addresses/__proto__?config=candidate'), 404, 'ERR_NET_1003');
});

test('delete; unknown is 404', async () => {
  await c.post('/api/addresses', { name: 'del', ips: ['10.10.0.0/16'] });
  expectMessage(await c.del('/api/addresses/del'), 'address deleted from candidate');
  expectError(await c.del('/api/addresses/del'), 404, 'ERR_NET_1003');
  expectError(await c.get('/api/addresses/del?config=candidate'), 404, 'ERR_NET_1003');
});

test('lists are sorted by name, naturally (natural-order.test.ts: h-ext-12 before h-ext-102)', async () => {
  const keys = Object.keys((await c.get('/api/addresses?config=candidate')).body);
  expect(keys).toEqual([...keys].sort(naturalCompare));
});
