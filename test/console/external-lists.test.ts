// An external list through the console's address form (issue 40): created with a URL and a
// refresh instead of networks (the body the API gets: url and refresh, no ips), committed, and
// its state shown in the Addresses table after the daemon's first fetch (entries, fetch time).
// Editing its refresh keeps the URL (the empty networks field is left out of the update).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole } from '../helpers/browser';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('# two entries\n198.51.100.7\n198.51.100.64/26\n');
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`;
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
  server.closeAllConnections();
  server.close();
});

test('an address created with a list URL shows its fetched entries', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Addresses', exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor(WAIT);
  await page.getByRole('button', { name: 'New address' }).click();
  const form = page.getByRole('form', { name: 'New address' });
  await form.getByLabel('Name', { exact: true }).fill('feed');
  await form.getByLabel('List URL', { exact: true }).fill(url);
  await form.getByLabel('Refresh (s)', { exact: true }).fill('600');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('row', { name: /feed list: 0 entries/ }).waitFor(WAIT);
  expect((await ok(d.client.get('/api/addresses/feed?config=candidate'))).body).toEqual({ name: 'feed', ips: [], url, refresh: 600 });
  // its refresh edited: the URL stays
  await page.getByRole('row', { name: /feed list/ }).getByRole('button', { name: /Edit/ }).click();
  const edit = page.getByRole('form', { name: /Edit address/ });
  await edit.getByLabel('Refresh (s)', { exact: true }).fill('900');
  await edit.getByRole('button', { name: /Save/ }).click();
  await page.getByRole('row', { name: /feed list/ }).waitFor(WAIT);
  for (let i = 0; i < 50 && (await ok(d.client.get('/api/addresses/feed?config=candidate'))).body.refresh !== 900; i++) await new Promise((r) => setTimeout(r, 200));
  expect((await ok(d.client.get('/api/addresses/feed?config=candidate'))).body).toEqual({ name: 'feed', ips: [], url, refresh: 900 });
  await d.client.commit();
  await page.reload();
  await page.getByRole('row', { name: /feed list: 2 entries, fetched 20/ }).waitFor(WAIT);
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
}, 120000);
