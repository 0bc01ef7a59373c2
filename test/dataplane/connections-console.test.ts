// The console's Connections page on a real kernel: two live TCP connections between
// namespaces are shown with their tuples, zones and policy; a filter narrows the table; an
// admin selects one and ends it (DELETE /api/sessions?id=), and only the other remains.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok } from '../helpers/daemon';
import { axeViolations, launchBrowser, watchProblems } from '../helpers/browser';
import { lanDmzZones, startLabDaemon, stopLabDaemon, type LabDaemon } from './lab-daemon';

let ld: LabDaemon;
let browser: BrowserContext | undefined;
let page: Page;
let problems: string[] = [];
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  ld = await startLabDaemon(2);
  const c = ld.client;
  await c.begin();
  await lanDmzZones(c);
  await ok(c.post('/api/policies', { action: 'allow', 'src-zone': 'lan', 'dst-zone': 'dmz' }));
  await c.commit();
  const [p1, p2] = ld.lab.peers;
  for (const port of [7101, 7102]) {
    const conn = await ld.lab.tcpConnection({ ns: p1.ns, src: p1.address, sport: port + 40000 }, { ns: p2.ns, dst: p2.address, dport: port });
    conn.client.send('hello');
    expect(await conn.server.receives('hello')).toBe(true);
  }
  browser = await launchBrowser();
  page = browser.pages()[0] ?? (await browser.newPage());
  problems = watchProblems(page);
}, 120000);

afterAll(async () => {
  await browser?.close();
  await stopLabDaemon(ld);
});

const rows = () => page.locator('table.grid tbody tr');

test('connections are listed, filtered, and the selected one is ended', async () => {
  await page.goto(ld.td.url + '/');
  await page.getByLabel('Username').fill(ADMIN);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('who').waitFor(WAIT);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections', exact: true }).click();
  await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor(WAIT);
  await page.getByRole('form', { name: 'Connection filters' }).getByLabel('Protocol', { exact: true }).fill('tcp');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('2 connections').waitFor(WAIT);
  const texts = await rows().allInnerTexts();
  expect(texts.some((t) => /10\.1\.0\.2:47101\s+10\.2\.0\.2:7101\s+ESTABLISHED\s+lan → dmz\s+1\b/.test(t))).toBe(true);
  expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });

  await page.getByRole('form', { name: 'Connection filters' }).getByLabel('Port', { exact: true }).fill('7102');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('1 connection', { exact: true }).waitFor(WAIT);
  const id = (await rows().first().locator('th').innerText()).trim();
  await page.getByRole('checkbox', { name: `select connection ${id}` }).check();
  await page.getByRole('button', { name: 'End selected (1)' }).click();
  await page.getByText('0 connections').waitFor(WAIT);
  const left = (await ok(ld.client.get('/api/sessions?protocol=tcp&address=10.1.0.2'))).body as { sessions: Array<{ original: { 'dst-port': number } }> };
  expect(left.sessions.map((s) => s.original['dst-port'])).toEqual([7101]);
  expect(problems).toEqual([]);
}, 90000);
