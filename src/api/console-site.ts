// The operator's console as the daemon serves it: the files esbuild wrote to dist/console
// (console/build.mjs), read once at start-up into memory with their headers and a gzip copy
// precomputed, so that a request for one costs a map lookup and a write. The server asks here
// only for GETs and HEADs that no API route matched (src/api/server.ts): the API path is
// untouched by it.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface SiteFile {
  body: Buffer;
  /** the gzip copy; null when it is not smaller */
  gzip: Buffer | null;
  headers: Record<string, string>;
}

/** What a browser is told of every console file: a strict policy, no framing (no sniffing: the server says it on every answer). */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  // no inline script or style; the API on the same origin only; nothing framed, no plugins
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Names esbuild gave a content hash (app-3F2K7XQ1.js): cached for a year, never revalidated. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

export class ConsoleSite {
  private readonly files = new Map<string, SiteFile>();

  /** The console in `dir` (dist/console); an empty site when it was not built. */
  constructor(dir: string) {
    if (!fs.existsSync(path.join(dir, 'index.html'))) return;
    for (const file of walk(dir)) {
      const rel = '/' + path.relative(dir, file).split(path.sep).join('/');
      this.files.set(rel, siteFile(rel, fs.readFileSync(file)));
    }
  }

  get built(): boolean {
    return this.files.size > 0;
  }

  /**
   * The file for a GET of `urlPath`: the file itself, or index.html for a console route (a
   * path outside /api that a browser asks for as a page); undefined otherwise (the caller
   * answers its JSON 404).
   */
  lookup(urlPath: string, accept: string): SiteFile | undefined {
    if (urlPath.startsWith('/assets/')) return this.files.get(urlPath);
    // the page only to a browser: a program asking for / or a typo'd path gets the API's 404
    if (urlPath === '/api' || urlPath.startsWith('/api/') || !accept.includes('text/html')) return undefined;
    return this.files.get('/index.html');
  }
}

/** The console's files as the daemon finds them: dist/console beside dist/src. */
export function defaultConsoleDir(): string {
  // this file runs as dist/src/api/console-site.js
  return path.resolve(__dirname, '..', '..', 'console');
}

function siteFile(rel: string, body: Buffer): SiteFile {
  const type = TYPES[path.extname(rel)] ?? 'application/octet-stream';
  const zipped = type.startsWith('text/') || type === 'image/svg+xml' || type === 'application/json' ? gzipSync(body, { level: 9 }) : null;
  return {
    body,
    gzip: zipped && zipped.length < body.length ? zipped : null,
    headers: {
      ...CONSOLE_SECURITY_HEADERS,
      'Content-Type': type,
      // index.html names the current hashed files: always asked again; those never change
      'Cache-Control': HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
      Vary: 'Accept-Encoding',
    },
  };
}

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}
