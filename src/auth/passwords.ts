// Salted scrypt password hashes: "scrypt$N$r$p$salt$hash" (base64). Hashing runs on the
// libuv thread pool, so a login never blocks the event loop.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { PASSWORD_MIN_GUESSES_LOG10, strengthOf, weakProblem } from './strength';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[5], 'base64');
  const key = await derive(password, Buffer.from(parts[4], 'base64'), n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** The password rule of every account (POST and PUT /api/users, FW_ADMIN_PASSWORD). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

/**
 * What is wrong with `password` under the rule, or null when it passes: 12 to 1024
 * characters, and hard to guess by zxcvbn's estimate (src/auth/strength.ts), so that
 * "aaaaaaaaaaaa" and "123456789012" are refused however long they are.
 */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return `a password is ${PASSWORD_MIN} to ${PASSWORD_MAX} characters, got ${password.length}`;
  const weak = weakProblem(strengthOf(password), PASSWORD_MIN_GUESSES_LOG10);
  return weak === null ? null : `a password must be hard to guess; this one is ${weak}`;
}

/** A hash to compare against when the user does not exist, so both cases cost the same. */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  return dummy;
}

/** A random password of 20 characters for the first admin when none is given. */
export function randomPassword(): string {
  return randomBytes(15).toString('base64url');
}
