// Debian's Chromium driven by playwright-core (no browser download): headless, sandbox off
// (tests run as root), no network of its own, a fresh profile in a temporary folder removed
// with the test file's others. closeBrowser runs in afterAll, also after a failure.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './temp-dirs';
import { BROWSER_PACKAGES, requirePackages } from './packages';

export const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** `ignoreHTTPSErrors`: for a daemon on a test certificate of its own. */
export async function launchBrowser(options: { ignoreHTTPSErrors?: boolean } = {}): Promise<BrowserContext> {
  if (process.env.FW_CHROMIUM === undefined) requirePackages(BROWSER_PACKAGES, 'the console\'s browser tests');
  return chromium.launchPersistentContext(tempDir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
  });
}

/** Messages the page logged about Content-Security-Policy violations and script errors. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The engine is given
 * to the page through the DevTools protocol (page.evaluate), which the page's strict CSP does
 * not govern: the page itself is tested with its policy on.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const has = await page.evaluate('typeof window.axe');
  if (has === 'undefined') await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Screenshots of the main pages into docs/console/, only when FW_CONSOLE_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.FW_CONSOLE_SCREENSHOTS !== '1') return;
  const dir = path.resolve(__dirname, '..', '..', '..', 'docs', 'console');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

/** A browser on the console at `url`, logged in as `user`: its first tab and the problems it logs. */
export async function loggedInConsole(url: string, user: string, password: string): Promise<{ browser: BrowserContext; page: Page; problems: string[] }> {
  const browser = await launchBrowser();
  const page = browser.pages()[0] ?? (await browser.newPage());
  const problems = watchProblems(page);
  await page.goto(url + '/');
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('who').waitFor({ timeout: 15_000 });
  return { browser, page, problems };
}

/** Opens the console page `link` of the main navigation and waits for its heading. */
export async function openPage(page: Page, link: string, wait = { timeout: 15_000 }): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor(wait);
}

/** Fills the form named `form`: each label's control (a select takes its option). */
export async function fillForm(page: Page, form: string, values: Record<string, string>): Promise<void> {
  const f = page.getByRole('form', { name: form });
  for (const [label, value] of Object.entries(values)) {
    const control = f.getByLabel(label, { exact: true });
    if ((await control.evaluate((e) => e.tagName)) === 'SELECT') await control.selectOption(value);
    else await control.fill(value);
  }
}
