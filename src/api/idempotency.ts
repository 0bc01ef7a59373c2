// Safe retries (the IETF httpapi Idempotency-Key draft): a changing request sent with an
// Idempotency-Key header runs once per credential, role and key. Its answer is kept in the
// store for FW_IDEMPOTENCY_TTL, so any instance answers a retry with it (Idempotent-Replayed:
// true); the key with another request is 422 ERR_NET_1012; while the first request still runs,
// 409 ERR_NET_1013. Answers of 5xx (the store or the daemon failed) are not kept: the claim is
// dropped and a retry runs again. The server wraps handlers here only when the header is
// present, so requests without it (every read) pay nothing.
//
// A replay never reaches further than the request it repeats: the server authenticates the
// credential (revoked, expired, its account deleted or reset: 401) and checks the route's
// permission before it gets here, and the scope is the credential itself (a login's JWT or one
// API token, never the user's other credentials) at its role now (a role changed since runs
// the request again, with the handler's own checks). An answer that carries a secret (a new
// API token) is never stored: the key keeps a 409 in its place.
import { createHash } from 'node:crypto';
import { FwError, errorBody, isFwError } from '../errors';
import type { StoredAnswer, Store } from '../store/types';
import type { AuthUser } from '../auth/user';
import type { Reply, Req } from './http';

export interface IdempotencyOptions {
  /** how long an answer is kept (FW_IDEMPOTENCY_TTL) */
  ttlMs: number;
  /** how long a claim holds without an answer (an instance that died mid-request) */
  leaseMs: number;
}

/** The key as sent: a token, or a structured-field string ("..."), 1-255 visible characters. */
function parseKey(header: string): string {
  const key = /^"(.*)"$/.test(header) ? header.slice(1, -1) : header;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new FwError('ERR_NET_1004', 'header "Idempotency-Key": 1-255 visible ASCII characters');
  }
  return key;
}

/**
 * Where a key lives: the credential that sent it (a JWT's jti, an API token's hash) at its role
 * now, under its user's name (which the store's records show).
 */
export function idempotencyScope(user: AuthUser, header: string): string {
  return `${encodeURIComponent(user.username)}:${user.jti}:${user.role}:${parseKey(header)}`;
}

/** What is stored in place of an answer that carried a secret: the refusal a retry gets. */
function secretWithheld(): FwError {
  return new FwError('ERR_NET_2006', 'the request with this Idempotency-Key succeeded and its answer held a secret, shown once and never stored: it is not answered again (list what exists with GET, or make another with a new key)');
}

/** What makes two requests the same: method, path with query, media type and body bytes. */
export function fingerprint(method: string, pathAndQuery: string, contentType: string, body: Buffer | null): string {
  const h = createHash('sha256').update(`${method} ${pathAndQuery}\n${contentType}\n`);
  if (body) h.update(body);
  return h.digest('base64url');
}

function answerOf(r: Reply): StoredAnswer {
  const body = r.json === undefined ? JSON.stringify(r.body) : typeof r.json === 'string' ? r.json : Buffer.from(r.json).toString('utf8');
  return { status: r.status ?? 200, body, headers: { ...r.headers } };
}

function errorAnswer(e: FwError): StoredAnswer {
  return { status: e.status, body: errorBody(e), headers: { ...e.headers } };
}

export class Idempotency {
  constructor(private readonly store: Store, private readonly opts: IdempotencyOptions) {}

  /**
   * Runs `handler` once for this credential's key and request, or answers as the draft says.
   * `secret`: the handler's successful answer carries a secret, stored as a 409 in its place.
   */
  async run(req: Req, header: string, print: string, handler: () => Reply | Promise<Reply>, secret = false): Promise<Reply> {
    const scope = idempotencyScope(req.user, header);
    const held = await this.store.claimIdempotencyKey(scope, print, this.opts.leaseMs);
    if (held) {
      if (held.fingerprint !== print) throw new FwError('ERR_NET_1012', 'this Idempotency-Key was used with another request');
      if (!held.answer) throw new FwError('ERR_NET_1013', 'the first request with this Idempotency-Key is still running', undefined, { 'Retry-After': '1' });
      const a = held.answer;
      return { status: a.status, body: undefined, json: a.body, headers: { ...a.headers, 'Idempotent-Replayed': 'true' } };
    }
    let answer: StoredAnswer;
    let reply: Reply | undefined;
    let failure: unknown;
    try {
      reply = await handler();
      answer = secret && (reply.status ?? 200) < 300 ? errorAnswer(secretWithheld()) : answerOf(reply);
    } catch (e) {
      if (!isFwError(e) || e.status >= 500) {
        await this.store.releaseIdempotencyKey(scope, print).catch(() => undefined);
        throw e;
      }
      failure = e;
      answer = errorAnswer(e);
    }
    try {
      await this.store.saveIdempotentAnswer(scope, print, answer, this.opts.ttlMs);
    } catch (e) {
      reply?.release?.();
      throw e;
    }
    if (reply) return reply;
    throw failure;
  }
}
