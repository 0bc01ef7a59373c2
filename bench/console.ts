// Console benchmark: `npm run bench:console` (node dist/bench/console.js [--policies N]).
// Starts the daemon (as npm start runs it) on a store seeded with the generated realistic
// configuration (20,000 policies), logs in through the console in headless Chromium (Debian's,
// driven by playwright-core) and opens the policy page. Measured in the page itself:
// - first view: from the moment the policy data has arrived (the last responseEnd of the
//   page's /api/policies and /api/analysis/hits requests, Resource Timing; the analysis is
//   asked for after the rows are shown since issue 43, its badges follow) to the first frame
//   showing the rules (the console's own User Timing mark fwd:policies-shown, set in the
//   requestAnimationFrame after the render);
// - the same from the click on "Policies" (data transfer and parse included);
// - scrolling: the whole table scrolled in 120 steps, one a frame (scrollbar speed), then 3
//   rows a frame (a mouse wheel); the frame intervals' median and 95th percentile, beside the
//   same page's frames without scrolling (this machine's baseline now); the rows in the DOM;
// - the console's script and style, gzipped as the daemon sends them.
// Each figure is the median of --runs page loads; the load average is printed beside them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { EmbeddedStore } from '../src/store/embedded';
import { generateConfig, REALISTIC } from './generate';
import { PASSWORD, seedStore, startInstance } from './http-load';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/helpers/browser';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

interface Run {
  afterData: number; fromClick: number; bytes: number;
  framesMedian: number; framesP95: number; idleMedian: number; idleP95: number; wheelMedian: number; wheelP95: number; domRows: number;
}

async function main(): Promise<void> {
  const policies = arg('--policies', REALISTIC.policies);
  const runs = arg('--runs', 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-console-'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-bench-chromium-'));
  await seedStore(new EmbeddedStore({ dir }), generateConfig({ ...REALISTIC, policies }));
  const daemon = await startInstance({ FW_DATA_DIR: dir });
  const url = `http://127.0.0.1:${daemon.port}`;
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1400, height: 900 },
  });
  try {
    const index = await (await fetch(url + '/', { headers: { Accept: 'text/html' } })).text();
    let gz = 0;
    let raw = 0;
    for (const m of index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
      const bytes = Buffer.from(await (await fetch(url + m[1])).arrayBuffer());
      raw += bytes.length;
      gz += gzipSync(bytes, { level: 9 }).length;
    }
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(url + '/');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('running-version').waitFor({ timeout: 60_000 });
    const results: Run[] = [];
    for (let i = 0; i < runs; i++) {
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.evaluate("performance.clearMarks(); performance.clearResourceTimings(); performance.mark('fwd:click')");
      await page.getByRole('link', { name: 'Policies', exact: true }).click();
      await page.waitForFunction(() => (globalThis as unknown as { performance: { getEntriesByName(n: string): unknown[] } }).performance.getEntriesByName('fwd:policies-shown').length > 0, undefined, { timeout: 120_000 });
      // in-page code as text: the bench is compiled without the DOM library
      const t = (await page.evaluate(`(() => {
        const shown = performance.getEntriesByName('fwd:policies-shown')[0].startTime;
        const click = performance.getEntriesByName('fwd:click')[0].startTime;
        const data = performance.getEntriesByType('resource')
          .filter((e) => /\\/api\\/(policies|analysis\\/hits)/.test(e.name)).map((e) => e.responseEnd);
        const policies = performance.getEntriesByType('resource').find((e) => /\\/api\\/policies/.test(e.name));
        return { afterData: shown - Math.max(...data), fromClick: shown - click, bytes: policies ? policies.decodedBodySize : 0 };
      })()`)) as { afterData: number; fromClick: number; bytes: number };
      // the baseline of this machine now: 120 frames of the same page without scrolling
      const frames = (await page.evaluate(`(async () => {
        const el = document.querySelector('.scroller');
        const idle = [];
        let t0 = performance.now();
        for (let s = 0; s < 120; s++) {
          await new Promise((r) => requestAnimationFrame(r));
          const now = performance.now();
          idle.push(now - t0);
          t0 = now;
        }
        const times = [];
        const steps = 120;
        let last = performance.now();
        for (let s = 1; s <= steps; s++) {
          el.scrollTop = (el.scrollHeight - el.clientHeight) * (s / steps);
          await new Promise((r) => requestAnimationFrame(r));
          const now = performance.now();
          times.push(now - last);
          last = now;
        }
        // as a mouse wheel scrolls: 3 rows a frame
        el.scrollTop = 0;
        await new Promise((r) => requestAnimationFrame(r));
        const wheel = [];
        last = performance.now();
        for (let s = 1; s <= steps; s++) {
          el.scrollTop = s * 3 * 36;
          await new Promise((r) => requestAnimationFrame(r));
          const now = performance.now();
          wheel.push(now - last);
          last = now;
        }
        return { idle, times, wheel, rows: document.querySelectorAll('table.rules tbody tr[data-id]').length };
      })()`)) as { idle: number[]; times: number[]; wheel: number[]; rows: number };
      results.push({
        ...t, framesMedian: median(frames.times), framesP95: pct(frames.times, 0.95), domRows: frames.rows,
        idleMedian: median(frames.idle), idleP95: pct(frames.idle, 0.95),
        wheelMedian: median(frames.wheel), wheelP95: pct(frames.wheel, 0.95),
      });
    }
    const rows = (await page.locator('.count').innerText()).trim();
    const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
    console.log(`console bench: ${rows}; ${runs} page loads; load average ${load}; ${os.cpus().length} cores, ${os.cpus()[0].model}`);
    console.log(`first view after the data arrived: median ${median(results.map((r) => r.afterData)).toFixed(0)} ms (runs: ${results.map((r) => r.afterData.toFixed(0)).join(', ')})`);
    console.log(`first view from the click (requests, transfer, parse, render): median ${median(results.map((r) => r.fromClick)).toFixed(0)} ms; /api/policies?stats=true body ${(results[0].bytes / 1e6).toFixed(1)} MB`);
    console.log(`scrolling the whole table in 120 frames: frame interval median ${median(results.map((r) => r.framesMedian)).toFixed(1)} ms, p95 ${median(results.map((r) => r.framesP95)).toFixed(1)} ms; rows in the DOM: ${results[0].domRows}`);
    console.log(`scrolling 3 rows a frame (a mouse wheel) for 120 frames: frame interval median ${median(results.map((r) => r.wheelMedian)).toFixed(1)} ms, p95 ${median(results.map((r) => r.wheelP95)).toFixed(1)} ms`);
    console.log(`baseline, the same page not scrolling: frame interval median ${median(results.map((r) => r.idleMedian)).toFixed(1)} ms, p95 ${median(results.map((r) => r.idleP95)).toFixed(1)} ms`);
    console.log(`script + style: ${(raw / 1024).toFixed(1)} KB, gzipped ${(gz / 1024).toFixed(1)} KB`);
  } finally {
    await browser.close();
    daemon.proc.kill('SIGTERM');
    await new Promise((r) => daemon.proc.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
