// Schedules in a real browser (issue 40 item 4): the Schedules page lists each with whether it
// is on now, a schedule is created through the form (read back over the API), a bad range is
// shown at its field in the daemon's words, and the Policies page shows which policies are off
// by their schedule now and which have expired (badges, and the "show" filter).
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, screenshot } from '../helpers/browser';
import { lanWan } from '../helpers/lan-wan';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };
const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString();

beforeAll(async () => {
  const c = d.client;
  await c.begin();
  await lanWan(c);
  const now = Date.now();
  await ok(c.post('/api/schedules', { name: 'next-week', type: 'once', start: iso(now + 7 * DAY), end: iso(now + 8 * DAY) }));
  await ok(c.post('/api/schedules', { name: 'always', type: 'recurring', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], ranges: ['00:00-24:00'], 'time-zone': 'Europe/Paris' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', schedule: 'next-week' }));
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'wan', 'dst-zone': 'lan', 'expires-at': iso(now - DAY) }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'wan', 'dst-zone': 'lan', schedule: 'always' }));
  await c.commit();
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

test('policies off by schedule and expired are badged; the filter shows them alone', async () => {
  const { page } = opened!;
  await nav(page, 'Policies');
  await page.locator('tr[data-id="1"] .badge-off-schedule').filter({ hasText: 'off by schedule next-week' }).waitFor(WAIT);
  await page.locator('tr[data-id="2"] .badge-expired').filter({ hasText: 'expired' }).waitFor(WAIT);
  expect(await page.locator('tr[data-id="3"] .badge-off-schedule, tr[data-id="3"] .badge-expired').count()).toBe(0);
  await page.getByLabel('Show', { exact: true }).selectOption('off-schedule');
  await page.locator('tr[data-id="2"]').waitFor({ state: 'detached', ...WAIT });
  expect(await page.locator('table.rules tbody tr[data-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual(['1']);
  await page.getByLabel('Show', { exact: true }).selectOption('all');
  await page.locator('tr[data-id="3"]').waitFor(WAIT);
  await screenshot(page, 'policies-schedules');
  expect(await axeViolations(page)).toEqual([]);
}, 120000);

test('the Schedules page: on or off now, created through the form, a bad range at its field', async () => {
  const { page, problems } = opened!;
  await nav(page, 'Schedules');
  await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor(WAIT);
  await page.getByRole('row', { name: /always on mon, tue, wed, thu, fri, sat, sun 00:00-24:00 Europe\/Paris/ }).waitFor(WAIT);
  await page.getByRole('row', { name: /next-week off/ }).waitFor(WAIT);
  await page.getByRole('button', { name: 'New schedule' }).click();
  const form = page.getByRole('form', { name: 'New schedule' });
  await form.getByLabel('Name', { exact: true }).fill('lunch');
  await form.getByLabel('Type', { exact: true }).selectOption('recurring');
  await form.getByLabel('Time zone', { exact: true }).fill('Europe/Berlin');
  await form.getByLabel('Days', { exact: true }).fill('mon, tue');
  await form.getByLabel('Time ranges', { exact: true }).fill('13:00-12:00');
  await page.getByRole('button', { name: 'Create' }).click();
  await form.locator('.field-error').filter({ hasText: /ends before it starts/ }).waitFor(WAIT);
  await form.getByLabel('Time ranges', { exact: true }).fill('12:00-13:00');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('row', { name: /lunch (on|off) mon, tue 12:00-13:00 Europe\/Berlin/ }).waitFor(WAIT);
  const made = (await ok(d.client.get('/api/schedules/lunch?config=candidate'))).body;
  expect(made).toMatchObject({ type: 'recurring', days: ['mon', 'tue'], ranges: ['12:00-13:00'], 'time-zone': 'Europe/Berlin' });
  await screenshot(page, 'schedules');
  expect(await axeViolations(page)).toEqual([]);
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
}, 120000);
