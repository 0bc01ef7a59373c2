// YAML against JSON for the daemon's own export (issue 43, item 10): a rule base is loaded,
// committed and exported by the daemon in both forms, then each form is loaded back (PUT
// /api/config/candidate?mode=replace) in alternation, median of ROUNDS. In-process, the same
// texts through JSON.parse, the daemon's YAML reader (js-yaml, src/config/yaml-text.ts) and
// the `yaml` package that read YAML before (the baseline). Shapes: descriptions with spaces
// and non-ASCII text plus tags (what sent the old reader to the slow path), plain rules
// without them, and many addresses.
//   npm run bench:yaml            (BENCH_YAML_ROUNDS=5, BENCH_YAML_POLICIES=2000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { yamlValue } from '../src/config/yaml-text';
import { login, PASSWORD, startInstance, type Instance } from './http-load';

const ROUNDS = Number(process.env.BENCH_YAML_ROUNDS ?? 5);
const POLICIES = Number(process.env.BENCH_YAML_POLICIES ?? 2000);

interface Shape { name: string; doc: Record<string, unknown> }

function shapes(): Shape[] {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `h-ext-${i}`, ips: [`10.${(i >> 8) & 255}.${i & 255}.1/32`] }));
  const policies = (n: number, described: boolean) => Array.from({ length: n }, (_, i) => ({
    action: i % 3 ? 'allow' : 'deny', 'src-addr': `h-ext-${i % 300}`, 'dst-addr': `h-ext-${(i * 7) % 300}`, services: [['http', 'https', 'ssh'][i % 3]],
    ...(described ? { name: `rule-${i}`, description: `Allow web traffic to the büro server ${i}`, tags: ['web', `team-${i % 9}`] } : {}),
  }));
  const services = [{ name: 'http', protocol: 'tcp', ports: [80] }, { name: 'https', protocol: 'tcp', ports: [443] }, { name: 'ssh', protocol: 'tcp', ports: [22] }];
  const doc = (a: unknown[], p: unknown[]) => ({ format: 'fwd-config/1', addresses: a, services, policies: p });
  return [
    { name: `${POLICIES} policies, descriptions + tags + non-ASCII`, doc: doc(addresses(300), policies(POLICIES, true)) },
    { name: `${POLICIES} policies, plain`, doc: doc(addresses(300), policies(POLICIES, false)) },
    { name: '10000 addresses', doc: doc(addresses(10_000), policies(10, false)) },
  ];
}

async function call(x: Instance, token: string, method: string, p: string, body?: string, type = 'application/json'): Promise<string> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers['Content-Type'] = type;
  // a kept-alive connection the daemon closed as idle (10 s, during the in-process rows) just
  // as this request went out on it was never read: sent once more
  const send = () => fetch(`http://127.0.0.1:${x.port}${p}`, { method, headers, body });
  const r = await send().catch(send);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
  return text;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(run: () => unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-yaml-'));
  const x = await startInstance({ FW_DATA_DIR: dir });
  void PASSWORD;
  try {
    const token = await login(x.port);
    console.log(`bench/yaml: ${ROUNDS} rounds, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${os.cpus().length} cores, Node ${process.version}`);
    console.log('| shape | JSON KB | YAML KB | load JSON | load YAML | YAML / JSON | parse JSON | parse js-yaml | parse yaml pkg (before) | pkg / js-yaml |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const s of shapes()) {
      await call(x, token, 'POST', '/api/config/begin');
      await call(x, token, 'PUT', '/api/config/candidate?mode=replace', JSON.stringify(s.doc));
      await call(x, token, 'POST', '/api/config/commit', '{}');
      const json = await call(x, token, 'GET', '/api/config/export');
      const yaml = await call(x, token, 'GET', '/api/config/export?format=yaml');
      const loads = { json: [] as number[], yaml: [] as number[] };
      await call(x, token, 'POST', '/api/config/begin');
      for (let r = 0; r < ROUNDS; r++) {
        loads.json.push(await timed(() => call(x, token, 'PUT', '/api/config/candidate?mode=replace', json)));
        loads.yaml.push(await timed(() => call(x, token, 'PUT', '/api/config/candidate?mode=replace', yaml, 'application/yaml')));
      }
      await call(x, token, 'POST', '/api/config/discard');
      const parse = { json: [] as number[], js: [] as number[], pkg: [] as number[] };
      for (let r = 0; r < ROUNDS; r++) {
        parse.json.push(await timed(() => JSON.parse(json)));
        parse.js.push(await timed(() => yamlValue(yaml)));
        parse.pkg.push(await timed(() => YAML.parse(yaml)));
      }
      if (JSON.stringify(yamlValue(yaml)) !== JSON.stringify(JSON.parse(json))) throw new Error(`${s.name}: the YAML export does not read back as the JSON export`);
      const [lj, ly, pj, pjs, ppkg] = [median(loads.json), median(loads.yaml), median(parse.json), median(parse.js), median(parse.pkg)];
      console.log(`| ${s.name} | ${Math.round(json.length / 1024)} | ${Math.round(yaml.length / 1024)} | ${ms(lj)} | ${ms(ly)} | ${(ly / lj).toFixed(2)}x | ${ms(pj)} | ${ms(pjs)} | ${ms(ppkg)} | ${(ppkg / pjs).toFixed(1)}x |`);
    }
  } finally {
    x.proc.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
