// fwctl's HTTP client: the daemon's JSON API with the stored (or FWCTL_TOKEN) bearer token.
// Every failure becomes a CliError with the exit code a script can rely on (EXIT).
import type { ErrorCode } from '../errors';

/** fwctl's exit codes (docs/automation.md). */
export const EXIT = {
  ok: 0,
  /** the daemon refused the request, or the operation failed */
  failed: 1,
  /** plan: the file differs from the running configuration */
  changes: 2,
  /** not logged in, or the token is refused (401) */
  auth: 3,
  /** conflict with the daemon's state (409): a session held by another user, nothing to confirm */
  conflict: 4,
  /** the daemon cannot be reached */
  unreachable: 5,
  /** apply: the user answered no */
  aborted: 10,
  /** bad command line */
  usage: 64,
} as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number, readonly code?: string, readonly status?: number) {
    super(message);
  }

  /** The error as `--json` prints it on standard output. */
  toJSON(): { error: { message: string; exit_code: number; code?: string; status?: number } } {
    return { error: { message: this.message, exit_code: this.exitCode, code: this.code, status: this.status } };
  }
}

/** The daemon's error body. */
interface ErrorBody {
  code: ErrorCode;
  message: string;
  details: string;
}

function exitCodeOf(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 409) return EXIT.conflict;
  return EXIT.failed;
}

export interface RequestOptions {
  body?: unknown;
  /** a body sent as is (a configuration file), with its Content-Type */
  raw?: { text: string; contentType: string };
  accept?: string;
  headers?: Record<string, string>;
}

export class ApiClient {
  constructor(readonly url: string, readonly token: string | null) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  /** Sends a request; answers the parsed JSON (or text for other media types); throws CliError. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const headers = this.headers(opts.headers);
    let body: string | undefined;
    if (opts.raw) {
      body = opts.raw.text;
      headers['Content-Type'] = opts.raw.contentType;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] = 'application/json';
    }
    if (opts.accept) headers.Accept = opts.accept;
    const r = await this.fetch(path, { method, headers, body });
    const text = await r.text();
    if (r.status >= 400) throw this.refusal(method, path, r.status, text);
    const type = r.headers.get('content-type') ?? '';
    return (type.startsWith('application/json') ? JSON.parse(text) : text) as T;
  }

  /** The raw answer of a streaming GET (GET /api/events); errors thrown as CliError. */
  async stream(path: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    const r = await this.fetch(path, { method: 'GET', headers: this.headers(headers), signal });
    if (r.status >= 400) throw this.refusal('GET', path, r.status, await r.text());
    return r;
  }

  /** An error answer as a CliError; "missing token" without one says how to log in. */
  private refusal(method: string, path: string, status: number, text: string): CliError {
    const e = apiError(method, path, status, text);
    if (e.code !== 'ERR_SEC_5001' || this.token) return e;
    return new CliError(`not logged in to ${this.url}: run fwctl login ${this.url} (or set FWCTL_TOKEN)`, EXIT.auth, e.code, status);
  }

  private async fetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.url + path, init);
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, EXIT.unreachable);
    }
  }
}

function apiError(method: string, path: string, status: number, text: string): CliError {
  let body: ErrorBody | null = null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // not the daemon's error body (a proxy's page): shown as text
  }
  const what = body?.code ? `${body.code} ${body.message}${body.details ? `: ${body.details}` : ''}` : text.slice(0, 200);
  return new CliError(`${method} ${path}: ${status} ${what}`, exitCodeOf(status), body?.code, status);
}
