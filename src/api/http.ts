// The request and reply shapes every route handler sees; nothing here depends on uWS.
import type { Logger } from 'pino';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export interface AuthUser {
  username: string;
  role: 'admin';
  jti: string;
  exp: number; // unix seconds
}

export interface Req {
  id: string; // request id (X-Request-Id)
  method: string; // upper case
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: { authorization: string; contentType: string };
  ip: string;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** Set on authenticated routes. */
  user: AuthUser;
  log: Logger;
}

export interface Reply {
  status?: number; // default 200
  /** A value to serialize, or an already serialized JSON string (cached lists). */
  body: unknown;
  json?: string;
  headers?: Record<string, string>;
}

export type Handler = (req: Req) => Promise<Reply> | Reply;

export interface RouteOptions {
  /** Default true: a valid bearer token is required. */
  auth?: boolean;
  /** 'none': any body is ignored; 'json': a JSON body is parsed when present. Default 'json'. */
  body?: 'none' | 'json';
  /** A larger body limit for this route (bytes), e.g. eval batches. */
  maxBody?: number;
}

export interface RouteDef extends RouteOptions {
  method: Method;
  pattern: string; // "/api/addresses/:name"
  handler: Handler;
}

/** A success answer of a changing operation: a JSON object of string values. */
export function message(text: string, extra: Record<string, string> = {}): Reply {
  return { body: { message: text, ...extra } };
}
