// Reviewing a change in the console: validate and commit warnings in a collapsible, scrollable
// warning panel, grouped and counted by the API, each policy id a link to that rule in the
// policy table (they were run together into one paragraph of the green success banner); the
// session's diff with each changed field and each moved rule's positions and neighbours (it
// said only "Reordered - policies"; issue 29).
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole } from '../helpers/browser';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  await d.client.begin();
  for (let i = 0; i < 12; i++) await ok(d.client.post('/api/addresses', { name: `h${i}`, ips: [`10.0.${i}.1`] }));
  for (let i = 0; i < 12; i++) await ok(d.client.post('/api/policies', { action: 'allow', 'dst-addr': `h${i}` }));
  await ok(d.client.post('/api/policies', { action: 'deny', position: 'top' })); // 13, above all
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

test('validate shows one grouped warning in an open, scrollable warning panel; a policy id links to its rule', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Session', exact: true }).click();
  await page.getByRole('button', { name: 'Validate' }).click();
  const panel = page.locator('details.warnings');
  await panel.waitFor(WAIT);
  expect(await panel.locator('summary').innerText()).toBe('Validation: 1 warning');
  expect(await panel.locator('li').allInnerTexts()).toEqual(['policies 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more (12) are shadowed by policy 13']);
  expect(await panel.evaluate((e) => (e as unknown as { open: boolean }).open)).toBe(true);
  expect(await panel.locator('ul').evaluate((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { overflowY: string } }).getComputedStyle(e).overflowY)).toBe('auto');
  // the counts are not links; the ids are
  expect(await panel.getByRole('link').allInnerTexts()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '13']);
  expect(await axeViolations(page)).toEqual([]);
  await panel.getByRole('link', { name: '13', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor(WAIT);
  await page.locator('table.rules tbody tr[data-id="13"]').waitFor(WAIT);
  expect(await page.locator('table.rules tbody tr[data-id]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-id'))))).toEqual([13]);
  expect(problems).toEqual([]);
});

test('the session\'s diff shows the changed field, old and new, and the moved rule with its positions', async () => {
  const { page, problems } = opened!;
  await d.client.commit();
  await d.client.begin();
  await ok(d.client.post('/api/policies/13/move', { position: 'bottom' }));
  await ok(d.client.put('/api/policies/1', { log: true }));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Session', exact: true }).click();
  const rows = page.locator('.diff tbody tr');
  await rows.filter({ hasText: 'Moved' }).waitFor(WAIT);
  expect(await rows.allInnerTexts()).toEqual([
    // rules as "#id" (with their name when they have one); no "Reordered" row beside the move that explains it (issue 43)
    'Changed\tpolicy\t#1\tat position 1; log: false → true',
    'Moved\tpolicy\t#13\tposition 1 → 13, now at the bottom (was at the top)',
  ]);
  expect(problems).toEqual([]);
});

test('search by address and where used: results link to their rules', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search', exact: true }).click();
  const form = page.getByRole('form', { name: 'Search objects' });
  await form.getByLabel('IP address', { exact: true }).fill('10.0.3.1');
  await form.getByRole('button', { name: 'Search' }).click();
  const rows = page.locator('table.grid tbody tr');
  await page.getByRole('heading', { name: '2 results' }).waitFor(WAIT);
  expect(await rows.allInnerTexts()).toEqual(['address\th3\tips 10.0.3.1/32', 'policy\t#4\tdst-addr h3']);
  await form.getByLabel('Search by', { exact: true }).selectOption('used by');
  await form.getByLabel('Object name', { exact: true }).fill('h3');
  await form.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('heading', { name: '1 result' }).waitFor(WAIT);
  expect(await rows.allInnerTexts()).toEqual(['policy\t#4\treferences it']);
  expect(await axeViolations(page)).toEqual([]);
  await rows.getByRole('link', { name: '#4' }).click();
  await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor(WAIT);
  await page.locator('table.rules tbody tr[data-id="4"]').waitFor(WAIT);
  expect(await page.locator('table.rules tbody tr[data-id]').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-id'))))).toEqual([4]);
  expect(problems).toEqual([]);
});

test('a filter typed with the table scrolled to the bottom shows its matches', async () => {
  const { page, problems } = opened!;
  await d.client.begin();
  const operations = Array.from({ length: 150 }, (_, i) => ({ method: 'POST', path: '/api/policies', body: { action: 'allow', 'dst-addr': `h${i % 12}`, log: i % 15 === 0 } }));
  await ok(d.client.post('/api/config/batch', { operations }));
  await d.client.commit();
  await page.goto(d.url + '/policies'); // a fresh table: no filter left by the links above
  await page.getByRole('radio', { name: 'Running' }).check();
  await page.locator('table.rules tbody tr[data-id]').first().waitFor(WAIT);
  const scroller = page.getByRole('region', { name: 'Policies table' });
  await scroller.evaluate((e) => { (e as unknown as { scrollTop: number }).scrollTop = 1e6; });
  await page.locator('table.rules tbody tr[data-id="163"]').waitFor(WAIT); // the last rows are shown
  await page.getByRole('searchbox').fill('yes'); // the Log column: 10 of the new rules
  await page.locator('.count').filter({ hasText: /^10 of 163 / }).waitFor(WAIT);
  const shown = await page.locator('table.rules tbody tr[data-id]').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-id'))));
  expect(shown).toHaveLength(10);
  expect(problems).toEqual([]);
});
