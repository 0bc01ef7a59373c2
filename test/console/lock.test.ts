// Issue 43, item 2: op1 pressed Arrow Up on a policy while admin held the session; the row
// moved and the status said "policy 9 moved to position 8" though the API refused the move
// (ERR_SYS_3002), and move handles were offered while the header said "locked by admin".
// Here: a move refused by the API is undone, never announced as done, and the error reads in
// words with its code after them; while another user holds the session every control that
// needs the lock is disabled and names the owner.
import type { BrowserContext, Page, Route } from 'playwright-core';
import { ok, useDaemon } from '../helpers/daemon';
import { loggedInConsole, screenshot } from '../helpers/browser';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 20_000 };
const OP = 'op1';
const OP_PASSWORD = 'op1-password-123';

beforeAll(async () => {
  await d.client.begin();
  for (let i = 1; i <= 12; i++) await ok(d.client.post('/api/policies', { action: i % 2 ? 'allow' : 'deny', name: `rule-${i}` }));
  await d.client.commit();
  await ok(d.client.post('/api/users', { username: OP, password: OP_PASSWORD, role: 'operator' }));
  opened = await loggedInConsole(d.url, OP, OP_PASSWORD);
}, 120_000);

afterAll(async () => {
  await opened?.browser.close();
});

const order = async () => ((await ok(d.client.get('/api/policies?config=candidate'))).body as { id: number }[]).map((p) => p.id);
const shown = (page: Page) => page.locator('table.rules tbody tr[data-id]').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-id'))));

async function until<T>(read: () => Promise<T>, expected: T): Promise<T> {
  const end = Date.now() + 20_000;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

test('a move the API refuses (another user took the lock a moment ago) is undone, never announced as done, and the error reads in words', async () => {
  const { page } = opened!;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
  await page.locator('table.rules tbody tr[data-id="9"]').waitFor(WAIT);
  const before = await shown(page);
  expect(before.slice(0, 12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  await page.getByTestId('live').filter({ hasText: 'unlocked' }).waitFor(WAIT);
  // the console's view of the lock is a moment old (the window between a lock taken elsewhere
  // and the next status read): its status reads keep answering "unlocked" while admin begins
  const stale = (await ok(d.client.get('/api/status'))).text;
  const frozen = (route: Route) => route.fulfill({ status: 200, contentType: 'application/json', body: stale });
  await page.route('**/api/status', frozen);
  try {
    await d.client.begin();
    await page.getByRole('button', { name: 'Move policy 9', exact: true }).focus();
    await page.keyboard.press('ArrowUp');
    // the API refused: the error in words, its code after them
    const alert = page.locator('.notice-error');
    await alert.waitFor(WAIT);
    const said = await alert.innerText();
    expect(said).toMatch(/^A configuration session is already active\b.*admin.*\(ERR_SYS_3002\)/);
    // the row is back in its place, the API's order never changed, nothing said "moved"
    expect(await until(async () => (await shown(page)).slice(0, 12), before.slice(0, 12))).toEqual(before.slice(0, 12));
    expect((await order()).slice(0, 12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const announced = await page.locator('p.sr-only[role="status"]').innerText();
    expect(announced).not.toMatch(/moved/);
  } finally {
    await page.unroute('**/api/status', frozen);
  }
});

test('while admin holds the session, move handles, Edit, Delete, New and the switches are disabled and name admin', async () => {
  const { page, problems } = opened!;
  await page.getByTestId('live').filter({ hasText: 'locked by admin' }).waitFor(WAIT);
  await page.getByTestId('lock-note').waitFor(WAIT);
  expect(await page.getByTestId('lock-note').innerText()).toMatch(/Locked by admin/);
  const handle = page.getByRole('button', { name: 'Move policy 9', exact: true });
  expect(await handle.isDisabled()).toBe(true);
  expect(await handle.getAttribute('title')).toMatch(/Locked by admin/);
  for (const name of ['Edit policy 9', 'Delete policy 9', 'New policy', 'Disable shown', 'Enable shown']) {
    const b = page.getByRole('button', { name, exact: true });
    expect({ name, disabled: await b.isDisabled(), title: await b.getAttribute('title') }).toEqual({ name, disabled: true, title: expect.stringMatching(/admin/) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, 'policies-locked-1280');
  // the same on a table of named objects
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Addresses', exact: true }).click();
  await page.getByTestId('lock-note').waitFor(WAIT);
  expect(await page.getByRole('button', { name: 'New address' }).isDisabled()).toBe(true);
  // the lock ends: the controls come back without a reload
  await ok(d.client.post('/api/config/discard'));
  await page.getByTestId('lock-note').waitFor({ state: 'detached', ...WAIT });
  expect(await page.getByRole('button', { name: 'New address' }).isDisabled()).toBe(false);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies', exact: true }).click();
  const handle2 = page.getByRole('button', { name: 'Move policy 9', exact: true });
  await handle2.waitFor(WAIT);
  expect(await handle2.isDisabled()).toBe(false);
  expect(problems).toEqual([]);
});

test('a move the API takes is announced after its answer, and only then', async () => {
  const { page } = opened!;
  await page.getByRole('button', { name: 'Move policy 9', exact: true }).focus();
  await page.keyboard.press('ArrowUp');
  expect(await until(async () => (await order()).slice(0, 12), [1, 2, 3, 4, 5, 6, 7, 9, 8, 10, 11, 12])).toEqual([1, 2, 3, 4, 5, 6, 7, 9, 8, 10, 11, 12]);
  await page.locator('p.sr-only[role="status"]').filter({ hasText: 'policy 9 moved to position 8' }).waitFor(WAIT);
  await page.getByTestId('live').filter({ hasText: 'locked by op1 (1 change)' }).waitFor(WAIT);
  await ok(d.client.post('/api/config/discard?force=true'));
});
