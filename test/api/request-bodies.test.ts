// Issue 25 items 2 and 10, what a body may hold. A YAML document of a million "[" (2 MB)
// blocked the daemon for 15-20 s and then killed it (RegExpCompiler out of memory): now its
// nesting is bounded as the lexer reads it, in the parse thread, and it is a 400 naming the
// line. A large valid YAML document is parsed in that thread while the daemon keeps
// answering. JSON is bounded the same way. Strings with a NUL or that are not UTF-8 text
// (invalid bytes, a lone surrogate) are refused with the field named, in JSON and YAML alike.
import { ok, useDaemon, expectMessage, type Res } from '../helpers/daemon';

const d = useDaemon();

/** A body sent as bytes, labelled `type`. */
async function sendBytes(method: string, path: string, body: Buffer | string, type = 'application/json'): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(d.url + path, { method, body, headers: { Authorization: `Bearer ${d.client.token}`, 'Content-Type': type } });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text) };
}

function expectBadRequest(r: { status: number; body: any }, details: string | RegExp): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: 'ERR_NET_1004' });
  if (typeof details === 'string') expect(r.body.details).toBe(details);
  else expect(r.body.details).toMatch(details);
}

async function changes(): Promise<number> {
  return (await ok(d.client.get('/api/config/session'))).body.changes;
}

beforeEach(async () => {
  await d.client.begin();
});

