// Keys derived from FW_JWT_SECRET, one per purpose, and the MACs made with them. A cluster
// trusts nothing it reads from Redis for what the secret alone can prove: account and API
// token records (src/store/redis/record-seal.ts), node registrations and requests between
// instances (src/cluster/node-auth.ts). HKDF (RFC 5869) with a label per purpose, so a MAC
// made for one purpose never passes for another, and the signing secret itself is never
// used as a MAC key.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** What a derived key is for: its HKDF label. A new purpose gets a new label. */
export type KeyPurpose = 'redis-records' | 'node-registration' | 'node-requests';

const SALT = 'fwd keyed-mac v1';

export function deriveKey(secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, `fwd/${purpose}`, 32));
}

/**
 * HMAC-SHA256 of `parts` (base64url), each part prefixed by its length, so that no two
 * different lists of parts are the same input ("a" + "bc" is not "ab" + "c").
 */
export function keyedMac(key: Buffer, ...parts: string[]): string {
  const h = createHmac('sha256', key);
  for (const p of parts) {
    const b = Buffer.from(p, 'utf8');
    h.update(`${b.length}:`);
    h.update(b);
  }
  return h.digest('base64url');
}

/** Compares a MAC received with the one expected in constant time. */
export function macMatches(expected: string, received: unknown): boolean {
  if (typeof received !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}
