// FW_TLS_CERT / FW_TLS_KEY: the API over HTTPS only, TLS 1.2 or 1.3 with forward-secret AEAD
// suites, and a clear refusal to start when the files are unreadable, not PEM, locked by
// another passphrase or not each other's. Certificates are made here with openssl.
import net from 'node:net';
import tls from 'node:tls';
import { ADMIN, ADMIN_PASSWORD, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { httpsAnswer, httpsJson, makeCert, type TestCert } from '../helpers/tls';

const dir = tempDir('fwd-tls-');
let cert: TestCert;
let d: TestDaemon;

beforeAll(async () => {
  cert = makeCert(dir, 'server');
  d = await startTestDaemon({ FW_TLS_CERT: cert.cert, FW_TLS_KEY: cert.key });
});
afterAll(async () => {
  await d?.close();
});

/** The outcome of a TLS handshake with these client options: the protocol, or the error code. */
function handshake(options: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port: d.daemon.port, ca: cert.pem, servername: 'localhost', ...options }, () => {
      resolve(s.getProtocol() ?? '');
      s.end();
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

test('login, an API token and /api/me over HTTPS', async () => {
  const port = d.daemon.port;
  const login = await httpsJson(port, cert.pem, 'POST', '/api/login', undefined, { username: ADMIN, password: ADMIN_PASSWORD });
  expect(login.status).toBe(200);
  const made = await httpsJson(port, cert.pem, 'POST', '/api/tokens', login.body.token, { name: 'over-tls', role: 'viewer' });
  expect(made.status).toBe(200);
  const me = await httpsJson(port, cert.pem, 'GET', '/api/me', made.body.token);
  expect({ status: me.status, body: me.body }).toEqual({ status: 200, body: { username: ADMIN, role: 'viewer', expires: null, token: 'over-tls' } });
  expect(['TLSv1.2', 'TLSv1.3']).toContain(me.protocol);
});

test('over TLS every answer tells browsers to keep to HTTPS (HSTS); plain HTTP answers do not', async () => {
  const port = d.daemon.port;
  const answers = [
    await httpsAnswer(port, cert.pem, 'GET', '/healthz'),
    await httpsAnswer(port, cert.pem, 'GET', '/api/me'), // 401
    await httpsAnswer(port, cert.pem, 'POST', '/api/login', undefined, { username: ADMIN, password: ADMIN_PASSWORD }),
  ];
  expect(answers.map((a) => a.status)).toEqual([200, 401, 200]);
  for (const a of answers) {
    expect(a.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(a.headers['x-content-type-options']).toBe('nosniff');
  }
  const plain = await startTestDaemon();
  try {
    expect((await fetch(`${plain.url}/healthz`)).headers.get('strict-transport-security')).toBeNull();
  } finally {
    await plain.close();
  }
});

test('TLS 1.3 and 1.2 (forward-secret AEAD) are accepted; TLS 1.1, 1.0 and weak 1.2 suites are refused', async () => {
  expect(await handshake({})).toBe('TLSv1.3');
  expect(await handshake({ maxVersion: 'TLSv1.2' })).toBe('TLSv1.2');
  // the server's refusal (its protocol version alert), not the client's own
  const old = { minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;
  expect(await handshake({ ...old, maxVersion: 'TLSv1.1' })).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
  expect(await handshake({ ...old, maxVersion: 'TLSv1' })).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
  expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'AES128-SHA:AES256-GCM-SHA384@SECLEVEL=0' })).toBe('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE');
});

test('plain HTTP on the TLS port gets no HTTP answer', async () => {
  const answer = await new Promise<string>((resolve) => {
    const s = net.connect(d.daemon.port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    let text = '';
    s.on('data', (b: Buffer) => { text += b.toString('latin1'); });
    s.on('close', () => resolve(text));
    s.on('error', () => resolve(text));
  });
  expect(answer).not.toMatch(/^HTTP\//);
});

describe('start-up refuses files it cannot use, saying which and why', () => {
  const start = (env: Record<string, string>) => startTestDaemon(env).then(async (t) => {
    await t.close();
    return 'started';
  }, (e: Error) => e.message);

  test('a missing certificate, a key alone, a file that is not PEM', async () => {
    expect(await start({ FW_TLS_CERT: `${dir}/nothing.crt`, FW_TLS_KEY: cert.key })).toMatch(/^FW_TLS_CERT: cannot read .*nothing\.crt: ENOENT/);
    expect(await start({ FW_TLS_KEY: cert.key })).toMatch(/both FW_TLS_CERT and FW_TLS_KEY/);
    expect(await start({ FW_TLS_CERT: cert.key, FW_TLS_KEY: cert.key })).toMatch(/^FW_TLS_CERT: .* is not a PEM certificate/);
    expect(await start({ FW_TLS_CERT: cert.cert, FW_TLS_KEY: cert.cert })).toMatch(/^FW_TLS_KEY: .* is not a usable PEM private key/);
  });

  test('a key that is not the certificate\'s', async () => {
    const other = makeCert(dir, 'other');
    expect(await start({ FW_TLS_CERT: cert.cert, FW_TLS_KEY: other.key })).toMatch(/^FW_TLS_KEY: .*other\.key is not the private key of the certificate in .*server\.crt/);
  });

  test('an encrypted key: served with its passphrase, refused without or with another', async () => {
    const locked = makeCert(dir, 'locked', 'the-key-passphrase');
    expect(await start({ FW_TLS_CERT: locked.cert, FW_TLS_KEY: locked.key })).toMatch(/FW_TLS_KEY_PASSPHRASE/);
    expect(await start({ FW_TLS_CERT: locked.cert, FW_TLS_KEY: locked.key, FW_TLS_KEY_PASSPHRASE: 'wrong' })).toMatch(/FW_TLS_KEY_PASSPHRASE/);
    const t = await startTestDaemon({ FW_TLS_CERT: locked.cert, FW_TLS_KEY: locked.key, FW_TLS_KEY_PASSPHRASE: 'the-key-passphrase' });
    try {
      const health = await httpsJson(t.daemon.port, locked.pem, 'GET', '/healthz');
      expect(health).toEqual({ status: 200, body: { status: 'ok' }, protocol: 'TLSv1.3' });
    } finally {
      await t.close();
    }
  });
});
