// How answers are written to uWS: the status line, JSON's content type, the request id, the
// security headers of every answer, extra headers by name; and what any thrown value becomes
// (a catalogued error; anything else is logged and answered as ERR_SYS_4001).
import type uWS from 'uWebSockets.js';
import type { Logger } from 'pino';
import { FwError, ERRORS, isFwError } from '../errors';

export const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 304: '304 Not Modified', 400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found',
  405: '405 Method Not Allowed', 409: '409 Conflict', 413: '413 Payload Too Large', 415: '415 Unsupported Media Type',
  421: '421 Misdirected Request', 422: '422 Unprocessable Content',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

export const OUT = { contentType: Buffer.from('Content-Type'), json: Buffer.from('application/json'), requestId: Buffer.from('X-Request-Id') };
/** The security headers of every answer (writeSecurityHeaders) */
const SECURITY = {
  nosniff: Buffer.from('X-Content-Type-Options'), nosniffValue: Buffer.from('nosniff'),
  hsts: Buffer.from('Strict-Transport-Security'), hstsValue: Buffer.from('max-age=31536000'),
};

export function write(res: uWS.HttpResponse, id: string, status: number, json: string | Uint8Array, tls: boolean, extra?: Record<string, string>, cache?: Buffer | null, closeConnection = false): void {
  if (status !== 200) res.writeStatus(STATUS_TEXT[status] ?? String(status));
  // a 304 has no body, so no media type (RFC 9110 15.4.5; the OpenAPI document lists none)
  if (extra?.['Content-Type'] === undefined && status !== 304) res.writeHeader(OUT.contentType, OUT.json);
  res.writeHeader(OUT.requestId, id);
  writeSecurityHeaders(res, tls);
  if (cache && extra?.['Cache-Control'] === undefined) res.writeHeader(CACHE.name, cache);
  if (extra) for (const k in extra) res.writeHeader(headerName(k), extra[k]);
  res.end(json, closeConnection);
}

const CACHE = { name: Buffer.from('Cache-Control'), noStore: Buffer.from('no-store'), revalidate: Buffer.from('private, no-cache') };

/**
 * The Cache-Control of a route's answers (issue 38): none for public routes (health, the
 * OpenAPI document: their own headers say it); no-store where the answer carries accounts,
 * tokens, the audit trail or a whole configuration; else private, no-cache, so that no shared
 * cache stores an authenticated answer and a browser revalidates it by its ETag.
 */
export function cacheControlOf(def: { auth?: boolean; noStore?: boolean } | null): Buffer | null {
  if (def === null || def.auth === false) return null;
  return def.noStore ? CACHE.noStore : CACHE.revalidate;
}

/**
 * On every answer (API, errors, console files, streams): nosniff, so that no browser reads an
 * answer as another type than it says (a JSON error echoing input, read as HTML); over TLS
 * HSTS, so that a browser that reached the daemon over HTTPS never tries plain HTTP for a year.
 */
export function writeSecurityHeaders(res: uWS.HttpResponse, tls: boolean): void {
  res.writeHeader(SECURITY.nosniff, SECURITY.nosniffValue);
  if (tls) res.writeHeader(SECURITY.hsts, SECURITY.hstsValue);
}

/** A header name as bytes, made once per name (names come from the code, so they are few). */
export function headerName(name: string): Buffer {
  let b = headerNames.get(name);
  if (b === undefined) headerNames.set(name, (b = Buffer.from(name)));
  return b;
}
const headerNames = new Map<string, Buffer>();

export function toFwError(e: unknown, log: Logger, reqId: string): FwError {
  if (isFwError(e)) {
    if (e.status >= 500) log.error({ reqId, code: e.code, details: e.details }, 'request failed');
    return e;
  }
  log.error({ reqId, err: e }, 'unexpected error');
  return new FwError('ERR_SYS_4001', '', ERRORS.ERR_SYS_4001.message);
}
