// The uWebSockets.js front: reads the body under a size cap, routes, authenticates, runs the
// handler and writes the answer. Every failure becomes the catalogued error body; nothing a
// client sends can crash the process. uWS rules kept here: onAborted before any await, copy
// request data before going async, copy onData chunks, cork writes made after an await.
import uWS from 'uWebSockets.js';
import { randomBytes } from 'node:crypto';
import { FwError, errorBody, isFwError } from '../errors';
import { NO_PARAMS, Router } from './router';
import { parseJsonBody, type Reply, type Req, type RouteDef } from './http';
import { ResponseStream } from './stream';
import { forbidden, type AuthUser } from '../auth/user';
import { allows } from '../auth/roles';
import type { SiteFile } from './console-site';
import { fingerprint } from './idempotency';
import { clientAddress } from './client-address';
import { bodyType } from './media-type';
import { hostName } from '../host-names';
import { portProblem } from './port-check';
import { OUT, STATUS_TEXT, cacheControlOf, headerName, toFwError, write, writeSecurityHeaders } from './answer-writer';
import { KEY, appendBody, bodyMemory } from './request-reading';
import type { ServerOptions } from './server-options';

export type { Authenticator, RequestObserver, ServerOptions, TlsFiles } from './server-options';

const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

/** What an Idempotency-Key request adds to its fingerprint: the path with its query, the media type. */
interface IdemRequest {
  key: string;
  target: string;
  contentType: string;
}

/** One request being answered. */
interface Answering {
  res: uWS.HttpResponse;
  id: string;
  method: string;
  path: string;
  started: number; // performance.now()
  def: RouteDef | null; // null: no route matched
  done: boolean; // answered
  aborted: boolean; // the client went away
  tracked?: boolean; // counted in flight
  stream?: ResponseStream; // a streamed answer being written
  closeConnection?: boolean; // what follows on the connection cannot be trusted: close it after the answer
}

/**
 * A Content-Length header whose value differs from the first one's (which uWS frames the body
 * by), or null. A proxy in front that framed the body by the other would see another request
 * than the daemon does (request smuggling, RFC 9112 6.3). Read only for requests with a
 * length: the GETs of the hot path never walk their headers.
 */
function otherContentLength(uReq: uWS.HttpRequest, first: string): string | null {
  let other: string | null = null;
  uReq.forEach((name, value) => {
    if (other === null && name === 'content-length' && value !== first) other = value;
  });
  return other;
}

/** The client went away: nothing more is written, a stream stops. */
function markAborted(a: Answering): void {
  a.aborted = true;
  a.stream?.aborted();
}

/** uWS.ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT: the enum exists in the typings only, not in the native module */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1 as uWS.ListenOptions;
/** listen(host, port, options, cb): the native module takes it (uWebSockets.js addon), the typings list options only without a host */
interface ListenWithOptions {
  listen(host: string, port: number, options: uWS.ListenOptions, cb: (sock: uWS.us_listen_socket | false) => void): void;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** The query of a request without one (handlers only read it). */
const NO_QUERY = new URLSearchParams();
const ID_PREFIX = randomBytes(3).toString('hex');

export class HttpServer {
  private readonly router = new Router();
  private listenSocket: uWS.us_listen_socket | null = null;
  private app: uWS.TemplatedApp | null = null;
  private inFlight = 0;
  private idCounter = 0;
  private drainWaiters: Array<() => void> = [];
  /** streamed answers still open: ended when the server closes */
  private readonly streams = new Set<ResponseStream>();
  /** metric series by route (null: no route matched) and status, looked up once each */
  private readonly series = new Map<RouteDef | null, Map<number, unknown>>();
  port = 0;
  /** HSTS on every answer: the daemon answers HTTPS only */
  private readonly tls: boolean;
  /** FW_ALLOWED_HOSTS; null: every Host is served */
  private readonly allowedHosts: ReadonlySet<string> | null;

  constructor(private readonly opts: ServerOptions) {
    for (const r of opts.routes) this.router.add(r);
    this.tls = opts.tls !== undefined;
    this.allowedHosts = opts.allowedHosts?.length ? new Set(opts.allowedHosts) : null;
  }

