// FQDN addresses in the console (issue 40): the address form takes a DNS name instead of
// networks, the Addresses table shows the name and what it resolves to once running, an edit of
// an FQDN address keeps it one (the empty networks field is not sent), and the packet tracer
// names the FQDN a verdict matched through.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, Client, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, openPage } from '../helpers/browser';
import { TestDns } from '../helpers/dnsmasq';
import { lanWan } from '../helpers/lan-wan';

const NAME = 'web.console.test';
const dns = new TestDns(tempDir('fwd-dns-'), 'console.test');
let daemon: TestDaemon | undefined;
const d = { client: new Client(''), url: '' };
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  await dns.start([`192.0.2.10 ${NAME}`, `192.0.2.11 other.console.test`]);
  daemon = await startTestDaemon({ FW_DNS_SERVERS: dns.server, FW_FQDN_REFRESH_MIN: '1' });
  d.url = d.client.url = daemon.url;
  await d.client.login();
  await d.client.begin();
  await lanWan(d.client);
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
  await daemon?.close();
  await dns.stop();
});

const open = (page: Page, link: string) => openPage(page, link, WAIT);

test('an FQDN address is made through the form, shown with its resolution, edited, and named by the tracer', async () => {
  const { page, problems } = opened!;
  await open(page, 'Addresses');
  await page.getByRole('button', { name: 'New address' }).click();
  const form = page.getByRole('form', { name: 'New address' });
  await form.getByLabel('Name', { exact: true }).fill('web');
  await form.getByLabel('DNS name', { exact: true }).fill(NAME);
  await page.getByRole('button', { name: 'Create' }).click();
  await form.waitFor({ state: 'detached', ...WAIT });
  expect((await ok(d.client.get('/api/addresses/web?config=candidate'))).body).toEqual({ name: 'web', ips: [], fqdn: NAME });
  // both is the API's refusal, shown in the form
  await page.getByRole('button', { name: 'New address' }).click();
  await form.getByLabel('Name', { exact: true }).fill('both');
  await form.getByLabel('Networks', { exact: true }).fill('10.0.0.1');
  await form.getByLabel('DNS name', { exact: true }).fill(NAME);
  await page.getByRole('button', { name: 'Create' }).click();
  await form.getByText(/either ips or fqdn/).waitFor(WAIT);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await ok(d.client.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'wan', 'dst-addr': 'web' }));
  await d.client.commit();
  // the running view: the name and its answer
  // (the table is read when shown: reloaded once the daemon has the answer)
  for (let end = Date.now() + 15_000; (await ok(d.client.get('/api/addresses/web'))).body.resolved?.length !== 1 && Date.now() < end;) await new Promise((r) => setTimeout(r, 200));
  await page.reload();
  await page.getByRole('row', { name: new RegExp(`web ${NAME.replace(/\./g, '\\.')} → 192\\.0\\.2\\.10/32`) }).waitFor(WAIT);
  expect(await axeViolations(page)).toEqual([]);

  // an edit to another name keeps it an FQDN address
  await d.client.begin();
  await page.getByRole('button', { name: 'Edit address web' }).click();
  const edit = page.getByRole('form', { name: 'Edit address web' });
  expect(await edit.getByLabel('DNS name', { exact: true }).inputValue()).toBe(NAME);
  await edit.getByLabel('DNS name', { exact: true }).fill('other.console.test');
  await page.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached', ...WAIT });
  expect((await ok(d.client.get('/api/addresses/web?config=candidate'))).body).toEqual({ name: 'web', ips: [], fqdn: 'other.console.test' });
  await ok(d.client.post('/api/config/discard'));

  await open(page, 'Packet tracer');
  const packet = page.getByRole('form', { name: 'Packet' });
  await packet.getByLabel('Source IP', { exact: true }).fill('10.0.0.5');
  await packet.getByLabel('Destination IP', { exact: true }).fill('192.0.2.10');
  await packet.getByLabel('Protocol', { exact: true }).selectOption('tcp');
  await packet.getByLabel('Destination port', { exact: true }).fill('443');
  await page.getByRole('button', { name: 'Trace' }).click();
  await page.getByRole('heading', { name: 'Verdict: allow' }).waitFor(WAIT);
  await page.getByText(new RegExp(`dst-addr web: ${NAME.replace(/\./g, '\\.')} resolved to 192\\.0\\.2\\.10/32 at \\d{4}-`)).waitFor(WAIT);
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
}, 120000);
