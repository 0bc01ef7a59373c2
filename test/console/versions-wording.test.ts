// Issue 43, items 6, 8 (console) and 9 (console): Versions' Compare said "changed policies 4"
// and "reordered" only, the running version was not marked and offered Roll back, its Time
// column was cut; diffs and search results named rules by id only, "tags: null -> [...]";
// errors led with their code; "(1 changes)"; names sorted as text (h-ext-102 before h-ext-12);
// no copy button for a new token's secret; the Traffic log said "0 records of node ..."
// without a data plane.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { loggedInConsole, screenshot } from '../helpers/browser';

const d = useDaemon({ FW_DATAPLANE: 'none' });
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 20_000 };

beforeAll(async () => {
  await d.client.begin();
  for (const name of ['h-ext-102', 'h-ext-12', 'h-ext-2']) await ok(d.client.post('/api/addresses', { name, ips: ['10.9.9.9'] }));
  for (const [action, name] of [['allow', 'web-in'], ['allow', 'ssh-in'], ['deny', 'deny-all'], ['allow', 'old']]) await ok(d.client.post('/api/policies', { action, name }));
  await d.client.commit(); // version 1
  await d.client.begin();
  await ok(d.client.post('/api/policies/3/move', { position: 'top' }));
  await ok(d.client.put('/api/policies/1', { log: true, tags: ['pci'] }));
  await ok(d.client.del('/api/policies/4'));
  await ok(d.client.post('/api/policies', { action: 'allow', name: 'new-rule' }));
  await d.client.commit(); // version 2
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
}, 120_000);

afterAll(async () => {
  await opened?.browser.close();
});

async function openPage(label: string, heading = label): Promise<Page> {
  const { page } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor(WAIT);
  return page;
}

for (const [width, height] of [[1280, 800], [1920, 1080]] as const) {
  test(`Versions at ${width}x${height}: compare rule by rule with names and moves; the running version marked, not offered for rollback; Time whole`, async () => {
    const { page } = opened!;
    await page.setViewportSize({ width, height });
    const versions = page.getByRole('region', { name: 'Versions table' });
    await openPage('Versions');
    const running = versions.locator('tbody tr[data-key="2"]');
    await running.waitFor(WAIT);
    expect(await running.locator('th').innerText()).toBe('2 running');
    expect(await running.getByRole('button', { name: /Roll back/ }).count()).toBe(0);
    expect(await versions.getByRole('button', { name: 'Roll back to version 1' }).count()).toBe(1);
    // the Time cells whole: the text's width within the cell's content box
    const cut = await versions.locator('tbody tr[data-key] td:nth-child(3)').evaluateAll((tds) => tds.filter((td) => {
      const c = td as unknown as { scrollWidth: number; clientWidth: number };
      return c.scrollWidth > c.clientWidth;
    }).length);
    expect(cut).toBe(0);
    const form = page.getByRole('form', { name: 'Compare versions' });
    await form.getByLabel('From version', { exact: true }).selectOption('1');
    await form.getByLabel('To version', { exact: true }).selectOption('2');
    await form.getByRole('button', { name: 'Compare' }).click();
    const table = page.getByRole('table', { name: 'Version 1 to 2' });
    await table.waitFor(WAIT);
    const text = await table.innerText();
    expect(text).toMatch(/Moved\s+policy\s+#3 deny-all\s+position 3 → 1, now at the top \(was between #2 ssh-in and #4 old\)/);
    expect(text).toMatch(/Changed\s+policy\s+#1 web-in\s+.*log: false → true/);
    expect(text).toMatch(/tags: none → pci/);
    expect(text).toMatch(/Deleted\s+policy\s+#4 old\s+was at position 4/); // its name from the answer, and where it was
    expect(text).toMatch(/Changed\s+policy\s+#1 web-in\s+at position 2; log/);
    expect(text).toMatch(/Added\s+policy\s+#5 new-rule\s+at position 4/);
    expect(text).not.toMatch(/Reordered|null/);
    await screenshot(page, `versions-compare-${width}x${height}`);
    await page.setViewportSize({ width: 1400, height: 900 });
  });
}

test('names in natural order; search results name rules beside their ids; "1 change"', async () => {
  const { page } = opened!;
  await openPage('Addresses');
  await page.locator('tbody tr[data-key="h-ext-2"]').waitFor(WAIT);
  const keys = await page.locator('tbody tr[data-key]').evaluateAll((r) => r.map((x) => x.getAttribute('data-key')));
  expect(keys).toEqual(['h-ext-2', 'h-ext-12', 'h-ext-102']);
  await openPage('Search');
  const form = page.getByRole('form', { name: 'Search objects' });
  await form.getByLabel('Search by', { exact: true }).selectOption('tag');
  await form.getByLabel('Tag', { exact: true }).fill('pci');
  await form.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('heading', { name: '1 result' }).waitFor(WAIT);
  await page.getByRole('link', { name: '#1 web-in' }).waitFor(WAIT);
  await d.client.begin();
  await ok(d.client.put('/api/policies/2', { log: true }));
  await page.getByTestId('live').filter({ hasText: 'locked by admin (1 change)' }).waitFor(WAIT);
  await ok(d.client.post('/api/config/discard'));
});

test('a refused login reads in words, its code after them', async () => {
  const tab = await opened!.browser.newPage();
  try {
    await tab.goto(d.url + '/');
    await tab.getByLabel('Username').fill(ADMIN);
    await tab.getByLabel('Password').fill('not-the-password');
    await tab.getByRole('button', { name: 'Log in' }).click();
    const alert = tab.getByRole('alert');
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toMatch(/^Invalid credentials\b.*\(ERR_SEC_5005\)$/);
  } finally {
    await tab.close();
  }
});

test('a new API token\'s secret has a Copy button that puts it on the clipboard', async () => {
  const { page, browser } = opened!;
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
  await openPage('API tokens');
  const form = page.getByRole('form', { name: 'New API token' });
  await form.getByLabel('Token name').fill('ci-copy');
  await form.getByRole('button', { name: 'Create token' }).click();
  const secret = page.locator('#token-secret');
  await secret.waitFor(WAIT);
  await page.getByRole('button', { name: 'Copy the token\'s secret' }).click();
  await page.locator('.copied').filter({ hasText: 'Copied' }).waitFor(WAIT);
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await secret.innerText());
});

test('without a data plane the Traffic log and Connections say so, not "0 records of node ..."', async () => {
  const { page, problems } = opened!;
  await openPage('Traffic log');
  const said = page.getByTestId('no-dataplane');
  await said.waitFor(WAIT);
  expect(await said.innerText()).toMatch(/^No data plane on this node \(FW_DATAPLANE=none\)/);
  expect(await page.locator('main').innerText()).not.toMatch(/0 records of node/);
  await screenshot(page, 'traffic-no-dataplane');
  await openPage('Connections');
  await page.getByTestId('no-dataplane').filter({ hasText: /no live connections/ }).waitFor(WAIT);
  expect(await page.locator('main').innerText()).not.toMatch(/^0 connections/m);
  expect(problems).toEqual([]);
});
