// The one error catalogue (contract section 6): each code has its HTTP status and a message.
// Everything that fails throws FwError with a code from here; src/api turns it into the
// response body {code, message, details}. test/unit/errors.test.ts checks that every code is
// documented in docs/api.md.

export const ERRORS = {
  ERR_NET_1001: { status: 400, message: 'invalid IP address or CIDR' },
  ERR_NET_1002: { status: 400, message: 'invalid or missing id in the path' },
  ERR_NET_1003: { status: 404, message: 'object not found' },
  ERR_NET_1004: { status: 400, message: 'invalid request' },
  ERR_NET_1005: { status: 400, message: 'invalid value' },
  ERR_NET_1006: { status: 400, message: 'invalid protocol' },
  ERR_NET_1008: { status: 400, message: 'number out of range' },
  ERR_NET_1009: { status: 405, message: 'method not allowed' },
  ERR_NET_1010: { status: 413, message: 'payload too large' },
  ERR_NET_1011: { status: 404, message: 'no such endpoint' },
  ERR_NET_1012: { status: 422, message: 'idempotency key reused with another request' },
  ERR_NET_1013: { status: 409, message: 'a request with this idempotency key is still running' },
  ERR_NET_1014: { status: 415, message: 'unsupported media type' },
  ERR_NET_1015: { status: 421, message: 'host name not served' },
  ERR_NET_2003: { status: 400, message: 'reference to an unknown entity' },
  ERR_NET_2005: { status: 400, message: 'VLAN parent interface unknown' },
  ERR_NET_2006: { status: 409, message: 'already exists' },
  ERR_NET_2007: { status: 409, message: 'in use by other objects' },
  ERR_NET_2008: { status: 409, message: 'VLAN id already used on that parent' },
  ERR_SEC_1001: { status: 400, message: 'invalid NAT type' },
  ERR_SEC_1002: { status: 400, message: 'invalid policy action' },
  ERR_SEC_5001: { status: 401, message: 'missing authorization token' },
  ERR_SEC_5002: { status: 401, message: 'malformed authorization header' },
  ERR_SEC_5003: { status: 401, message: 'invalid, expired or revoked token' },
  ERR_SEC_5005: { status: 401, message: 'invalid credentials' },
  ERR_SEC_5006: { status: 500, message: 'token generation failed' },
  ERR_SEC_5007: { status: 429, message: 'too many failed logins' },
  ERR_SEC_5008: { status: 403, message: 'forbidden' },
  ERR_SYS_3001: { status: 409, message: 'no active configuration session' },
  ERR_SYS_3002: { status: 409, message: 'configuration session held by another admin' },
  ERR_SYS_3003: { status: 400, message: 'commit validation failed' },
  ERR_SYS_3004: { status: 409, message: 'no commit is waiting for confirmation' },
  ERR_SYS_3005: { status: 409, message: 'this node is not a member of an enabled HA pair' },
  ERR_SYS_4001: { status: 500, message: 'internal error' },
  ERR_SYS_4002: { status: 503, message: 'store unavailable' },
  ERR_SYS_4004: { status: 504, message: 'commit did not finish in time' },
  ERR_SYS_4005: { status: 500, message: 'the data plane could not apply the configuration' },
  ERR_SYS_4006: { status: 503, message: 'write not confirmed by enough replicas' },
  ERR_SYS_4007: { status: 503, message: 'no commit worker is alive' },
  ERR_SYS_4008: { status: 503, message: 'node unreachable' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class FwError extends Error {
  readonly code: ErrorCode;
  readonly details: string;
  readonly status: number;
  /** extra response headers, e.g. Retry-After or Allow */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, details = '', message?: string, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.name = 'FwError';
    this.code = code;
    this.details = details;
    this.status = ERRORS[code].status;
    this.headers = headers;
  }
}

/** The body of an error answer, as the server writes it and an idempotent replay stores it. */
export function errorBody(e: FwError): string {
  return JSON.stringify({ code: e.code, message: e.message, details: e.details });
}

export function isFwError(e: unknown): e is FwError {
  return e instanceof Error && e.name === 'FwError' && typeof (e as FwError).code === 'string';
}

/** Shorthand used by validators: throw a catalogued error. */
export function fail(code: ErrorCode, details = '', message?: string): never {
  throw new FwError(code, details, message);
}
