// The console's Traffic log page on a real kernel: a logged connection is listed with its
// policy, zones and interfaces; a filter narrows the table; "Live" shows a new connection as
// it is logged; a record's policy links to the policy table, filtered to that rule.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok } from '../helpers/daemon';
import { axeViolations, launchBrowser, watchProblems } from '../helpers/browser';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
let browser: BrowserContext | undefined;
let page: Page;
let problems: string[] = [];
const WAIT = { timeout: 15_000 };

async function connect(sport: number, dport: number): Promise<void> {
  const [p1, p2] = ld.lab.peers;
  const conn = await ld.lab.tcpConnection({ ns: p1.ns, src: p1.address, sport }, { ns: p2.ns, dst: p2.address, dport });
  conn.client.send('hello');
  expect(await conn.server.receives('hello')).toBe(true);
}

beforeAll(async () => {
  ld = await startLabDaemon(2);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/services', { name: 'apps', protocol: 'tcp', ports: ['7201-7203'] }));
  await ok(c.post('/api/policies', { name: 'apps-in', action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz', services: ['apps'], log: true }));
  await c.commit();
  await connect(47201, 7201);
  browser = await launchBrowser();
  page = browser.pages()[0] ?? (await browser.newPage());
  problems = watchProblems(page);
}, 120000);

afterAll(async () => {
  await browser?.close();
  await stopLabDaemon(ld);
});

const rows = (name: string) => page.getByRole('table', { name }).locator('tbody tr');

test('logged connections are listed, filtered, followed live, and link to their policy', async () => {
  await page.goto(ld.td.url + '/');
  await page.getByLabel('Username').fill(ADMIN);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('who').waitFor(WAIT);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Traffic log', exact: true }).click();
  await page.getByRole('heading', { name: 'Traffic log', level: 1 }).waitFor(WAIT);
  const logged = 'Logged connections, newest first';
  await page.getByText(/^1 record of node /).waitFor(WAIT);
  expect(await rows(logged).allInnerTexts()).toEqual([expect.stringMatching(/allow\s+#1 apps-in\s+tcp\s+10\.1\.0\.2:47201\s+10\.2\.0\.2:7201\s+lan → dmz\s+fw1 → fw2/)]);
  expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });

  // a filter that selects nothing, then back
  const filters = page.getByRole('form', { name: 'Traffic log filters' });
  await filters.getByLabel('Action', { exact: true }).fill('deny');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText(/^0 records of node /).waitFor(WAIT);
  await filters.getByLabel('Action', { exact: true }).fill('allow');
  await filters.getByLabel('Port', { exact: true }).fill('7201');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText(/^1 record of node /).waitFor(WAIT);

  // live: a new connection on a port the filter does not select stays out; one it selects comes in
  await filters.getByLabel('Port', { exact: true }).fill('7202');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('checkbox', { name: 'Live' }).check();
  await page.getByText('0 new records').waitFor(WAIT);
  await connect(47203, 7203);
  await connect(47202, 7202);
  await page.getByText('1 new record', { exact: true }).waitFor(WAIT);
  expect(await rows('Records as they come').allInnerTexts()).toEqual([expect.stringMatching(/10\.1\.0\.2:47202\s+10\.2\.0\.2:7202/)]);

  // the record's policy opens the policy table on that rule
  await rows('Records as they come').first().getByRole('link', { name: '#1 apps-in' }).click();
  await page.getByRole('heading', { name: 'Policies', level: 1 }).waitFor(WAIT);
  expect(new URL(page.url()).searchParams.get('filter')).toBe('#1 ');
  expect(problems).toEqual([]);
}, 90000);
