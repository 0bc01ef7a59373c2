// Certificates made for a test (openssl, in the test's temporary folder) and an HTTPS client
// that trusts exactly that certificate.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { requirePackages, TLS_PACKAGES } from './packages';

export interface TestCert {
  cert: string; // file paths
  key: string;
  pem: string; // the certificate's text: the client's CA
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

/** A self-signed certificate (for 127.0.0.1 and localhost unless `san` says otherwise);
 * `passphrase` encrypts the key. */
export function makeCert(dir: string, name: string, passphrase?: string, san = 'DNS:localhost,IP:127.0.0.1'): TestCert {
  requirePackages(TLS_PACKAGES, 'the TLS tests');
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  const enc = passphrase ? ['-passout', `pass:${passphrase}`] : ['-noenc'];
  execFileSync('openssl', [
    'req', '-x509', ...EC_KEY, ...enc, '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`,
  ], { stdio: 'ignore' });
  return { cert, key, pem: fs.readFileSync(cert, 'utf8') };
}

/** A certificate named by `san`, issued by the CA `ca` (a makeCert). */
export function issueCert(dir: string, name: string, ca: TestCert, san: string): TestCert {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  const ext = path.join(dir, `${name}.ext`);
  fs.writeFileSync(ext, `subjectAltName=${san}\n`);
  execFileSync('openssl', ['req', ...EC_KEY, '-noenc', '-keyout', key, '-out', csr, '-subj', `/CN=${name}`], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-days', '2', '-out', cert, '-extfile', ext], { stdio: 'ignore' });
  return { cert, key, pem: fs.readFileSync(cert, 'utf8') };
}

export interface HttpsAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  protocol: string; // the negotiated TLS version
}

/** One HTTPS request to the daemon, trusting only `ca`. */
export async function httpsJson(port: number, ca: string, method: string, p: string, token?: string, body?: unknown): Promise<HttpsAnswer> {
  const { status, body: answer, protocol } = await httpsAnswer(port, ca, method, p, token, body);
  return { status, body: answer, protocol };
}

/** httpsJson's request, with the answer's headers too. */
export function httpsAnswer(port: number, ca: string, method: string, p: string, token?: string, body?: unknown): Promise<HttpsAnswer & { headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const req = https.request({ host: '127.0.0.1', port, method, path: p, ca, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => { text += b.toString(); });
      res.on('end', () => resolve({
        status: res.statusCode!, body: text ? JSON.parse(text) : undefined,
        protocol: (res.socket as import('node:tls').TLSSocket).getProtocol() ?? '', headers: res.headers,
      }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
