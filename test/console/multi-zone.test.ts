// Several zones per rule in the console (issue 41 item 2): the policy form takes "lan, dmz"
// (sent as a list, one name as a string), the table shows both zones, the edit form shows them
// again, an edit to one zone stores one zone, and the API's refusal of an unknown zone in a
// list shows at the field.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, openPage, fillForm } from '../helpers/browser';
import { lanWan } from '../helpers/lan-wan';

const d = useDaemon();
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 15_000 };

beforeAll(async () => {
  await d.client.begin();
  await lanWan(d.client);
  await ok(d.client.put('/api/interfaces/eth2', { ip: '10.2.0.1/24' }));
  await ok(d.client.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['eth2'] }));
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
});

afterAll(async () => {
  await opened?.browser.close();
});

const open = (page: Page, link: string) => openPage(page, link, WAIT);

const srcZone = async (id: number) => (await ok(d.client.get(`/api/policies/${id}?config=candidate`))).body.srcZone;

test('a policy over two source zones is made, shown and edited through the form', async () => {
  const { page, problems } = opened!;
  await open(page, 'Policies');
  await page.getByRole('radio', { name: 'Candidate' }).check();
  await page.getByRole('button', { name: 'New policy' }).click();
  await fillForm(page, 'New policy', { Action: 'allow', 'Source zone': 'lan, dmz', 'Destination zone': 'wan' });
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('form', { name: 'New policy' }).waitFor({ state: 'detached', ...WAIT });
  expect((await srcZone(1)).map((z: { name: string }) => z.name)).toEqual(['lan', 'dmz']);
  await page.locator('tr[data-id="1"]').filter({ hasText: 'lan, dmz → wan' }).waitFor(WAIT);
  expect(await axeViolations(page)).toEqual([]);

  // an unknown zone in the list: shown at the field, nothing made
  await page.getByRole('button', { name: 'New policy' }).click();
  await fillForm(page, 'New policy', { Action: 'deny', 'Source zone': 'lan, nope' });
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('form', { name: 'New policy' }).getByText(/nope/).waitFor(WAIT);
  expect((await ok(d.client.get('/api/policies?config=candidate'))).body).toHaveLength(1);
  await page.getByRole('button', { name: 'Cancel' }).click();

  // the edit form shows both; an edit to one zone stores that zone's name
  await page.getByRole('button', { name: 'Edit policy 1' }).click();
  const field = page.getByRole('form', { name: 'Edit policy 1' }).getByLabel('Source zone', { exact: true });
  expect(await field.inputValue()).toBe('lan, dmz');
  await field.fill('dmz');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('form', { name: 'Edit policy 1' }).waitFor({ state: 'detached', ...WAIT });
  expect(await srcZone(1)).toEqual(expect.objectContaining({ name: 'dmz' }));
  await page.locator('tr[data-id="1"]').filter({ hasText: 'dmz → wan' }).waitFor(WAIT);
  expect(problems).toEqual([]);
});
