// How fast a changed external list (issue 40) is in force: the daemon (a child process, as
// `npm start` runs it, no data plane) fetches a list of N host entries every second from an
// HTTP server of this process; the server switches to a list with one more entry and notes
// when it served it; this process polls POST /api/eval for the new entry every 10 ms. The
// figure is the time from the served body to the first eval that answers with the new entry:
// the fetch, the parse, the kept state written, the overlay compiled by the first eval.
//   npm run build && node dist/bench/lists.js [--entries 1000,10000,100000] [--rounds 3]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { closeAgent, login, request, startInstance } from './http-load';
import { median } from './stats';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

/** N distinct hosts of 10.0.0.0/8 (10.a.b.c), one a line. */
function hosts(n: number, from = 0): string[] {
  return Array.from({ length: n }, (_x, i) => {
    const k = i + from + 1;
    return `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
  });
}

async function must(port: number, token: string, method: string, p: string, body?: unknown): Promise<string> {
  const r = await request(port, method, p, token, body === undefined ? undefined : JSON.stringify(body));
  if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
  return r.text;
}

async function main(): Promise<void> {
  const sizes = arg('entries', '1000,10000,100000').split(',').map(Number);
  const rounds = Number(arg('rounds', '3'));
  let body = '';
  let servedAt = 0;
  let served = '';
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
    if (body !== served) {
      served = body;
      servedAt = performance.now();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-lists-'));
  const max = Math.max(...sizes) + rounds + 1;
  const inst = await startInstance({ FW_DATA_DIR: dir, FW_LIST_REFRESH_MIN: '1', FW_LIST_MAX_ENTRIES: String(max), FW_DYNAMIC_MAX_ENTRIES: String(max) });
  try {
    const token = await login(inst.port);
    await must(inst.port, token, 'POST', '/api/config/begin');
    await must(inst.port, token, 'PUT', '/api/interfaces/eth0', { ip: '203.0.113.2/24' });
    await must(inst.port, token, 'PUT', '/api/interfaces/eth1', { ip: '192.168.0.1/24' });
    await must(inst.port, token, 'POST', '/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth0'] });
    await must(inst.port, token, 'POST', '/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] });
    await must(inst.port, token, 'POST', '/api/routes', { destination: 'default', gateway: '203.0.113.1', interface: 'eth0' });
    await must(inst.port, token, 'POST', '/api/addresses', { name: 'feed', url, refresh: 1 });
    await must(inst.port, token, 'POST', '/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'feed' });
    await must(inst.port, token, 'POST', '/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' });
    await must(inst.port, token, 'POST', '/api/config/commit');
    const evalOf = async (dst: string) => JSON.parse(await must(inst.port, token, 'POST', '/api/eval', { 'src-ip': '192.168.0.5', 'dst-ip': dst, protocol: 'tcp', 'dst-port': 443 })) as { action: string };
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} cores`);
    console.log('entries  body KB  served -> eval in force, ms (median of rounds; each round)');
    for (const n of sizes) {
      const base = hosts(n);
      const times: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const extra = hosts(1, n + r)[0];
        body = [...base, extra].join('\n');
        const t0 = performance.now();
        // the next fetch serves it (within a second); then the first eval with the entry in force
        for (;;) {
          if (servedAt > t0 && (await evalOf(extra)).action === 'deny') break;
          if (performance.now() - t0 > 60_000) throw new Error(`no change in force within 60 s (${n} entries)`);
          await new Promise((res) => setTimeout(res, 10));
        }
        times.push(performance.now() - servedAt);
      }
      console.log(`${String(n).padStart(7)}  ${String(Math.round(body.length / 1024)).padStart(7)}  ${median(times).toFixed(0).padStart(6)}  (${times.map((t) => t.toFixed(0)).join(', ')})`);
    }
  } finally {
    inst.proc.kill('SIGTERM');
    closeAgent();
    server.closeAllConnections();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
