// The uWebSockets.js front: reads the body under a size cap, routes, authenticates, runs the
// handler and writes the answer. Every failure becomes the catalogued error body; nothing a
// client sends can crash the process. uWS rules kept here: onAborted before any await, copy
// request data before going async, copy onData chunks, cork writes made after an await.
import uWS from 'uWebSockets.js';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { FwError, isFwError, ERRORS } from '../errors';
import { Router } from './router';
import { parseJsonBody, type AuthUser, type Reply, type Req, type RouteDef } from './http';

export interface Authenticator {
  /** Resolves the bearer header to a user or throws FwError ERR_SEC_5001/5002/5003. */
  authenticate(header: string): AuthUser | Promise<AuthUser>;
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
}

const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 304: '304 Not Modified', 400: '400 Bad Request', 401: '401 Unauthorized', 404: '404 Not Found',
  405: '405 Method Not Allowed', 409: '409 Conflict', 413: '413 Payload Too Large',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const ID_PREFIX = randomBytes(3).toString('hex');

export class HttpServer {
  private readonly router = new Router();
  private listenSocket: uWS.us_listen_socket | null = null;
  private app: uWS.TemplatedApp | null = null;
  private inFlight = 0;
  private idCounter = 0;
  private drainWaiters: Array<() => void> = [];
  /** metric series by route (null: no route matched) and status, looked up once each */
  private readonly series = new Map<RouteDef | null, Map<number, unknown>>();
  port = 0;

  constructor(private readonly opts: ServerOptions) {
    for (const r of opts.routes) this.router.add(r);
  }

  async listen(): Promise<number> {
    const app = uWS.App();
    app.any('/*', (res, req) => this.onRequest(res, req));
    this.app = app;
    await new Promise<void>((resolve, reject) => {
      app.listen(this.opts.host, this.opts.port, (sock) => {
        if (!sock) return reject(new Error(`cannot listen on ${this.opts.host}:${this.opts.port}`));
        this.listenSocket = sock;
        this.port = uWS.us_socket_local_port(sock);
        resolve();
      });
    });
    return this.port;
  }

