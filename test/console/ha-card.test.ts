// The console's HA card (issue 39) in a real browser: what GET /api/ha/status says of this node
// (its state, peer, virtual addresses), and the step-down button, whose refusal on a node that
// runs no pair (FW_DATAPLANE=none here: the packet test drives a real pair) is shown as the
// API's error. A viewer sees no button.
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, ADMIN_PASSWORD, ok, useDaemon } from '../helpers/daemon';
import { axeViolations, loggedInConsole, screenshot } from '../helpers/browser';

const d = useDaemon({ FW_NODE_ID: 'fw-a' });
let opened: { browser: BrowserContext; page: Page; problems: string[] } | undefined;
const WAIT = { timeout: 20_000 };

beforeAll(async () => {
  const c = d.client;
  await c.begin();
  const own = (x: number) => ({ eth1: [`10.0.0.${x}/24`], eth2: [`192.168.255.${x - 1}/30`] });
  await ok(c.put('/api/ha', {
    enabled: true, 'sync-interface': 'eth2', nodes: [{ node: 'fw-a', priority: 200, addresses: own(2) }, { node: 'fw-b', priority: 100, addresses: own(3) }],
    'virtual-addresses': [{ interface: 'eth1', vrid: 7, addresses: ['10.0.0.1/24'] }],
  }));
  await c.commit();
  opened = await loggedInConsole(d.url, ADMIN, ADMIN_PASSWORD);
}, 60_000);

afterAll(async () => {
  await opened?.browser.close();
});

test('the overview\'s HA card shows the node, its peer and the virtual addresses; a refused step-down shows the API\'s error', async () => {
  const { page, problems } = opened!;
  const card = page.getByRole('region', { name: 'High availability' });
  await card.getByTestId('ha-state').waitFor(WAIT);
  expect(await card.getByTestId('ha-state').textContent()).toBe('disabled');
  expect(await card.textContent()).toMatch(/fw-b \(priority 100\)[\s\S]*10\.0\.0\.1\/24 on eth1/);
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'ha-card');
  await card.getByRole('button', { name: 'Step down' }).click();
  await page.getByText(/ERR_SYS_3005/).first().waitFor(WAIT);
  expect(problems.filter((p) => !/409/.test(p))).toEqual([]);
});
