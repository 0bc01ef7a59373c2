// The request and reply shapes every route handler sees; nothing here depends on uWS.
import type { TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { parseJsonText } from '../config/document-text';
import type { PermissionNeed } from '../auth/roles';
import type { AuthUser } from '../auth/user';
import type { ObjectChange } from '../config/changes';

// where authentication meets the API: the user type lives in src/auth (floors one-way)
export type { AuthUser };

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export interface Req {
  id: string; // request id (X-Request-Id)
  method: string; // upper case
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** accept and contentType are read only on routes whose document says `yaml` ("" elsewhere) */
  headers: {
    authorization: string;
    ifNoneMatch: string;
    accept: string;
    contentType: string;
    /** the headers a route lists in `requestHeaders`, by their lower-case names ("" when absent) */
    more?: Record<string, string>;
  };
  /** The client's address on routes without a token (login) or that may go without one
   * (metrics); "" on the others. */
  ip: string;
  /** Parsed JSON body; undefined when the request had none (or on a body: 'raw' route). */
  body: unknown;
  /** The body's bytes on a body: 'raw' route (null when there was none); reused memory,
   * valid until the handler's reply is answered. */
  raw?: Buffer | null;
  /** Set on authenticated routes (not on an anonymous request to a route that allows one). */
  user: AuthUser;
  log: Logger;
}

export interface Reply {
  status?: number; // default 200
  /** A value to serialize, or an already serialized JSON string (cached lists) or UTF-8 bytes
   * (batch eval answers: 2 MB are not re-encoded on the way out). */
  body: unknown;
  json?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Called once the answer has been handed to uWS (or dropped: the client went away): json's
   * memory may be reused after (pooled batch answers). For a stream: called only when the
   * stream never starts (the client went away first). */
  release?: () => void;
  /**
   * A streamed answer (Server-Sent Events, a long list: list-reply.ts): the server writes the status and `headers` (which
   * name the Content-Type), then hands the open stream to this function; `body` is unused.
   */
  stream?: (out: StreamSink) => void;
}

/**
 * An answer written over time. Writes never block: text the client is not reading yet is
 * queued, and a client that falls too far behind is disconnected (it may resume).
 */
export interface StreamSink {
  /** Sends text or bytes (or queues them behind earlier ones); false once the stream is closed. */
  write(text: string | Uint8Array): boolean;
  /** Resolves once what was written has gone to the socket (a bulk writer's backpressure). */
  writable(): Promise<void>;
  /** Ends the answer. */
  end(): void;
  /** Closes the connection without completing the answer (it could not be finished). */
  cut(): void;
  /** Called once when the stream ends: the client went away, end(), or the server stops. */
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

export type Handler = (req: Req) => Promise<Reply> | Reply;

interface CommonOptions {
  /** 'none': any body is ignored; 'json': a JSON body is parsed when present; 'raw': the
   * handler gets the bytes (req.raw) and parses them itself (parseJsonBody is the 'json'
   * parse). Default 'json'. */
  body?: 'none' | 'json' | 'raw';
  /** A larger body limit for this route (bytes), e.g. eval batches. */
  maxBody?: number;
  /** This route's body limit (bytes) whatever FW_MAX_BODY says: a small fixed bound where
   * anyone may send (login). */
  bodyLimit?: number;
  /** Request headers (lower-case names) the handler reads, in req.headers.more. */
  requestHeaders?: readonly string[];
  /**
   * Its answer carries a secret shown once (a new API token's): never stored for an
   * Idempotency-Key. A retry with the key gets 409 ERR_NET_2006 instead (src/api/idempotency.ts).
   */
  answersSecret?: boolean;
  /**
   * Its answers carry accounts, API tokens, the audit trail, a whole configuration or the
   * caller's identity: `Cache-Control: no-store`. Every other route that needs a token
   * answers `private, no-cache` (no shared cache keeps it; a browser revalidates by ETag).
   */
  noStore?: boolean;
}

/** A route anyone may call: no token is read, no role checked (login, health, the document). */
interface PublicOptions extends CommonOptions {
  auth: false;
  permission?: undefined;
}

/** A route that needs a bearer token (JWT or API token) of a role holding `permission`. */
interface ProtectedOptions extends CommonOptions {
  auth?: true;
  /** What the caller's role must hold (src/auth/roles.ts); checked by the server after
   * authentication and before the body is parsed or the handler runs (403 ERR_SEC_5008),
   * listed in the OpenAPI document (x-roles). */
  permission: PermissionNeed;
  /** Requests this accepts are answered without a token (req.user unset): /metrics from a
   * FW_METRICS address. It sees req.ip. */
  anonymous?: (req: Req) => boolean;
}

export type RouteOptions = PublicOptions | ProtectedOptions;

/** A query parameter of a route, as the OpenAPI document shows it. */
export interface QueryDoc {
  schema: TSchema;
  description: string;
}

/**
 * What the OpenAPI document says of a route (src/api/openapi.ts). Every route has one, so the
 * document lists every path; the schemas are the ones the handlers validate with.
 */
export interface RouteDoc {
  summary: string;
  /** the group in the document: "addresses", "config", "auth", ... */
  tag: string;
  /** the 200 answer's body */
  response: TSchema;
  /** the answer's media type; default application/json */
  contentType?: string;
  /** the request body; absent when the route takes none */
  body?: TSchema;
  /** the body may be left out (POST /api/config/commit) */
  bodyOptional?: boolean;
  query?: Record<string, QueryDoc>;
  /** error statuses beyond those the route's options imply (see openapi.ts) */
  errors?: number[];
  /** reads of the running version: ETag on the answer, 304 on If-None-Match */
  etag?: boolean;
  /** the answer (GET) or the body (PUT) may also be application/yaml (export and load) */
  yaml?: boolean;
  /** answers other than 200 with a body of their own (not the error body): /readyz's 503 */
  otherAnswers?: Record<number, { description: string; schema: TSchema }>;
}

/**
 * A route that changes one object of the candidate: the change a request makes, and its
 * success message. POST /api/config/batch runs the same changes with the same checks.
 */
export interface ObjectChangeRoute {
  build(params: Record<string, string>, body: unknown): ObjectChange;
  message: string;
}

export type RouteDef = RouteOptions & {
  method: Method;
  pattern: string; // "/api/addresses/:name"
  handler: Handler;
  doc: RouteDoc;
  change?: ObjectChangeRoute;
};

/** The headers of an answer that carries a credential (a login's token, an API token's secret): no cache keeps it. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'Cache-Control': 'no-store' });

/** A success answer of a changing operation: a JSON object of string values. */
export function message(text: string, extra: Record<string, string> = {}): Reply {
  return { body: { message: text, ...extra } };
}

/** A request body as JSON: undefined when empty or blank, ERR_NET_1004 when malformed, nested
 * too deep, or with a string that is not UTF-8 text or holds a NUL (src/config/document-text.ts). */
export function parseJsonBody(raw: Buffer): unknown {
  return parseJsonText(raw);
}
