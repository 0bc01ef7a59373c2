// Dynamic address sets (issue 40 item 7), two figures against baselines of the same run:
//  1. entries added a second through the API: a feeder token POSTs /api/dynamic-sets/{name}/entries
//     in requests of 100, 1,000 and 10,000 entries until the set holds --entries; the goal is
//     10,000 entries a second;
//  2. the packet path of a policy naming a set of --entries entries against a policy naming a
//     static address group of the same entries (addresses hold at most 1,024 prefixes): POST /api/eval/batch of 10,000 packets through each,
//     timed in rounds (the compiled matchers; the kernel holds both as nft sets).
// The daemon is a child process as `npm start` runs it, embedded store, no data plane.
//   npm run build && node dist/bench/dynamic-sets.js [--entries 100000] [--rounds 5] [--sizes 100,1000,10000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeAgent, login, request, startInstance } from './http-load';
import { median } from './stats';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

/** The k-th host of 10.0.0.0/8, k from 1. */
const host = (k: number) => `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;

async function must(port: number, token: string, method: string, p: string, body?: unknown): Promise<string> {
  const r = await request(port, method, p, token, body === undefined ? undefined : JSON.stringify(body));
  if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text;
}

async function configure(port: number, token: string, n: number): Promise<void> {
  const t0 = performance.now();
  await must(port, token, 'POST', '/api/config/begin');
  await must(port, token, 'PUT', '/api/interfaces/eth0', { ip: '203.0.113.2/24' });
  await must(port, token, 'PUT', '/api/interfaces/eth1', { ip: '192.168.0.1/24' });
  await must(port, token, 'POST', '/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth0'] });
  await must(port, token, 'POST', '/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] });
  await must(port, token, 'POST', '/api/routes', { destination: 'default', gateway: '203.0.113.1', interface: 'eth0' });
  await must(port, token, 'POST', '/api/dynamic-sets', { name: 'banned', family: 'ipv4', 'max-entries': n * 2, 'default-ttl': 0 });
  // the same hosts as static addresses (at most 1,024 prefixes each) in one group, loaded as a
  // merge of the candidate (a POST body is bounded at 1 MB, a load at 64 MB)
  const addresses = [];
  for (let i = 0; i < n; i += 1024) addresses.push({ name: `fixed-${i / 1024}`, ips: Array.from({ length: Math.min(1024, n - i) }, (_x, k) => `${host(i + k + 1)}/32`) });
  await must(port, token, 'PUT', '/api/config/candidate?mode=merge', { addresses, 'address-groups': [{ name: 'fixed', members: addresses.map((a) => a.name) }] });
  await must(port, token, 'POST', '/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'banned', services: ['any'] });
  await must(port, token, 'POST', '/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'fixed', 'src-addr': 'any', services: ['any'] });
  await must(port, token, 'POST', '/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan' });
  const t1 = performance.now();
  await must(port, token, 'POST', '/api/config/commit');
  console.log(`configured in ${((t1 - t0) / 1000).toFixed(1)} s, committed in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
}

/** The daemon's resident set, MB (a soak reads it between phases: --rounds 20 fills and empties the set 60 times). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Empties the set, 10,000 entries a request (the API's bound). */
async function empty(port: number, token: string, all: string[]): Promise<void> {
  for (let i = 0; i < all.length; i += 10_000) await must(port, token, 'DELETE', '/api/dynamic-sets/banned/entries', { ips: all.slice(i, i + 10_000) });
}

/** Entries a second while the set fills to n in requests of `size` entries (the set emptied first). */
async function addRate(port: number, admin: string, feeder: string, n: number, size: number): Promise<number> {
  const all = Array.from({ length: n }, (_x, i) => host(i + 1));
  await empty(port, admin, all);
  const t0 = performance.now();
  for (let i = 0; i < n; i += size) await must(port, feeder, 'POST', '/api/dynamic-sets/banned/entries', { ips: all.slice(i, i + size), ttl: 0 });
  return n / ((performance.now() - t0) / 1000);
}

/** ms of one POST /api/eval/batch of 10,000 packets to hosts `first`..`first + n - 1`, spread over
 * them; every answer must be a deny (of the set's policy or of the static address's). */
async function batchMs(port: number, token: string, n: number, first: number): Promise<number> {
  const packets = Array.from({ length: 10_000 }, (_x, i) => ({ 'src-ip': '192.168.0.5', 'dst-ip': host(first + ((i * 7919) % n)), protocol: 'tcp', 'dst-port': 443 }));
  const t0 = performance.now();
  const text = await must(port, token, 'POST', '/api/eval/batch', { packets });
  const ms = performance.now() - t0;
  const answers = (JSON.parse(text) as { results: Array<{ action: string }> }).results;
  if (answers.length !== packets.length || answers.some((a) => a.action !== 'deny')) throw new Error('a packet was not denied');
  return ms;
}

async function main(): Promise<void> {
  const n = Number(arg('entries', '100000'));
  const rounds = Number(arg('rounds', '5'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-dynsets-'));
  const inst = await startInstance({ FW_DATA_DIR: dir, FW_DYNAMIC_MAX_ENTRIES: String(n * 2) });
  try {
    const admin = await login(inst.port);
    await configure(inst.port, admin, n);
    const feeder = (JSON.parse(await must(inst.port, admin, 'POST', '/api/tokens', { name: 'bench-feeder', role: 'feeder' })) as { token: string }).token;
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} cores; ${n.toLocaleString('en')} entries, ${rounds} rounds`);
    console.log('\nentries added a second (goal 10,000), by request size: median (each round)');
    for (const size of arg('sizes', '100,1000,10000').split(',').map(Number)) {
      const rates: number[] = [];
      for (let r = 0; r < rounds; r++) rates.push(await addRate(inst.port, admin, feeder, n, size));
      console.log(`  ${String(size).padStart(6)} a request  RSS ${rssMb(inst.proc.pid!).toFixed(0)} MB  ${Math.round(median(rates)).toLocaleString('en').padStart(9)}/s  ${(median(rates) / 10_000).toFixed(2)}x the goal  (${rates.map((x) => Math.round(x)).join(', ')})`);
    }
    // the set holds every host now; the policy naming it is first, so its packets decide there;
    // the static address's policy decides for the same hosts once the set is empty
    const dynamic: number[] = [];
    const fixed: number[] = [];
    const all = Array.from({ length: n }, (_x, i) => host(i + 1));
    await batchMs(inst.port, admin, n, 1); // the overlay compiled once
    for (let r = 0; r < rounds; r++) dynamic.push(await batchMs(inst.port, admin, n, 1));
    await empty(inst.port, admin, all);
    await batchMs(inst.port, admin, n, 1);
    for (let r = 0; r < rounds; r++) fixed.push(await batchMs(inst.port, admin, n, 1));
    console.log('\nPOST /api/eval/batch of 10,000 packets, ms: median (each round)');
    console.log(`  static address of ${n} hosts   ${median(fixed).toFixed(1).padStart(7)}  (${fixed.map((x) => x.toFixed(0)).join(', ')})`);
    console.log(`  dynamic set of ${n} entries   ${median(dynamic).toFixed(1).padStart(7)}  (${dynamic.map((x) => x.toFixed(0)).join(', ')})  ${(median(dynamic) / median(fixed)).toFixed(2)}x the static`);
  } finally {
    const exited = new Promise((r) => inst.proc.once('exit', r));
    inst.proc.kill('SIGTERM');
    await exited; // it writes its data folder until it ends
    closeAgent();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
