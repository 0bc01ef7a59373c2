// FW_TLS_CERT / FW_TLS_KEY (/ FW_TLS_KEY_PASSPHRASE): the files the HTTPS listener uses,
// checked with node:crypto before uWS sees them. uWS reports an unreadable or mismatched file
// only as a listener that does not start, or a handshake that fails later; here the daemon
// refuses to start with a message that says which file and what is wrong.
import fs from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { TlsFiles } from './server';

/**
 * The TLS 1.2 cipher suites offered: forward-secret AEAD only (Mozilla's "intermediate" list
 * without DHE). Without it this uWS build also accepts static-RSA and CBC suites (AES128-SHA:
 * tried with openssl s_client). TLS 1.3's suites are all AEAD and not set by this list; TLS 1.0
 * and 1.1 are refused by uSockets itself (protocol version alert).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export interface TlsSettings {
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  tlsKeyPassphrase: string | undefined;
}

function read(file: string, setting: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`${setting}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function privateKey(pem: Buffer, file: string, passphrase: string | undefined): KeyObject {
  const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem.toString('latin1'));
  if (encrypted && !passphrase) throw new Error(`FW_TLS_KEY: ${file} is encrypted: set FW_TLS_KEY_PASSPHRASE`);
  try {
    return createPrivateKey({ key: pem, format: 'pem', passphrase });
  } catch (e) {
    if (encrypted) throw new Error(`FW_TLS_KEY: ${file} does not open with FW_TLS_KEY_PASSPHRASE`);
    throw new Error(`FW_TLS_KEY: ${file} is not a usable PEM private key: ${(e as Error).message}`);
  }
}

/**
 * The TLS files of the settings (undefined: plain HTTP), after checking that both are
 * readable PEM, the key opens with the passphrase, and the certificate is the key's. An
 * expired or not yet valid certificate is served (the management plane must stay reachable to
 * fix it) with a warning in the log.
 */
export function loadTls(s: TlsSettings, log: Logger): TlsFiles | undefined {
  if (!s.tlsCert && !s.tlsKey) return undefined;
  if (!s.tlsCert || !s.tlsKey) throw new Error('TLS needs both FW_TLS_CERT and FW_TLS_KEY');
  const certPem = read(s.tlsCert, 'FW_TLS_CERT');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (e) {
    throw new Error(`FW_TLS_CERT: ${s.tlsCert} is not a PEM certificate: ${(e as Error).message}`);
  }
  const key = privateKey(read(s.tlsKey, 'FW_TLS_KEY'), s.tlsKey, s.tlsKeyPassphrase);
  if (!cert.checkPrivateKey(key)) {
    throw new Error(`FW_TLS_KEY: ${s.tlsKey} is not the private key of the certificate in ${s.tlsCert} (${cert.subject.replace(/\n/g, ', ')})`);
  }
  const now = Date.now();
  if (now > Date.parse(cert.validTo) || now < Date.parse(cert.validFrom)) {
    log.warn({ cert: s.tlsCert, validFrom: cert.validFrom, validTo: cert.validTo }, 'the TLS certificate is not valid now: clients will refuse it');
  }
  const files: TlsFiles = { cert_file_name: s.tlsCert, key_file_name: s.tlsKey, ssl_ciphers: TLS12_CIPHERS };
  if (s.tlsKeyPassphrase) files.passphrase = s.tlsKeyPassphrase;
  return files;
}
