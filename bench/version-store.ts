// The store's part of a one-change commit at scale, and what another instance does to follow
// it (issue 30: versions stored as deltas). Run: npm run build && node dist/bench/version-store.js
// [--sizes 20000,100000] [--stores embedded,redis] [--rounds 5]
// On a store holding the random rule base of bench/scale-config.ts as its running version,
// each round changes one address object and commits it, alternately
//   whole  as before deltas: the version record written whole (store.commit without the change),
//   delta  as the commit pipeline does now: serializeDoc, docDelta and the store's delta record;
//   move   as delta, for one policy moved to the top instead (a reordered table: stored as its
//          order, packDelta);
// both with the pipeline's serializeDoc (and for delta docDelta) in the time. Per mode, the
// medians of: bytes of the version's record in the store, the commit's wall and CPU ms (this
// process: JSON.stringify and the write), then on Redis the follow of a second instance
// holding the version before (whole: GET and parse the record; delta: GET the delta and apply
// it), and a read of the version whole (getVersion: a delta version is rebuilt from its
// keyframe and the deltas since; here up to `rounds` of them). The keyframe a delta commit
// writes after its answer every 16 versions costs what a whole commit costs (shown as whole).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { emptyDoc, parseDoc, serializeDoc, workingCopy } from '../src/config/document';
import { applyDelta, docDelta } from '../src/config/doc-delta';
import type { ConfigDoc } from '../src/config/types';
import { EmbeddedStore } from '../src/store/embedded';
import { RedisStore } from '../src/store/redis/redis-store';
import type { Store } from '../src/store/types';
import { unpackDelta, versionChange } from '../src/store/version-deltas';
import { startRedis, type TestRedis } from '../test/helpers/redis';
import { fmt } from './http-load';
import { scaleConfig } from './scale-config';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : def;
}
const opts = {
  sizes: arg('sizes', '20000,100000').split(',').map(Number),
  stores: arg('stores', 'embedded,redis').split(','),
  rounds: Number(arg('rounds', '5')),
};

interface Sample { bytes: number; wallMs: number; cpuMs: number; followMs: number; readMs: number }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The running document with one address object's ips replaced (a new object, as a change makes). */
function oneAddressChanged(doc: ConfigDoc, round: number): ConfigDoc {
  const next = workingCopy(doc);
  const [name, a] = [...doc.addresses].find(([, o]) => o.ips[0]?.includes('.'))!;
  next.addresses.set(name, { ...a, ips: [`10.${200 + (round % 50)}.0.${round % 250}/32`] });
  return next;
}

async function recordBytes(store: Store, dir: string, n: number): Promise<number> {
  if (store instanceof RedisStore) {
    return (await store.redis.strlen(store.keys.version(n))) + (await store.redis.strlen(store.keys.versionDelta(n)));
  }
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return size(path.join(dir, 'versions', `${n}.json`)) + size(path.join(dir, 'versions', `${n}.delta.json`));
}

const MODES = ['whole', 'delta', 'move'] as const;
type Mode = (typeof MODES)[number];

/** The running document with its middle policy moved to the top. */
function onePolicyMoved(doc: ConfigDoc, round: number): ConfigDoc {
  const next = workingCopy(doc);
  const rules = [...doc.policies];
  const [moved] = rules.splice((rules.length >> 1) + round, 1);
  next.policies = [moved, ...rules];
  return next;
}

async function run(storeKind: string, size: number): Promise<Record<Mode, Sample[]>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-vstore-'));
  let redis: TestRedis | null = null;
  const stores: Store[] = [];
  try {
    let doc = scaleConfig({ policies: size });
    const initial = serializeDoc(emptyDoc(['eth0', 'eth1', 'eth2', 'eth3']));
    const open = async (): Promise<Store> => {
      // no keyframe during the rounds: each delta commit is measured alone
      const s: Store = redis
        ? new RedisStore({ url: redis.url, clusterName: 'bench', sessionLeaseMs: 600_000, keyframeEvery: 1e9, secret: 'bench-version-store-secret' })
        : new EmbeddedStore({ dir: path.join(dir, 'data'), keyframeEvery: 1e9 });
      stores.push(s);
      await s.open(() => initial);
      return s;
    };
    if (storeKind === 'redis') redis = await startRedis(path.join(dir, 'redis'));
    const store = await open();
    const follower = redis ? await open() : null;
    // the rule base as version 1, written whole (a big value goes on the Redis bulk lane; a
    // new store's version 0 is written on the command connection, with its one-second timeout)
    await store.beginSession({ id: 'load', owner: 'bench', startedAt: Date.now(), lastChangeAt: Date.now(), baseVersion: 0 });
    await store.commit('load', 0, { version: 1, author: 'bench', time: Date.now(), description: 'load', summary: '', doc: serializeDoc(doc) });
    let followerDoc = parseDoc((await (follower ?? store).getVersion(1))!.doc);
    const out: Record<Mode, Sample[]> = { whole: [], delta: [], move: [] };
    for (let round = 0; round < MODES.length * opts.rounds; round++) {
      const mode = MODES[round % MODES.length];
      const running = await store.runningVersion();
      const next = mode === 'move' ? onePolicyMoved(doc, round) : oneAddressChanged(doc, round);
      const id = `bench-${round}`;
      await store.beginSession({ id, owner: 'bench', startedAt: Date.now(), lastChangeAt: Date.now(), baseVersion: running.version });
      const v = running.version + 1;
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      const change = mode !== 'whole' ? versionChange({ meta: running, doc }, next, docDelta(doc, next)) : undefined;
      await store.commit(id, 0, { version: v, author: 'bench', time: Date.now(), description: `round ${round}`, summary: '', doc: serializeDoc(next) }, change);
      const wallMs = msSince(t0), c = process.cpuUsage(c0), cpuMs = (c.user + c.system) / 1000;
      doc = next;
      let followMs = NaN;
      if (follower) {
        const f0 = process.hrtime.bigint();
        const d = mode !== 'whole' ? await follower.versionDelta(v) : undefined;
        followerDoc = d ? applyDelta(followerDoc, unpackDelta(followerDoc, d.delta)) : parseDoc((await follower.getVersion(v))!.doc);
        followMs = msSince(f0);
      }
      const r0 = process.hrtime.bigint();
      await (follower ?? store).getVersion(v);
      const readMs = msSince(r0);
      out[mode].push({ bytes: await recordBytes(store, path.join(dir, 'data'), v), wallMs, cpuMs, followMs, readMs });
    }
    return out;
  } finally {
    for (const s of stores) await s.close();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`Version records at scale: ${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; ${opts.rounds} commits of one address per mode, medians\n`);
  console.log('| policies | store | stored as | record bytes | commit wall ms | commit CPU ms | other instance follows ms | getVersion ms | load avg |');
  console.log('|---:|---|---|---:|---:|---:|---:|---:|---:|');
  for (const size of opts.sizes) {
    for (const storeKind of opts.stores) {
      const before = os.loadavg()[0];
      const r = await run(storeKind, size);
      for (const mode of MODES) {
        const s = r[mode];
        const col = (k: keyof Sample) => (Number.isNaN(median(s.map((x) => x[k]))) ? '-' : fmt(median(s.map((x) => x[k]))));
        console.log(`| ${fmt(size)} | ${storeKind} | ${mode} | ${col('bytes')} | ${col('wallMs')} | ${col('cpuMs')} | ${col('followMs')} | ${col('readMs')} | ${before.toFixed(1)}-${os.loadavg()[0].toFixed(1)} |`);
      }
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
