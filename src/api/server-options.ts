// What the HTTP server is given (src/api/server.ts): its routes, the authenticator, where
// answers are counted, the console, idempotency, the audit of refusals, TLS, proxies, hosts.
import type { Logger } from 'pino';
import type { FwError } from '../errors';
import type { AuthUser } from '../auth/user';
import type { Cidr } from '../config/net';
import type { Req, RouteDef } from './http';
import type { ConsoleSite } from './console-site';
import type { Idempotency } from './idempotency';

export interface Authenticator {
  /**
   * Resolves the bearer header to a user or throws FwError ERR_SEC_5001/5002/5003; `req`: the
   * request it came with (a node credential is checked against it: src/cluster/node-auth.ts).
   */
  authenticate(header: string, req?: { method: string; path: string; query: URLSearchParams }): AuthUser | Promise<AuthUser>;
}

/** Where each answer is counted (src/api/metrics.ts): by route pattern, method and status. */
export interface RequestObserver<S = unknown> {
  seriesOf(route: string, method: string, status: number): S;
  observe(series: S, seconds: number): void;
}

export interface ServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  logger: Logger;
  routes: RouteDef[];
  auth: Authenticator;
  requests?: RequestObserver;
  /** The operator's console, answered for GETs no API route matches. */
  site?: ConsoleSite;
  /** Idempotency-Key handling of changing requests (absent: the header is ignored) */
  idempotency?: Idempotency;
  /** Told of each request refused for its role (403, by the route's permission or by its
   * handler), before the refusal is answered: the audit trail records it (rate-limited there).
   * A promise it gives is awaited (so the trail has the entry once the 403 is seen); it must
   * not throw or reject. */
  onForbidden?: (def: RouteDef, req: Req, refusal: FwError) => Promise<void> | undefined;
  /** TLS: the daemon answers HTTPS only (src/api/tls.ts checked the files at start-up). */
  tls?: TlsFiles;
  /** proxies whose X-Forwarded-For names the client (FW_TRUSTED_PROXIES); none: the header is ignored */
  trustedProxies?: readonly Cidr[];
  /** FW_ALLOWED_HOSTS: the host names (src/host-names.ts) requests may name; absent or empty: any */
  allowedHosts?: readonly string[];
}

/** PEM files as uWS's SSLApp takes them. */
export interface TlsFiles {
  cert_file_name: string;
  key_file_name: string;
  passphrase?: string;
  ssl_ciphers?: string;
}
