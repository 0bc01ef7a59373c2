// The console behind the TLS listener: the same page, the same login, over HTTPS only.
import type { BrowserContext } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { makeCert } from '../helpers/tls';
import { launchBrowser, watchProblems } from '../helpers/browser';

let d: TestDaemon | undefined;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  const cert = makeCert(tempDir('fwd-console-tls-'), 'server');
  d = await startTestDaemon({ FW_TLS_CERT: cert.cert, FW_TLS_KEY: cert.key });
  // the test certificate is the daemon's own: the browser is told to accept it
  browser = await launchBrowser({ ignoreHTTPSErrors: true });
});
afterAll(async () => {
  await browser?.close();
  await d?.close();
});

test('the console is served and logs in over HTTPS', async () => {
  const page = browser!.pages()[0] ?? (await browser!.newPage());
  const problems = watchProblems(page);
  const answer = await page.goto(`https://127.0.0.1:${d!.daemon.port}/`);
  expect(answer?.headers()['content-security-policy']).toContain("default-src 'self'");
  await page.getByLabel('Username').fill(ADMIN);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('running-version').waitFor({ timeout: 15_000 });
  expect(await page.getByTestId('who').innerText()).toMatch(/admin\s+admin/);
  expect(page.url()).toMatch(/^https:/);
  expect(problems).toEqual([]);
});
