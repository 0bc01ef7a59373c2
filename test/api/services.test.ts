// /api/services over HTTP: messages, reads (running vs candidate), read models, partial
// updates, every error of the contract for services, hostile names and in-use deletes.
import { expectError, expectMessage, refusal, useDaemon } from '../helpers/daemon';

const c = useDaemon().client;

describe('services', () => {
  test('create, read running vs candidate, commit', async () => {
    expect((await c.get('/api/services')).body).toEqual({});
    expectError(await c.get('/api/services?config=candidate'), 409, 'ERR_SYS_3001');
    expectError(await c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [80] }), 409, 'ERR_SYS_3001');

    await c.begin();
    expectMessage(await c.post('/api/services', { name: 'web', protocol: 'tcp', ports: [443, 80, '8000-8080'] }), 'service created in candidate');
    expectMessage(await c.post('/api/services', { name: 'dns', protocol: 'udp', ports: ['53-53'] }), 'service created in candidate');
    const web = { name: 'web', protocol: 'tcp', ports: [443, 80, '8000-8080'] };
    const dns = { name: 'dns', protocol: 'udp', ports: [53] };

    // running is unchanged until the commit
    expect((await c.get('/api/services')).body).toEqual({});
    expectError(await c.get('/api/services/web'), 404, 'ERR_NET_1003');
    const cand = await c.get('/api/services?config=candidate');
    expect(cand.status).toBe(200);
    expect(cand.body).toEqual({ dns, web });
    expect(Object.keys(cand.body)).toEqual(['dns', 'web']); // sorted by name
    expect((await c.get('/api/services/web?config=candidate')).body).toEqual(web);

    await c.commit();
    const running = await c.get('/api/services');
    expect(running.body).toEqual({ dns, web });
    expect(Object.keys(running.body)).toEqual(['dns', 'web']);
    expect((await c.get('/api/services/dns')).body).toEqual(dns);
    expectError(await c.get('/api/services/web?config=candidate'), 409, 'ERR_SYS_3001');
  });

  test('partial updates keep the other fields; delete', async () => {
    await c.begin();
    expectMessage(await c.put('/api/services/web', { protocol: 'udp' }), 'service updated in candidate');
    expect((await c.get('/api/services/web?config=candidate')).body).toEqual({ name: 'web', protocol: 'udp', ports: [443, 80, '8000-8080'] });
    expectMessage(await c.put('/api/services/web', { name: 'web', ports: [8443] }), 'service updated in candidate');
    expect((await c.get('/api/services/web?config=candidate')).body).toEqual({ name: 'web', protocol: 'udp', ports: [8443] });
    expectMessage(await c.put('/api/services/web', {}), 'service updated in candidate');
    expect((await c.get('/api/services/web?config=candidate')).body).toEqual({ name: 'web', protocol: 'udp', ports: [8443] });
    // running still has the committed version
    expect((await c.get('/api/services/web')).body).toEqual({ name: 'web', protocol: 'tcp', ports: [443, 80, '8000-8080'] });

    expectMessage(await c.del('/api/services/dns'), 'service deleted from candidate');
    expectError(await c.get('/api/services/dns?config=candidate'), 404, 'ERR_NET_1003');
    expect((await c.get('/api/services/dns')).body).toEqual({ name: 'dns', protocol: 'udp', ports: [53] });
    await c.commit();
    expect((await c.get('/api/services')).body).toEqual({ web: { name: 'web', protocol: 'udp', ports: [8443] } });
  });

  test('hostile names: __proto__ is invalid, constructor is a valid name', async () => {
    await c.begin();
    const proto = expectError(await c.raw('POST', '/api/services', '{"name":"__proto__","protocol":"tcp","ports":[1]}'), 400, 'ERR_NET_1004');
    expect(proto.body.details).toMatch(/name/);
    expectError(await c.post('/api/services', { name: 'any', protocol: 'tcp', ports: [1] }), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/services', { name: 'a b', protocol: 'tcp', ports: [1] }), 400, 'ERR_NET_1004');
    expectError(await c.post('/api/services', { name: 'x'.repeat(65), protocol: 'tcp', ports: [1] }), 400, 'ERR_NET_1004');
    expectMessage(await c.post('/api/services', { name: 'constructor', protocol: 'tcp', ports: [22] }), 'service created in candidate');
    expectMessage(await c.post('/api/services', { name: 'toString', protocol: 'udp', ports: [23] }), 'service created in candidate');
    await c.commit();
    expect((await c.get('/api/services/constructor')).body).toEqual({ name: 'constructor', protocol: 'tcp', ports: [22] });
    expect((await c.get('/api/services/toString')).body).toEqual({ name: 'toString', protocol: 'udp', ports: [23] });
    const list = (await c.get('/api/services')).body;
    expect(list.constructor).toEqual({ name: 'constructor', protocol: 'tcp', ports: [22] });
    expect(Object.keys(list)).toEqual(['constructor', 'toString', 'web']);
    expectError(await c.get('/api/services/__proto__'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/services/hasOwnProperty'), 404, 'ERR_NET_1003');
  });

  test('errors: protocol, ports, shape, duplicates, unknown objects', async () => {
    await c.begin();
    const bad = refusal((body: unknown) => c.post('/api/services', body));
    await bad({ name: 's', protocol: 'icmp', ports: [1] }, 400, 'ERR_NET_1006', /protocol/);
    await bad({ name: 's', protocol: 'TCP', ports: [1] }, 400, 'ERR_NET_1006');
    await bad({ name: 's', protocol: 'tcp', ports: [0] }, 400, 'ERR_NET_1008', /ports\[0\]/);
    await bad({ name: 's', protocol: 'tcp', ports: [22, 65536] }, 400, 'ERR_NET_1008', /ports\[1\]/);
    await bad({ name: 's', protocol: 'tcp', ports: ['2000-1000'] }, 400, 'ERR_NET_1008');
    await bad({ name: 's', protocol: 'tcp', ports: ['1-65536'] }, 400, 'ERR_NET_1008');
    await bad({ name: 's', protocol: 'tcp', ports: ['ssh'] }, 400, 'ERR_NET_1008');
    await bad({ name: 's', protocol: 'tcp', ports: [] }, 400, 'ERR_NET_1008', /ports/);
    await bad({ name: 's', protocol: 'tcp', ports: [80, 80] }, 400, 'ERR_NET_1008', /twice/);
    await bad({ name: 's', protocol: 'tcp', ports: ['1000-2000', 1500] }, 400, 'ERR_NET_1008', /overlap/);
    await bad({ name: 's', protocol: 'tcp', ports: [80.5] }, 400, 'ERR_NET_1004', /ports/);
    await bad({ name: 's', protocol: 'tcp', ports: [{}] }, 400, 'ERR_NET_1004');
    await bad({ name: 's', protocol: 'tcp', ports: 80 }, 400, 'ERR_NET_1004', /ports/);
    await bad({ name: 's', protocol: 6.5, ports: [1] }, 400, 'ERR_NET_1004', /protocol/); // issue 41: 6 is tcp, 6.5 no protocol
    await bad({ name: 5, protocol: 'tcp', ports: [1] }, 400, 'ERR_NET_1004', /name/);
    await bad({ protocol: 'tcp', ports: [1] }, 400, 'ERR_NET_1004', /missing field "name"/);
    await bad({ name: 's', ports: [1] }, 400, 'ERR_NET_1004', /missing field "protocol"/);
    await bad({ name: 's', protocol: 'tcp', ports: [1], port: 2 }, 400, 'ERR_NET_1004', /unknown field "port"/);
    await bad([{ name: 's' }], 400, 'ERR_NET_1004');
    expectError(await c.raw('POST', '/api/services', '{"name":'), 400, 'ERR_NET_1004');
    expectError(await c.raw('POST', '/api/services'), 400, 'ERR_NET_1004');
    await bad({ name: 'web', protocol: 'tcp', ports: [1] }, 409, 'ERR_NET_2006', /web/);

    expectError(await c.put('/api/services/nope', { protocol: 'tcp' }), 404, 'ERR_NET_1003');
    expectError(await c.del('/api/services/nope'), 404, 'ERR_NET_1003');
    expectError(await c.get('/api/services/nope'), 404, 'ERR_NET_1003');
    expectError(await c.put('/api/services/web', { name: 'web2' }), 400, 'ERR_NET_1004');
    expectError(await c.put('/api/services/web', { protocol: 'sctp' }), 400, 'ERR_NET_1006');
    expectError(await c.put('/api/services/web', { ports: [] }), 400, 'ERR_NET_1008');
    expectError(await c.put('/api/services/web', { ports: [70000] }), 400, 'ERR_NET_1008');
    expectError(await c.put('/api/services/web', { colour: 'red' }), 400, 'ERR_NET_1004');
    // nothing of the failed changes reached the candidate
    expect((await c.get('/api/services?config=candidate')).body).toEqual((await c.get('/api/services')).body);
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });

  test('a service in use by a policy or a NAT rule cannot be deleted; details name them', async () => {
    await c.begin();
    expectMessage(await c.post('/api/services', { name: 'ssh', protocol: 'tcp', ports: [22] }), 'service created in candidate');
    const p = await c.post('/api/policies', { action: 'allow', services: ['ssh', 'web'] });
    expect(p.status).toBe(200);
    const id = p.body.id as string;
    const nat = await c.post('/api/nat', { type: 'snat', service: 'ssh', 'out-interface': 'eth0' });
    expect(nat.status).toBe(200);
    const r = expectError(await c.del('/api/services/ssh'), 409, 'ERR_NET_2007');
    expect(r.body.details).toContain(`policy ${id}`);
    expect(r.body.details).toContain(`nat ${nat.body.id}`);
    expectMessage(await c.del(`/api/nat/${nat.body.id}`), 'NAT rule deleted in candidate');
    expect((await c.get('/api/services/ssh?config=candidate')).body).toEqual({ name: 'ssh', protocol: 'tcp', ports: [22] });
    expectMessage(await c.del(`/api/policies/${id}`), 'policy deleted from candidate');
    expectMessage(await c.del('/api/services/ssh'), 'service deleted from candidate');
    expectMessage(await c.post('/api/config/discard'), 'config session discarded');
  });
});