  async listen(): Promise<number> {
    // no "uWebSockets: 20" header on the answers (it tells a scanner the server and its major
    // version): the prebuilt module writes it unless its loop is "silent", which its
    // undocumented _cfg sets (uWebSockets.js addon.cpp; the C++ build flag
    // UWS_HTTPRESPONSE_NO_WRITEMARK does the same); per thread, so set before every listen
    (uWS as unknown as { _cfg?: (key: string) => void })._cfg?.('silent');
    // TLS 1.2 is uSockets' floor (it sets the context's minimum protocol version itself; a
    // TLS 1.1 client is refused: test/api/tls.test.ts), TLS 1.3 negotiated when offered;
    // the TLS 1.2 suites are tls.ts's TLS12_CIPHERS
    const app = this.opts.tls ? uWS.SSLApp(this.opts.tls) : uWS.App();
    // one uWS handler per method: the method is known without asking uWS for it
    app.get('/*', (res, req) => this.onRequest(res, req, 'GET'));
    app.post('/*', (res, req) => this.onRequest(res, req, 'POST'));
    app.put('/*', (res, req) => this.onRequest(res, req, 'PUT'));
    app.del('/*', (res, req) => this.onRequest(res, req, 'DELETE'));
    app.patch('/*', (res, req) => this.onRequest(res, req, 'PATCH'));
    app.head('/*', (res, req) => this.onRequest(res, req, 'HEAD'));
    app.options('/*', (res, req) => this.onRequest(res, req, 'OPTIONS'));
    app.any('/*', (res, req) => this.onRequest(res, req, req.getMethod().toUpperCase()));
    this.app = app;
    await new Promise<void>((resolve, reject) => {
      // exclusive: without it uSockets sets SO_REUSEPORT, and a second daemon on this port
      // would share it and take some of the connections (issue 38; src/api/port-check.ts)
      (app as unknown as ListenWithOptions).listen(this.opts.host, this.opts.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (sock) => {
        if (!sock) {
          void portProblem(this.opts.host, this.opts.port).then((problem) => reject(new Error(problem ?? `cannot listen on ${this.opts.host}:${this.opts.port}`)));
          return;
        }
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
    for (const s of [...this.streams]) s.end(); // event streams never finish by themselves
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

  private onRequest(res: uWS.HttpResponse, uReq: uWS.HttpRequest, method: string): void {
    const started = performance.now();
    // copy everything from uReq now: it is invalid after this function returns. Each read is
    // a call into uWS that makes a new string: only what the request needs is read
    const path = uReq.getUrl();
    const givenId = uReq.getHeader(KEY.requestId);
    const id = givenId !== '' && REQUEST_ID.test(givenId) ? givenId : `${ID_PREFIX}-${(++this.idCounter).toString(36)}`;
    // a GET's or HEAD's body is never looked at: uWS skips it (tested), nothing is buffered
    const bodiless = method === 'GET' || method === 'HEAD';
    const contentLength = bodiless ? '' : uReq.getHeader(KEY.contentLength);
    const hasBody = contentLength !== '' ? contentLength !== '0' : !bodiless && uReq.getHeader(KEY.transferEncoding) !== '';
    if (contentLength !== '') {
      const other = otherContentLength(uReq, contentLength);
      if (other !== null) {
        res.onData(() => undefined); // the answer does not depend on it; the connection closes
        const a: Answering = { res, id, method, path, started, def: null, done: false, aborted: false, closeConnection: true };
        return this.answerError(a, new FwError('ERR_NET_1004', `two different Content-Length headers (${contentLength.slice(0, 20)} and ${other.slice(0, 20)}): the body's length is ambiguous`));
      }
    }
    if (this.allowedHosts !== null) {
      const host = uReq.getHeader(KEY.host);
      if (!this.allowedHosts.has(hostName(host))) {
        if (hasBody) res.onData(() => undefined); // drain; the answer does not depend on it
        const a: Answering = { res, id, method, path, started, def: null, done: false, aborted: false };
        return this.answerError(a, new FwError('ERR_NET_1015', `Host "${host.slice(0, 100)}" is not one of FW_ALLOWED_HOSTS`));
      }
    }
    let def = this.router.exactRoute(method, path);
    let params = NO_PARAMS;
    if (def === undefined) {
      const match = this.router.match(method, path);
      if (match.kind !== 'route') {
        const a: Answering = { res, id, method, path, started, def: null, done: false, aborted: false };
        if (hasBody) res.onData(() => undefined); // drain; the answer does not depend on it
        if (match.kind === 'not-found') {
          const file = bodiless ? this.opts.site?.lookup(path, uReq.getHeader(KEY.accept)) : undefined;
          if (file) return this.answerFile(a, file, method === 'HEAD', uReq.getHeader(KEY.acceptEncoding));
          return this.answerError(a, new FwError('ERR_NET_1011', `${method} ${path}`));
        }
        return this.answerError(a, new FwError('ERR_NET_1009', `${method} is not allowed on ${path}`, undefined, { Allow: match.allow.join(', ') }));
      }
      def = match.def;
      params = match.params;
    }
    const a: Answering = { res, id, method, path, started, def, done: false, aborted: false };
    const limit = def.bodyLimit ?? Math.max(def.maxBody ?? 0, this.opts.maxBodyBytes);
    if (hasBody && Number(contentLength) > limit) {
      return this.answerError(a, new FwError('ERR_NET_1010', `body is over ${limit} bytes`));
    }
    // the query only where the route reads one (its document lists it)
    const query = def.doc.query ? uReq.getQuery() : '';
    // If-None-Match only where an ETag is answered
    const headers: Req['headers'] = {
      authorization: uReq.getHeader(KEY.authorization),
      ifNoneMatch: def.doc.etag ? uReq.getHeader(KEY.ifNoneMatch) : '',
      accept: def.doc.yaml ? uReq.getHeader(KEY.accept) : '',
      // read where a body is: its media type is checked (415) before it is parsed
      contentType: def.doc.yaml || (hasBody && def.body !== 'none') ? uReq.getHeader(KEY.contentType) : '',
    };
    if (def.requestHeaders) {
      headers.more = {};
      for (const h of def.requestHeaders) headers.more[h] = uReq.getHeader(h);
    }
    // a changing request with an Idempotency-Key: what identifies the request besides its body
    const idemKey = bodiless || !this.opts.idempotency ? '' : uReq.getHeader(KEY.idempotencyKey);
    const idem: IdemRequest | null = idemKey === '' ? null : { key: idemKey, target: `${path}?${uReq.getQuery() ?? ''}`, contentType: uReq.getHeader(KEY.contentType) };
    const req: Req = {
      id, method, path, params, query: query ? new URLSearchParams(query) : NO_QUERY, headers,
      // the client's address is text made from bytes: only the routes without a token (or
      // that may go without one: /metrics) use it
      ip: def.auth === false || def.anonymous ? this.clientOf(res, uReq) : '',
      body: undefined, user: undefined as unknown as AuthUser, log: this.opts.logger,
    };

    if (!hasBody) {
      // the common case: a handler that answers at once (a cached token, a read of the
      // running version) is answered within this call, with no promise and nothing to track
      let out: Reply | Promise<Reply>;
      try {
        out = this.handle(def, req, null, idem);
      } catch (e) {
        return this.answerError(a, e);
      }
      if (!(out instanceof Promise)) return this.answerReply(a, out);
      this.track(a, () => undefined);
      out.then((r) => this.answerReply(a, r), (e: unknown) => this.answerError(a, e)).finally(() => this.untrack(a));
      return;
    }

    // a body: read it (under the limit), then run the handler
    let reading = true;
    this.track(a, () => {
      if (reading) this.untrack(a); // the body will never complete: the handler never runs
    });
    let memory: ArrayBuffer | null = null; // the body so far, pooled
    let size = 0;
    res.onData((chunk, isLast) => {
      if (a.done) return;
      if (size + chunk.byteLength > limit) {
        reading = false;
        this.untrack(a);
        this.answerError(a, new FwError('ERR_NET_1010', `body is over ${limit} bytes`));
        return;
      }
      memory = appendBody(memory, size, chunk); // a copy: uWS reuses the chunk's memory
      size += chunk.byteLength;
      if (!isLast) return;
      reading = false;
      const raw = Buffer.from(memory, 0, size);
      // the body's memory goes back to the pool once the reply is answered (req.raw's promise)
      const finish = () => {
        this.untrack(a);
        bodyMemory.release(raw);
      };
      let out: Reply | Promise<Reply>;
      try {
        out = this.handle(def, req, raw, idem);
      } catch (e) {
        this.answerError(a, e);
        return finish();
      }
      if (!(out instanceof Promise)) {
        this.answerReply(a, out);
        return finish();
      }
      out.then((r) => this.answerReply(a, r), (e: unknown) => this.answerError(a, e)).finally(finish);
    });
  }

  /** The client's address (src/api/client-address.ts): the peer's, or the one a trusted proxy names. */
  private clientOf(res: uWS.HttpResponse, uReq: uWS.HttpRequest): string {
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const proxies = this.opts.trustedProxies;
    if (!proxies?.length) return peer;
    // every X-Forwarded-For line, in order (haproxy adds a line of its own after the
    // client's, nginx appends to the client's line): getHeader would answer the first only
    const lines: string[] = [];
    uReq.forEach((key, value) => {
      if (key === 'x-forwarded-for') lines.push(value);
    });
    return clientAddress(peer, lines.join(','), proxies);
  }

  /** A request answered later: counted in flight (close waits for it), and its abort noted. */
  private track(a: Answering, onAbort: () => void): void {
    this.inFlight++;
    a.tracked = true;
    a.res.onAborted(() => {
      markAborted(a);
      onAbort();
    });
  }

  private untrack(a: Answering): void {
    if (!a.tracked) return;
    a.tracked = false;
    if (--this.inFlight === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  private answerReply(a: Answering, r: Reply): void {
    if (r.stream) return this.answerStream(a, r);
    this.answer(a, r.status ?? 200, r.json ?? JSON.stringify(r.body), r.headers);
    r.release?.(); // uWS copied what it did not send at once
  }

  /** A console file from memory: its gzip copy when the client takes gzip. */
  private answerFile(a: Answering, file: SiteFile, head: boolean, acceptEncoding: string): void {
    a.done = true;
    const zipped = file.gzip !== null && /\bgzip\b/.test(acceptEncoding);
    const res = a.res;
    for (const k in file.headers) res.writeHeader(headerName(k), file.headers[k]);
    writeSecurityHeaders(res, this.tls);
    if (zipped) res.writeHeader(headerName('Content-Encoding'), 'gzip');
    res.writeHeader(OUT.requestId, a.id);
    const body = zipped ? file.gzip! : file.body;
    // a HEAD tells the length of what a GET would send, and sends nothing
    if (head) {
      res.writeHeader(headerName('Content-Length'), String(body.length));
      res.endWithoutBody();
    } else res.end(body);
    this.count(null, a.method, 200, (performance.now() - a.started) / 1000);
  }

  /**
   * Starts a streamed answer: status and headers now, then the route's writer. Counted and
   * logged like any answer when it starts; not in flight (close() ends it instead of waiting).
   */
  private answerStream(a: Answering, r: Reply): void {
    if (a.aborted || a.done) return r.release?.();
    a.done = true;
    // inside uWS's request call (not tracked) the abort handler can still be attached now
    if (!a.tracked) a.res.onAborted(() => markAborted(a));
    const stream = new ResponseStream(a.res, () => this.streams.delete(stream));
    a.stream = stream;
    this.streams.add(stream);
    a.res.cork(() => {
      a.res.writeStatus(STATUS_TEXT[r.status ?? 200] ?? String(r.status));
      a.res.writeHeader(OUT.requestId, a.id);
      writeSecurityHeaders(a.res, this.tls);
      const cache = cacheControlOf(a.def);
      if (cache && r.headers?.['Cache-Control'] === undefined) a.res.writeHeader(headerName('Cache-Control'), cache);
      for (const k in r.headers) a.res.writeHeader(headerName(k), r.headers[k]);
      r.stream!(stream);
    });
    const ms = performance.now() - a.started;
    this.count(a.def, a.method, r.status ?? 200, ms / 1000);
    this.opts.logger.info({ reqId: a.id, method: a.method, path: a.path, status: r.status ?? 200 }, 'stream opened');
    stream.onClose(() => this.opts.logger.info({ reqId: a.id, path: a.path, seconds: Math.round((performance.now() - a.started) / 1000) }, 'stream closed'));
  }

  private answerError(a: Answering, e: unknown): void {
    const err = toFwError(e, this.opts.logger, a.id);
    const headers: Record<string, string> = { ...err.headers };
    if (err.status === 401) headers['WWW-Authenticate'] = 'Bearer';
    this.answer(a, err.status, errorBody(err), headers);
  }

  /** Writes the answer (once; never to an aborted request), counts and logs it. */
  private answer(a: Answering, status: number, json: string | Uint8Array, extra?: Record<string, string>): void {
    if (a.aborted || a.done) return;
    a.done = true;
    // inside uWS's request handler writes are corked already; after an await, cork makes
    // status, headers and body one write
    const cache = cacheControlOf(a.def);
    const close = a.closeConnection === true;
    if (a.tracked) a.res.cork(() => write(a.res, a.id, status, json, this.tls, extra, cache, close));
    else write(a.res, a.id, status, json, this.tls, extra, cache, close);
    const ms = performance.now() - a.started;
    this.count(a.def, a.method, status, ms / 1000);
    // reads that succeed are the bulk of the traffic and change nothing: their lines are
    // debug (metrics count them); changes, refusals and errors are always logged
    const quiet = status < 400 && (a.method === 'GET' || a.method === 'HEAD');
    if (!quiet) this.opts.logger.info({ reqId: a.id, method: a.method, path: a.path, status, ms: Math.round(ms * 1000) / 1000 }, 'request');
    // asked at each answer, not once: a reload (SIGHUP) may change the level
    else if (this.opts.logger.isLevelEnabled('debug')) this.opts.logger.debug({ reqId: a.id, method: a.method, path: a.path, status, ms: Math.round(ms * 1000) / 1000 }, 'request');
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

  /** Authenticates, authorizes, parses the body and runs the handler; synchronous as far as
   * they are. A refusal for the caller's role (403), wherever decided, is told to onForbidden. */
  private handle(def: RouteDef, req: Req, raw: Buffer | null, idem: IdemRequest | null): Reply | Promise<Reply> {
    try {
      const out = this.authorizeAndRun(def, req, raw, idem);
      return out instanceof Promise ? out.catch((e: unknown) => this.refused(def, req, e)) : out;
    } catch (e) {
      return this.refused(def, req, e);
    }
  }

  /** Rethrows `e`, once onForbidden has recorded it when it is a 403 of an authenticated user. */
  private refused(def: RouteDef, req: Req, e: unknown): never | Promise<never> {
    if (!isFwError(e) || e.status !== 403 || !req.user || !this.opts.onForbidden) throw e;
    const recorded = this.opts.onForbidden(def, req, e);
    if (!recorded) throw e;
    return recorded.then(() => { throw e; });
  }

  private authorizeAndRun(def: RouteDef, req: Req, raw: Buffer | null, idem: IdemRequest | null): Reply | Promise<Reply> {
    if (def.auth !== false && !def.anonymous?.(req)) {
      refuseTokenInUrl(req);
      const user = this.opts.auth.authenticate(req.headers.authorization, req);
      if (user instanceof Promise) return user.then((u) => this.authorized(def, req, u, raw, idem));
      return this.authorized(def, req, user, raw, idem);
    }
    return this.run(def, req, raw);
  }

  /**
   * The one place a route's permission is enforced: before the body is parsed or the handler
   * runs, so a refused request learns nothing of the route beyond that it exists.
   */
  private authorized(def: RouteDef & { auth?: true }, req: Req, user: AuthUser, raw: Buffer | null, idem: IdemRequest | null): Reply | Promise<Reply> {
    req.user = user;
    if (!allows(user.role, def.permission)) throw forbidden(def.permission, user);
    return this.runOnce(def, req, raw, idem);
  }


  /** Runs an authenticated request, once per Idempotency-Key when it has one. */
  private runOnce(def: RouteDef, req: Req, raw: Buffer | null, idem: IdemRequest | null): Reply | Promise<Reply> {
    if (!idem || !this.opts.idempotency) return this.run(def, req, raw);
    const print = fingerprint(req.method, idem.target, idem.contentType, raw);
    return this.opts.idempotency.run(req, idem.key, print, () => this.run(def, req, raw), def.answersSecret === true);
  }

  private run(def: RouteDef, req: Req, raw: Buffer | null): Reply | Promise<Reply> {
    // after authorization, as the parse: a caller without the role learns nothing more
    if (def.body !== 'none' && raw && raw.length > 0) bodyType(req.headers.contentType, def.doc.yaml === true);
    if (def.body === 'raw') req.raw = raw;
    else if (def.body !== 'none' && raw && raw.length > 0) req.body = parseJsonBody(raw);
    return def.handler(req);
  }
}

/**
 * A token in the query (GET /api/events once took ?access_token=) is refused before it is
 * looked at: URLs land in proxy logs and browser histories. Read on the routes that read a
 * query; the others never parse it.
 */
function refuseTokenInUrl(req: Req): void {
  if (!req.query.has('access_token')) return;
  throw new FwError('ERR_NET_1004', 'query "access_token": a token is never accepted in a URL (proxies and browsers log URLs); send it as the header Authorization: Bearer <token>. GET /api/events too: read it with fetch() and the header, as the console and fwctl do (docs/api.md, Events)');
}
