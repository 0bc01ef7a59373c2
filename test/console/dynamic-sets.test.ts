// The Dynamic sets page in a real browser (issue 40): a running set's entries listed with their
// expiry, an entry added through the form (read back over the API: no session, no commit), a
// bad address shown at its field with the daemon's words, an entry removed by its button.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, screenshot } from '../helpers/browser';
import { lanWan } from '../helpers/lan-wan';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };
const entries = async () => (await ok(d.client.get('/api/dynamic-sets/blocked/entries'))).body.entries.map((e: { ip: string }) => e.ip);

beforeAll(async () => {
  const c = d.client;
  await c.begin();
  await lanWan(c);
  await ok(c.post('/api/dynamic-sets', { name: 'blocked', family: 'ipv4' }));
  await ok(c.post('/api/policies', { action: 'deny', 'src-zone': 'lan', 'dst-zone': 'wan', 'src-addr': 'blocked' }));
  await c.commit();
  await ok(c.post('/api/dynamic-sets/blocked/entries', { ips: ['10.0.0.5'], ttl: 0 }));
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

test('entries are listed, added through the form and removed by their button', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dynamic sets', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Dynamic sets' }).waitFor(WAIT);
  const table = page.getByRole('region', { name: 'Entries table' });
  await table.getByText('10.0.0.5/32').waitFor(WAIT);
  await expectText(page, '1 of at most 65536 entries.');
  const form = page.getByRole('form', { name: 'Add entries' });
  await form.getByLabel('Addresses', { exact: true }).fill('10.0.0.6, 10.0.0.7');
  await form.getByLabel('TTL (seconds)', { exact: true }).fill('600');
  await form.getByRole('button', { name: 'Add entries' }).click();
  await table.getByText('10.0.0.7/32').waitFor(WAIT);
  expect(await entries()).toEqual(['10.0.0.5/32', '10.0.0.6/32', '10.0.0.7/32']);
  await form.getByLabel('Addresses', { exact: true }).fill('10.0.0.999');
  await form.getByRole('button', { name: 'Add entries' }).click();
  await form.getByText('Enter a valid IPv4 or IPv6 address or prefix (entry 1: 10.0.0.999)').waitFor(WAIT);
  await table.getByRole('button', { name: 'Remove entry 10.0.0.6/32' }).click();
  await expectText(page, '2 of at most 65536 entries.');
  expect(await entries()).toEqual(['10.0.0.5/32', '10.0.0.7/32']);
  await screenshot(page, 'dynamic-sets');
  expect(await axeViolations(page)).toEqual([]);
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
}, 120000);

async function expectText(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: true }).waitFor(WAIT);
}
