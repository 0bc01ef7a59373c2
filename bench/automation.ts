// The automation rows of `npm run bench:http -- --redis` (bench/cluster.ts): the whole
// 20,000-policy configuration exported, loaded back in one request (PUT /api/config/candidate)
// and committed, and a batch of 10,000 address creations in one request, each step on another
// instance when there are several (the round trips a pipeline behind a load balancer makes).
import { fmt, request, type Instance } from './http-load';

export interface AutomationRow {
  exportMs: number;
  exportBytes: number;
  loadMs: number;
  commitMs: number;
  batchMs: number;
  batchOpsPerSec: number;
}

export const BATCH_SIZE = 10_000;

async function timed(what: string, p: () => Promise<{ status: number; text: string }>): Promise<{ ms: number; text: string }> {
  const t = process.hrtime.bigint();
  const r = await p().catch((e: unknown) => {
    throw new Error(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return { ms, text: r.text };
}

/**
 * A document the API accepts: the generated configuration is written to the store directly,
 * and some of its services have overlapping port entries, which a create refuses (each such
 * entry is dropped here).
 */
export function loadable(exported: string): string {
  const x = JSON.parse(exported) as { services: Array<{ ports: Array<number | string> }> };
  for (const s of x.services) {
    const taken: Array<[number, number]> = [];
    s.ports = s.ports.filter((p) => {
      const [lo, hi] = String(p).split('-').map(Number);
      const span: [number, number] = [lo, hi ?? lo];
      if (taken.some(([a, b]) => span[0] <= b && a <= span[1])) return false;
      taken.push(span);
      return true;
    });
  }
  return JSON.stringify(x);
}

/** Waits until every instance is ready (its running version compiled): not measured. */
async function allReady(instances: Instance[]): Promise<void> {
  for (const x of instances) {
    while ((await request(x.port, 'GET', '/readyz', '')).status !== 200) await new Promise((r) => setTimeout(r, 200));
  }
}

/** Export, load (replace) and commit of the whole configuration, then one batch of creations. */
export async function automationRow(instances: Instance[], tokens: string[]): Promise<AutomationRow> {
  await allReady(instances);
  const at = (k: number) => ({ port: instances[k % instances.length].port, token: tokens[k % tokens.length] });
  const req = (k: number, method: string, p: string, body?: string) => request(at(k).port, method, p, at(k).token, body);
  const exported = await timed('export', () => req(1, 'GET', '/api/config/export'));
  const doc = loadable(exported.text);
  await timed('begin', () => req(0, 'POST', '/api/config/begin'));
  const load = await timed('load', () => req(1, 'PUT', '/api/config/candidate', doc));
  const commit = await timed('commit', () => req(2, 'POST', '/api/config/commit', JSON.stringify({ description: 'bench load' })));
  await allReady(instances);
  await timed('begin', () => req(0, 'POST', '/api/config/begin'));
  const operations = Array.from({ length: BATCH_SIZE }, (_, i) => ({
    method: 'POST', path: '/api/addresses', body: { name: `batch-${i}`, ips: [`10.${200 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}/32`] },
  }));
  const batch = await timed('batch', () => req(1, 'POST', '/api/config/batch', JSON.stringify({ operations })));
  await timed('discard', () => req(2, 'POST', '/api/config/discard'));
  return {
    exportMs: exported.ms, exportBytes: exported.text.length, loadMs: load.ms, commitMs: commit.ms,
    batchMs: batch.ms, batchOpsPerSec: BATCH_SIZE / (batch.ms / 1000),
  };
}

export function automationTable(rows: Array<{ label: string; instances: number; a: AutomationRow }>, policies: number): void {
  console.log(`\nAutomation: the ${policies}-policy configuration exported (${fmt(rows[0].a.exportBytes)} bytes), loaded in one request (replace) and committed; one batch of ${fmt(BATCH_SIZE)} address creations\n`);
  console.log('| store | instances | export ms | load ms | commit ms | batch ms | batch operations/s |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const { label, instances, a } of rows) {
    console.log(`| ${label} | ${instances} | ${fmt(a.exportMs)} | ${fmt(a.loadMs)} | ${fmt(a.commitMs)} | ${fmt(a.batchMs)} | ${fmt(a.batchOpsPerSec)} |`);
  }
}
