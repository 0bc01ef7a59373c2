// Source ports in the console (issue 27): the service form takes them, the services table shows
// them, an edit that empties the field gives every source port back; the tracer's source port
// gets the verdict POST /api/eval gives.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, openPage, fillForm } from '../helpers/browser';
import { lanWan } from '../helpers/lan-wan';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  await d.client.begin();
  await lanWan(d.client); // a route to 203.0.113.9, so the tracer's packet reaches the policies
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

const open = (page: Page, link: string) => openPage(page, link, WAIT);

test('a service with source ports is made, shown and edited through the form; the tracer sends a source port', async () => {
  const { page, problems } = opened!;
  await open(page, 'Services');
  await page.getByRole('button', { name: 'New service' }).click();
  await fillForm(page, 'New service', { Name: 'dns-53', Protocol: 'udp', Ports: '53', 'Source ports': '53, 1024-65535' });
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('row', { name: /dns-53 udp 53 53, 1024-65535/ }).waitFor(WAIT);
  expect((await ok(d.client.get('/api/services/dns-53?config=candidate'))).body).toEqual({ name: 'dns-53', protocol: 'udp', ports: [53], sourcePorts: [53, '1024-65535'] });
  expect(await axeViolations(page)).toEqual([]);
  // a refusal names the field and changes nothing
  await page.getByRole('button', { name: 'New service' }).click();
  await fillForm(page, 'New service', { Name: 'ping', Protocol: 'icmp', 'Source ports': '53' });
  await page.getByRole('button', { name: 'Create' }).click();
  // shown at the field the details name
  await page.getByRole('form', { name: 'New service' }).getByText(/icmp has none/).waitFor(WAIT);
  expect((await d.client.get('/api/services/ping?config=candidate')).status).toBe(404);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await ok(d.client.post('/api/policies', { action: 'allow', services: ['dns-53'] }));
  await open(page, 'Packet tracer');
  for (const [sport, policy] of [['53', 1], ['54', null]] as const) {
    await fillForm(page, 'Packet', { 'Source IP': '10.0.0.5', 'Destination IP': '203.0.113.9', Protocol: 'udp', 'Destination port': '53', 'Source port': sport, Configuration: 'candidate' });
    await page.getByRole('button', { name: 'Trace' }).click();
    const want = (await ok(d.client.post('/api/eval?config=candidate', { 'src-ip': '10.0.0.5', 'dst-ip': '203.0.113.9', protocol: 'udp', 'dst-port': 53, 'src-port': Number(sport) }))).body;
    expect(want.policy?.id ?? null).toBe(policy);
    await page.getByRole('heading', { name: `Verdict: ${want.action}` }).waitFor(WAIT);
  }

  // an edit that empties the field: every source port again
  await open(page, 'Services');
  await page.getByRole('button', { name: 'Edit service dns-53' }).click();
  await page.getByRole('form', { name: 'Edit service dns-53' }).getByLabel('Source ports', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('form', { name: 'Edit service dns-53' }).waitFor({ state: 'detached', ...WAIT });
  expect((await ok(d.client.get('/api/services/dns-53?config=candidate'))).body).toEqual({ name: 'dns-53', protocol: 'udp', ports: [53] });
  expect(problems).toEqual([]);
});
