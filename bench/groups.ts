// `node dist/bench/groups.js [--rounds N] [--policies N]`: issue 27 point 7. The generated
// 20,000-policy configuration (bench/generate.ts) with 2,000 address groups of 10 members
// each, nested two deep (1,800 groups of 10 addresses of one zone, 200 groups of 10 of those),
// which 70% of the policies' addresses name, and 100 service groups of 3 services in 30% of
// the policies. Baseline in the same run: the same configuration with every group written as
// a plain address of its flattened networks (and each service group as its services), so
// the ratio is the cost of the groups themselves. Each variant runs in a daemon of its own on
// the embedded store (FW_DATAPLANE=none), seeded with the configuration as version 1.
// Per variant: GET /api/policies, the first answer after a commit and a repeated (cached) one;
// the commit of one change (a group's members, or the flat address's networks) and the commit
// of the whole document loaded anew (PUT /api/config/candidate, replace); for the commit of
// one change also the daemon's CPU during the request (/proc: the process, compile workers
// included, and its main thread alone). Medians of the rounds, the variants alternating.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GroupFlattener } from '../src/config/groups';
import type { ConfigDoc } from '../src/config/types';
import { EmbeddedStore } from '../src/store/embedded';
import { flatConfig, groupedConfig, loadableDoc } from './groups-config';
import { closeAgent, fmt, login, request, seedStore, startInstance, type Instance } from './http-load';
import { cpuSeconds, median } from './stats';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : dflt);
const ROUNDS = opt('rounds', 3);
const POLICIES = opt('policies', 20_000);

interface Variant { label: string; doc: ConfigDoc; body: string; edit: (round: number) => [string, string]; inst?: Instance; token?: string; dir?: string }
interface Times { listFirst: number[]; listCached: number[]; commitOne: number[]; commitLoad: number[]; commitOneCpu: number[]; commitOneMain: number[] }

async function timed(inst: Instance, token: string, method: string, p: string, body?: string): Promise<number> {
  const t = process.hrtime.bigint();
  const r = await request(inst.port, method, p, token, body);
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return ms;
}

async function ready(inst: Instance): Promise<void> {
  while ((await request(inst.port, 'GET', '/readyz', '')).status !== 200) await new Promise((r) => setTimeout(r, 200));
}

async function round(v: Variant, n: number, t: Times): Promise<void> {
  const { inst, token } = v as Required<Variant>;
  await ready(inst);
  t.listFirst.push(await timed(inst, token, 'GET', '/api/policies'));
  const cached: number[] = [];
  for (let i = 0; i < 5; i++) cached.push(await timed(inst, token, 'GET', '/api/policies'));
  t.listCached.push(median(cached));
  await timed(inst, token, 'POST', '/api/config/begin');
  const [p, body] = v.edit(n);
  await timed(inst, token, 'PUT', p, body);
  const pid = inst.proc.pid!;
  const c0 = cpuSeconds(pid), m0 = cpuSeconds(pid, true);
  t.commitOne.push(await timed(inst, token, 'POST', '/api/config/commit'));
  t.commitOneCpu.push((cpuSeconds(pid) - c0) * 1000);
  t.commitOneMain.push((cpuSeconds(pid, true) - m0) * 1000);
  await ready(inst);
  await timed(inst, token, 'POST', '/api/config/begin');
  await timed(inst, token, 'PUT', '/api/config/candidate', v.body);
  t.commitLoad.push(await timed(inst, token, 'POST', '/api/config/commit'));
}

async function main(): Promise<void> {
  const grouped = groupedConfig(POLICIES);
  const flat = flatConfig(grouped);
  const leaf = grouped.addressGroups.get('grp0')!;
  const variants: Variant[] = [
    { label: 'plain addresses (baseline)', doc: flat, body: loadableDoc(flat), edit: (n) => ['/api/addresses/grp0', JSON.stringify({ ips: new GroupFlattener(grouped).address('grp0')!.ips.slice((n + 1) % 2) })] },
    { label: '2,000 nested address groups', doc: grouped, body: loadableDoc(grouped), edit: (n) => ['/api/address-groups/grp0', JSON.stringify({ members: leaf.members.slice((n + 1) % 2) })] },
  ];
  const times = variants.map((): Times => ({ listFirst: [], listCached: [], commitOne: [], commitLoad: [], commitOneCpu: [], commitOneMain: [] }));
  try {
    for (const v of variants) {
      v.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-groups-'));
      await seedStore(new EmbeddedStore({ dir: v.dir }), v.doc);
      v.inst = await startInstance({ FW_DATA_DIR: v.dir, FW_DATAPLANE: 'none', FW_INTERFACES: 'eth0,eth1,eth2,eth3', FW_COMMIT_TIMEOUT: '900', FW_ANALYSIS_TIMEOUT: '0' });
      v.token = await login(v.inst.port);
    }
    for (let n = 0; n < ROUNDS; n++) for (const [i, v] of variants.entries()) await round(v, n, times[i]);
  } finally {
    for (const v of variants) {
      v.inst?.proc.kill();
      if (v.dir) fs.rmSync(v.dir, { recursive: true, force: true });
    }
    closeAgent();
  }
  const refs = grouped.policies.reduce((k, p) => k + (grouped.addressGroups.has(p.srcAddr) ? 1 : 0) + (grouped.addressGroups.has(p.dstAddr) ? 1 : 0), 0);
  console.log(`\n${fmt(grouped.policies.length)} policies, ${fmt(grouped.addresses.size)} addresses, ${fmt(grouped.addressGroups.size)} address groups (${fmt(refs)} references from policies), ${grouped.serviceGroups.size} service groups; embedded store, FW_DATAPLANE=none; ${ROUNDS} rounds, medians, wall ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log('| configuration | GET /api/policies, first | GET /api/policies, cached | commit of one change | commit of the whole document loaded | commit of one change, daemon CPU ms (main thread) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const row = (label: string, t: Times, base?: Times) => {
    const cell = (k: keyof Times) => `${fmt(median(t[k]))}${base ? ` (${(median(t[k]) / median(base[k])).toFixed(2)}x)` : ''}`;
    console.log(`| ${label} | ${cell('listFirst')} | ${cell('listCached')} | ${cell('commitOne')} | ${cell('commitLoad')} | ${fmt(median(t.commitOneCpu))} (${fmt(median(t.commitOneMain))}) |`);
  };
  row(variants[0].label, times[0]);
  row(variants[1].label, times[1], times[0]);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
