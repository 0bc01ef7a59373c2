// The policy form places a new rule: Place (top, bottom, before, after) and the rule it goes
// next to, with where it lands spelled out before it is created; the create request carries
// position and reference_id. (A new policy always landed at the bottom, below the deny-all;
// issue 29.)
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole } from '../helpers/browser';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  await d.client.begin();
  for (const action of ['allow', 'allow', 'deny']) await ok(d.client.post('/api/policies', { action }));
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

const order = async () => ((await ok(d.client.get('/api/policies?config=candidate'))).body as { id: number }[]).map((p) => p.id);

test('a new policy placed before the deny-all lands there; the form says where before it is created', async () => {
  const { page, problems } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
  await page.getByRole('radio', { name: 'Candidate' }).check(); // the candidate's rules, where the create goes
  await page.locator('table.rules tbody tr[data-id="3"]').waitFor(WAIT);
  await page.getByRole('button', { name: 'New policy' }).click();
  const form = page.getByRole('form', { name: 'New policy' });
  await form.getByLabel('Action', { exact: true }).selectOption('allow');
  const landing = form.locator('.landing');
  expect(await landing.innerText()).toBe('Lands at position 4 of 4, after #3, at the bottom');
  await form.getByLabel('Place', { exact: true }).selectOption('before');
  await form.getByLabel('policy it goes before', { exact: true }).selectOption('3');
  expect(await landing.innerText()).toBe('Lands at position 3 of 4, between #2 and #3');
  expect(await axeViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Create' }).click();
  await form.waitFor({ state: 'detached', ...WAIT });
  expect(await order()).toEqual([1, 2, 4, 3]);
  expect(problems).toEqual([]);
});