describe('nesting depth', () => {
  test('a YAML document of a million "[" is a 400 naming the place, and the daemon keeps answering', async () => {
    const bomb = `a: ${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const r = await sendBytes('PUT', '/api/config/candidate', bomb, 'application/yaml');
    expectBadRequest(r, 'the document nests arrays and objects deeper than 64 levels (line 1, column 68)');
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
    expect(await changes()).toBe(0);
  });

  test('YAML nested by block indicators and by indentation is bounded too; 64 levels pass', async () => {
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', `${'- '.repeat(500_000)}x\n`, 'application/yaml'), /deeper than 64 levels \(line 1, column \d+\)$/);
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', `${'? '.repeat(500_000)}x\n`, 'application/yaml'), /deeper than 64 levels/);
    let indented = '';
    for (let i = 0; i < 2000; i++) indented += `${' '.repeat(i)}k:\n`;
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', indented, 'application/yaml'), /deeper than 64 levels \(line 6\d, column \d+\)$/);
    // a document within the bound is parsed (and refused for what it says, not for its depth)
    const deepEnough = `addresses: ${'['.repeat(60)}${']'.repeat(60)}\n`;
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', deepEnough, 'application/yaml'), /^addresses\[0\]: /);
  });

  test('JSON: a million "[" on the load and a deep body on the login are 400 before any parse', async () => {
    const bomb = `{"addresses":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', bomb), 'the document nests arrays and objects deeper than 64 levels (at byte 76)');
    // within the login's own body limit (8 KiB), still far too deep
    const login = await fetch(`${d.url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: `{"username":${'['.repeat(4_000)}` });
    expectBadRequest({ status: login.status, body: await login.json() }, /deeper than 64 levels \(at byte 75\)$/);
    // brackets inside strings are text
    expectMessage(await d.client.post('/api/routes', { destination: '10.9.0.0/16', gateway: '192.168.1.254', description: '['.repeat(200) }), 'route created in candidate');
  });
});

describe('large YAML documents', () => {
  test('20,000 addresses (about 1 MB of YAML) load while /healthz keeps answering', async () => {
    const lines = ['addresses:'];
    for (let i = 0; i < 20_000; i++) lines.push(`  - name: big-${i}`, `    ips: [10.${(i >> 8) & 255}.${i & 255}.1/32]`);
    const yaml = `${lines.join('\n')}\n`;
    // "during the parse": the answers /healthz gave between the parse thread taking the
    // document and giving it back (on the HTTP thread nothing was answered for seconds)
    const pool = d.daemon.daemon.ctx.parsePool;
    const parse = pool.yaml.bind(pool);
    let duringParse = 0;
    let answered = 0;
    pool.yaml = async (body) => {
      const before = answered;
      try {
        return await parse(body);
      } finally {
        duringParse = answered - before;
      }
    };
    try {
      let done = false;
      const poll = (async () => {
        while (!done) {
          const h = await fetch(`${d.url}/healthz`);
          await h.text();
          if (h.status === 200) answered++;
        }
      })();
      const r = await sendBytes('PUT', '/api/config/candidate?mode=merge', yaml, 'application/yaml');
      done = true;
      await poll;
      expect({ status: r.status, details: r.body.details, added: r.body.added?.length }).toEqual({ status: 200, details: undefined, added: 20_000 });
      expect(duringParse).toBeGreaterThan(0);
    } finally {
      pool.yaml = parse;
    }
    expect((await ok(d.client.get('/api/addresses/big-19999?config=candidate'))).body.ips).toEqual([{ ip: [10, 78, 31, 1], mask: [255, 255, 255, 255] }]);
  }, 120_000);

  test('a YAML body over FW_MAX_YAML_BODY is 413, with the way out named', async () => {
    const big = `description: "${'x'.repeat(11 * 1024 * 1024)}"\n`;
    const r = await sendBytes('PUT', '/api/config/candidate', big, 'application/yaml');
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 413, code: 'ERR_NET_1010' });
    expect(r.body.details).toMatch(/FW_MAX_YAML_BODY.*as JSON/);
  });
});

describe('strings must be UTF-8 text without NUL', () => {
  test('invalid UTF-8 bytes in a description: 400 naming the field, nothing created', async () => {
    const head = Buffer.from('{"destination":"10.0.0.0/8","gateway":"192.168.1.254","description":"caf');
    const body = Buffer.concat([head, Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expectBadRequest(await sendBytes('POST', '/api/routes', body), 'field "description": is not valid UTF-8 text');
    for (const bad of [[0xff], [0xed, 0xa0, 0x80] /* an encoded surrogate */, [0xc0, 0xaf] /* overlong "/" */, [0xe2, 0x82]]) {
      const b = Buffer.concat([head, Buffer.from(bad), Buffer.from('"}')]);
      expectBadRequest(await sendBytes('POST', '/api/routes', b), 'field "description": is not valid UTF-8 text');
    }
    expect(await changes()).toBe(0);
  });

  test('NUL and lone surrogates written as escapes, in values and names, at any depth', async () => {
    const cases: Array<[string, string, string]> = [
      ['/api/routes', '{"destination":"10.0.0.0/8","gateway":"192.168.1.254","description":"a\\u0000b"}', 'field "description": contains a NUL character'],
      ['/api/routes', '{"destination":"10.0.0.0/8","gateway":"192.168.1.254","description":"\\ud800x"}', 'field "description": is not valid UTF-8 text'],
      ['/api/routes', '{"destination":"10.0.0.0/8","gateway":"192.168.1.254","description":"x\\udc00"}', 'field "description": is not valid UTF-8 text'],
      ['/api/addresses', '{"name":"nul\\u0000","ips":["10.0.0.1"]}', 'field "name": contains a NUL character'],
      ['/api/addresses', '{"name":"key","ips":["10.0.0.1"],"a\\u0000":1}', 'field "["a\\u0000"]": the name contains a NUL character'],
      ['/api/config/batch', '{"operations":[{"method":"POST","path":"/api/routes","body":{"destination":"10.0.0.0/8","description":"\\u0000"}}]}',
        'field "operations[0].body.description": contains a NUL character'],
      ['/api/config/commit', '{"description":"deploy\\u0000"}', 'field "description": contains a NUL character'],
    ];
    for (const [path, body, details] of cases) expectBadRequest(await sendBytes('POST', path, body), details);
    expect(await changes()).toBe(0);
  });

  test('in YAML: a NUL escape and invalid bytes are refused with the field\'s place', async () => {
    const nul = 'routes:\n  - destination: 10.0.0.0/8\n    gateway: 192.168.1.254\n    description: "a\\0b"\n';
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', nul, 'application/yaml'), 'field "routes[0].description": contains a NUL character');
    const bytes = Buffer.concat([Buffer.from('routes:\n  - destination: 10.0.0.0/8\n    gateway: 192.168.1.254\n    description: caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    expectBadRequest(await sendBytes('PUT', '/api/config/candidate', bytes, 'application/yaml'), 'field "routes[0].description": is not valid UTF-8 text');
    expect(await changes()).toBe(0);
  });

  test('text beyond ASCII is kept as sent: accents, other scripts, emoji (a surrogate pair) and its escape', async () => {
    const description = 'café — 防火墙 🔥 \ufffd';
    const plain = expectMessage(await d.client.post('/api/routes', { destination: '10.1.0.0/16', gateway: '192.168.1.254', description }), 'route created in candidate');
    const escaped = expectMessage(await sendBytes('POST', '/api/routes', '{"destination":"10.2.0.0/16","gateway":"192.168.1.254","description":"\\ud83d\\udd25"}') as Res, 'route created in candidate');
    expect((await ok(d.client.get(`/api/routes/${plain.body.id}?config=candidate`))).body.description).toBe(description);
    expect((await ok(d.client.get(`/api/routes/${escaped.body.id}?config=candidate`))).body.description).toBe('🔥');
  });
});