  /** Requests received (their body may still be arriving) and not yet answered. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Stops accepting connections, then waits (bounded) for requests in flight. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((r) => this.drainWaiters.push(r)),
        new Promise<void>((r) => setTimeout(r, timeoutMs).unref()),
      ]);
    }
    // close() exists at run time in this build but is missing from its typings; it ends
    // the idle keep-alive connections so the event loop can finish
    // one turn of the event loop: uWS sends the answers just corked before sockets are closed
    await new Promise((r) => setImmediate(r));
    (this.app as unknown as { close?: () => void } | null)?.close?.();
    this.app = null;
  }

  private onRequest(res: uWS.HttpResponse, uReq: uWS.HttpRequest): void {
    const started = process.hrtime.bigint();
    const state = { aborted: false, done: false, reading: false, counted: false };
    res.onAborted(() => {
      state.aborted = true;
      if (state.reading) finish(); // the body will never complete: the handler never runs
    });
    // copy everything from uReq now: it is invalid after this function returns
    const method = uReq.getMethod().toUpperCase();
    const path = uReq.getUrl();
    const query = uReq.getQuery() ?? '';
    const headers = {
      authorization: uReq.getHeader('authorization'),
      contentType: uReq.getHeader('content-type'),
      ifNoneMatch: uReq.getHeader('if-none-match'),
    };
    const givenId = uReq.getHeader('x-request-id');
    const contentLength = uReq.getHeader('content-length');
    const hasBody = (contentLength !== '' && contentLength !== '0') || uReq.getHeader('transfer-encoding') !== '';
    const id = REQUEST_ID.test(givenId) ? givenId : `${ID_PREFIX}-${(++this.idCounter).toString(36)}`;
    const ip = Buffer.from(res.getRemoteAddressAsText()).toString();
    const log = this.opts.logger;
    const finish = () => {
      if (!state.counted) return;
      state.counted = false;
      if (--this.inFlight === 0) for (const w of this.drainWaiters.splice(0)) w();
    };

    let routeDef: RouteDef | null = null;
    const send = (status: number, json: string | Uint8Array, extra: Record<string, string> = {}) => {
      if (state.aborted || state.done) return;
      state.done = true;
      res.cork(() => {
        res.writeStatus(STATUS_TEXT[status] ?? String(status));
        if (extra['Content-Type'] === undefined) res.writeHeader('Content-Type', 'application/json');
        res.writeHeader('X-Request-Id', id);
        for (const k in extra) res.writeHeader(k, extra[k]);
        res.end(json);
      });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      this.count(routeDef, method, status, ms / 1000);
      log.info({ reqId: id, method, path, status, ms: Math.round(ms * 1000) / 1000 }, 'request');
    };
    const sendError = (e: unknown) => {
      const err = toFwError(e, log, id);
      const headers: Record<string, string> = { ...err.headers };
      if (err.status === 401) headers['WWW-Authenticate'] = 'Bearer';
      send(err.status, JSON.stringify({ code: err.code, message: err.message, details: err.details }), headers);
    };

    const match = this.router.match(method, path);
    if (match.kind !== 'route') {
      if (hasBody) res.onData(() => undefined); // drain; the answer does not depend on it
      if (match.kind === 'not-found') return sendError(new FwError('ERR_NET_1011', `${method} ${path}`));
      return sendError(new FwError('ERR_NET_1009', `${method} is not allowed on ${path}`, undefined, { Allow: match.allow.join(', ') }));
    }
    const def = match.def;
    routeDef = def;
    const limit = Math.max(def.maxBody ?? 0, this.opts.maxBodyBytes);
    if (hasBody && Number(contentLength) > limit) {
      return sendError(new FwError('ERR_NET_1010', `body is over ${limit} bytes`));
    }

    this.inFlight++;
    state.counted = true;
    const run = (raw: Buffer | null) => {
      state.reading = false;
      const req: Req = {
        id, method, path, params: match.params, query: new URLSearchParams(query), headers, ip,
        body: undefined, user: undefined as unknown as AuthUser, log,
      };
      this.handle(def, req, raw).then(
        (reply) => {
          const json = reply.json ?? JSON.stringify(reply.body);
          send(reply.status ?? 200, json, reply.headers);
        },
        sendError,
      ).finally(finish);
    };

    if (!hasBody) return run(null);
    state.reading = true;
    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (state.done) return;
      size += chunk.byteLength;
      if (size > limit) {
        state.reading = false;
        finish();
        sendError(new FwError('ERR_NET_1010', `body is over ${limit} bytes`));
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0))); // uWS reuses the chunk's memory
      // memory grows with what arrives (never with what Content-Length announces: a client
      // could announce megabytes on many connections and send nothing); one chunk is not copied again
      if (isLast) run(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
  }

  /** Counts an answer in the request metrics. */
  private count(def: RouteDef | null, method: string, status: number, seconds: number): void {
    const obs = this.opts.requests;
    if (!obs) return;
    if (!def) return obs.observe(obs.seriesOf('unmatched', KNOWN_METHODS.has(method) ? method : 'OTHER', status), seconds);
    let byStatus = this.series.get(def);
    if (!byStatus) this.series.set(def, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (s === undefined) {
      // the route's own pattern and method: bounded label values whatever the client sends
      s = obs.seriesOf(def.pattern, def.method, status);
      byStatus.set(status, s);
    }
    obs.observe(s, seconds);
  }

  private async handle(def: RouteDef, req: Req, raw: Buffer | null): Promise<Reply> {
    if (def.auth !== false) req.user = await this.opts.auth.authenticate(req.headers.authorization);
    if (def.body === 'raw') req.raw = raw;
    else if (def.body !== 'none' && raw && raw.length > 0) req.body = parseJsonBody(raw);
    return def.handler(req);
  }
}

function toFwError(e: unknown, log: Logger, reqId: string): FwError {
  if (isFwError(e)) {
    if (e.status >= 500) log.error({ reqId, code: e.code, details: e.details }, 'request failed');
    return e;
  }
  log.error({ reqId, err: e }, 'unexpected error');
  return new FwError('ERR_SYS_4001', '', ERRORS.ERR_SYS_4001.message);
}
