// The console as the daemon serves it: index.html at / and every console route a browser asks for as a page,
// hashed files cached for a year, gzip when accepted, a strict CSP on every file, HEAD, and
// the API's own 404 unchanged for /api paths and for non-page requests.
import zlib from 'node:zlib';
import { useDaemon } from '../helpers/daemon';

const d = useDaemon();

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const r = await fetch(d.url + path, { method, headers });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, text: bytes.toString('utf8') };
}

function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe('the console site', () => {
  test('/ is index.html, not cached, with a strict policy and the hashed script and style', async () => {
    const r = await get('/', { Accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.text).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|style="/); // no inline script or style
    const assets = assetsOf(r.text);
    expect(assets).toHaveLength(2);
    for (const a of assets) expect(a).toMatch(/^\/assets\/app-[A-Z0-9]{8}\.(js|css)$/);
  });

  test('hashed files are immutable for a year, gzipped when the client takes gzip', async () => {
    const index = await get('/', { Accept: 'text/html' });
    for (const a of assetsOf(index.text)) {
      const plain = await get(a, { 'Accept-Encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(plain.headers.get('content-type')).toMatch(a.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const zipped = await fetch(d.url + a, { headers: { 'Accept-Encoding': 'gzip' } });
      // fetch unzips; the header says what was sent
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(Buffer.from(await zipped.arrayBuffer()).equals(plain.bytes)).toBe(true);
      const head = await get(a, { 'Accept-Encoding': 'identity' }, 'HEAD');
      expect({ status: head.status, length: head.headers.get('content-length'), body: head.bytes.length })
        .toEqual({ status: 200, length: String(plain.bytes.length), body: 0 });
    }
  });

  test('a console route asked as a page is index.html; the same path asked as data, and /api paths, are the API 404', async () => {
    const page = await get('/policies', { Accept: 'text/html,application/xhtml+xml' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="app"></div>');
    const data = await get('/policies', { Accept: 'application/json' });
    expect({ status: data.status, code: JSON.parse(data.text).code }).toEqual({ status: 404, code: 'ERR_NET_1011' });
    const api = await get('/api/nothing-here', { Accept: 'text/html' });
    expect({ status: api.status, code: JSON.parse(api.text).code }).toEqual({ status: 404, code: 'ERR_NET_1011' });
    const post = await fetch(d.url + '/policies', { method: 'POST', headers: { Accept: 'text/html' } });
    expect(post.status).toBe(404);
    const root = await get('/', { Accept: 'application/json' });
    expect({ status: root.status, code: JSON.parse(root.text).code }).toEqual({ status: 404, code: 'ERR_NET_1011' });
    const missing = await get('/assets/app-AAAAAAAA.js', { Accept: 'text/html' });
    expect(missing.status).toBe(404);
  });

  test('the script and style are under 150 KB gzipped together', async () => {
    const index = await get('/', { Accept: 'text/html' });
    let total = 0;
    for (const a of assetsOf(index.text)) total += zlib.gzipSync((await get(a)).bytes, { level: 9 }).length;
    expect(total).toBeLessThan(150 * 1024);
  });
});
