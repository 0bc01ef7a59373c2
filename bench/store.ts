// Embedded store micro-benchmark: durable journal appends per second, one at a time and with
// concurrent callers (group commit: appends queued during an fsync share the next one), and
// commits per second. Run: npm run build && node dist/bench/store.js [appends-per-row]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStore } from '../src/store/embedded';
import type { SerializedDoc } from '../src/config/document';

const doc = (): SerializedDoc => ({
  addresses: [],
  services: [],
  zones: [],
  interfaces: [],
  vlans: [],
  dhcp: [],
  routes: [],
  policies: [],
  nat: [],
  counters: { policy: 0, nat: 0, route: 0 },
});

async function appendRate(store: EmbeddedStore, total: number, concurrency: number): Promise<number> {
  const running = await store.runningVersion();
  const id = `bench-${concurrency}-${Date.now()}`;
  const now = Date.now();
  await store.beginSession({ id, owner: 'bench', startedAt: now, lastChangeAt: now, baseVersion: running.version });
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const seq = next++;
        const body = { name: `addr-${seq}`, ips: ['10.0.0.0/24'] };
        await store.appendChange(id, { seq, at: Date.now(), user: 'bench', change: { op: 'create', kind: 'address', body } });
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  await store.endSession(id);
  return total / secs;
}

async function commitRate(store: EmbeddedStore, total: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    const running = await store.runningVersion();
    const id = `commit-${i}`;
    const now = Date.now();
    await store.beginSession({ id, owner: 'bench', startedAt: now, lastChangeAt: now, baseVersion: running.version });
    await store.commit(id, 0, { version: running.version + 1, author: 'bench', time: now, description: '', summary: '', doc: doc() });
  }
  return total / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 2000);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'fw-bench-store-'));
  const store = new EmbeddedStore({ dir });
  await store.open(doc);
  try {
    const rows: Array<{ case: string; 'ops/s': number }> = [];
    for (const c of [1, 8, 64]) {
      rows.push({ case: `append, ${c} concurrent caller${c > 1 ? 's' : ''}`, 'ops/s': Math.round(await appendRate(store, total, c)) });
    }
    rows.push({ case: 'commit (begin + commit, small doc)', 'ops/s': Math.round(await commitRate(store, 100)) });
    console.log(`embedded store in ${dir} (${total} appends a row; each fsync'd before it resolves)`);
    console.table(rows);
  } finally {
    await store.close();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
