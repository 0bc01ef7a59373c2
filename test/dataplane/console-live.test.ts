// The console on a real kernel (issue 28, point 8): the policy table's "Last hit" moves with
// traffic and a rule no packet met carries "no hit for N days"; the Session page shows, beside
// the pending diff, the live connection a candidate would cut and the rule that would deny it
// (GET /api/config/impact), before anything is committed, and the commit says it cut it.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok } from '../helpers/daemon';
import { axeViolations, loggedInConsole, screenshot } from '../helpers/browser';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };
const SPORT = 45101;

beforeAll(async () => {
  ld = await startLabDaemon(2, [], 4, { FW_HITS_INTERVAL: '1' });
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'app', protocol: 'tcp', ports: [7001] }));
  await ok(c.post('/api/services', { name: 'other', protocol: 'tcp', ports: [7002] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['app'] }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['other'] })); // no traffic
  await c.commit();
  // one long-lived connection through policy 1, carrying data both ways
  const [p1, p2] = ld.lab.peers;
  const { client, server } = await ld.lab.tcpConnection({ ns: p1.ns, src: p1.address, sport: SPORT }, { ns: p2.ns, dst: p2.address, dport: 7001 });
  client.send('hello');
  expect(await server.receives('hello')).toBe(true);
  // the sampler (every second here) has seen policy 1's hit
  const end = Date.now() + 15_000;
  const lastHit = async () => ((await ok(c.get('/api/analysis/hits'))).body.rules as { kind: string; id: number; lastHitAt: string | null }[]).find((r) => r.kind === 'policy' && r.id === 1)?.lastHitAt ?? null;
  while ((await lastHit()) === null && Date.now() < end) await new Promise((r) => setTimeout(r, 300));
  expect(await lastHit()).not.toBeNull();
  opened = await loggedInConsole(ld.td.url, ADMIN, ADMIN_PASSWORD);
}, 120_000);

afterAll(async () => {
  try {
    await opened?.browser.close();
  } finally {
    await stopLabDaemon(ld);
  }
});

test('the policy table shows each rule\'s last hit; the rule no packet met is "no hit for N days"', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
  const row = (id: number) => page.locator(`table.rules tbody tr[data-id="${id}"]`);
  await row(2).locator('.badge-stale').waitFor(WAIT);
  // "Last hit" is a column of the chooser (issue 43: the table fits 1280x800 without it)
  await page.locator('.column-chooser summary').click();
  await page.getByRole('checkbox', { name: 'Last hit' }).check();
  await page.locator('.column-chooser summary').click();
  const lastHitCell = async (id: number) => row(id).locator('td').nth(await page.locator('table.rules thead th').evaluateAll((ths) => ths.findIndex((t) => t.textContent === 'Last hit')) - 1);
  expect(await (await lastHitCell(1)).innerText()).toMatch(/^\d+ (s|min) ago$/);
  expect(await (await lastHitCell(2)).innerText()).toBe('never');
  expect(await row(2).locator('.badge-stale').innerText()).toBe('no hit for 90 days');
  expect(await row(1).locator('.badge-stale').count()).toBe(0);
  // the number of days is the operator's; "Show" lists only those rules
  await page.getByLabel('No hit for (days)', { exact: true }).fill('1');
  await row(2).locator('.badge-stale').filter({ hasText: 'no hit for 1 day' }).waitFor(WAIT);
  await page.getByLabel('Show', { exact: true }).selectOption('stale');
  await page.locator('.count').filter({ hasText: /^1 of 2 / }).waitFor(WAIT);
  expect(await page.locator('table.rules tbody tr[data-id]').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-id'))))).toEqual([2]);
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test('the Session page shows, beside the pending diff, the connection the commit would cut and what would deny it', async () => {
  const { page, problems } = opened!;
  await ld.client.begin(); // the same user as the console: its session
  await ok(ld.client.put('/api/policies/1', { services: ['other'] })); // 7001 no longer allowed
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Session', exact: true }).click();
  const impact = page.getByRole('region', { name: 'Impact on live connections' });
  await impact.getByTestId('impact-summary').filter({ hasText: /would be cut/ }).waitFor(WAIT);
  expect(await impact.getByTestId('impact-summary').innerText()).toMatch(/^1 of \d+ live connections? would be cut\.$/);
  expect(await impact.locator('ul li').allInnerTexts()).toEqual(['default-deny: 1 connection']);
  const [p1, p2] = ld.lab.peers;
  expect(await impact.locator('tbody tr[data-key]').allInnerTexts()).toEqual([`tcp ${p1.address}:${SPORT} → ${p2.address}:7001\tpolicy 1\tdefault-deny`]);
  // the diff is on the same page, above it
  await page.locator('.diff tbody tr').filter({ hasText: 'Changed' }).waitFor(WAIT);
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'session-impact');
  // committed from the console: the answer says how many connections it cut
  const commit = page.getByRole('form', { name: 'Commit' });
  await commit.getByLabel('Description', { exact: true }).fill('app no longer allowed');
  await commit.getByRole('button', { name: 'Commit' }).click();
  await page.locator('.notice').filter({ hasText: /^Committed version \d+; 1 live connection cut/ }).waitFor(WAIT);
  expect(problems).toEqual([]);
});
