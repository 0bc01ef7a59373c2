// Issue 38, item 2: a large load no longer holds the HTTP thread for its whole length. The
// review's 19.4 MB load held it 48 s (every /healthz probe timed out); the load now runs in
// slices (load.ts prepareLoad). Asserted with a generous bound only, no speed: during a load
// of 256 addresses of 1,024 prefixes, /healthz keeps answering (no gap of 3 s between two of
// its answers while the load is in flight), and the load's result is the document.
import { Client, ok, startTestDaemon, type TestDaemon } from '../helpers/daemon';

jest.setTimeout(180_000);

let d: TestDaemon;
let c: Client;
beforeAll(async () => {
  d = await startTestDaemon({ FW_MAX_LOAD_BODY: String(64 << 20) });
  c = await new Client(d.url).login();
});
afterAll(() => d?.close());

test('GET /healthz answers all along a 5 MB load', async () => {
  const addresses = [];
  for (let a = 0; a < 256; a++) {
    const ips: string[] = [];
    for (let i = 0; i < 1024; i++) ips.push(`10.${a}.${i >> 8}.${i & 255}`);
    addresses.push({ name: `a${a}`, ips });
  }
  const body = JSON.stringify({ addresses });
  await c.begin();
  let loading = true;
  let end = 0;
  const t0 = Date.now();
  const load = c.raw('PUT', '/api/config/candidate', body).finally(() => { loading = false; end = Date.now(); });
  const answers: number[] = [];
  while (loading) {
    const r = await fetch(`${d.url}/healthz`);
    expect(r.status).toBe(200);
    await r.text();
    if (loading) answers.push(Date.now());
    await new Promise((res) => setTimeout(res, 20));
  }
  const r = await load;
  expect(r.status).toBe(200);
  // the gaps between answers while the load ran, from its start to its end (before: one gap,
  // the whole load)
  const points = [t0, ...answers, end];
  const worst = Math.max(...points.slice(1).map((t, i) => t - points[i]));
  // a stall is the whole load in one gap (4 s of a 4.5 s load without slices); on a loaded
  // machine a load may take several seconds in many short gaps, so the bound is 3 s or half
  // the load, whichever is longer (a CI run on Redis at load ~10 saw a 3 s gap in a 6.9 s load)
  const bound = Math.max(3000, (end - t0) / 2);
  expect({ took: end - t0, worst, underBound: worst < bound }).toEqual({ took: end - t0, worst, underBound: true });
  expect((await ok(c.get('/api/addresses/a255?config=candidate'))).body.ips).toHaveLength(1024);
});
