// DHCP lease sharing of an HA pair (issue 39, item 4; src/cluster/ha-leases.ts): the node
// whose dnsmasq serves publishes its lease file when it changed; the other makes the
// published leases its own on the notice; never its own publication, never while it serves.
import pino from 'pino';
import { HaLeaseShare, SHARE_MS } from '../../src/cluster/ha-leases';
import type { HaControl } from '../../src/dataplane/ha-types';
import type { SharedWork } from '../../src/store/cluster-bus';

/** One store of shared work for two nodes, with its notices. */
function store() {
  const values = new Map<string, string>();
  const listeners: Array<(what: string) => void> = [];
  const work = {
    put: async (what: string, value: string) => { values.set(what, value); listeners.forEach((l) => l(what)); },
    get: async (what: string) => values.get(what) ?? null,
  } as unknown as SharedWork;
  return { work, onNotice: (l: (what: string) => void) => listeners.push(l), values };
}

function node(serving: boolean, text: string) {
  const n = {
    serving, text, imported: [] as string[],
    ha: {
      leaseState: () => ({ enabled: true, serving: n.serving, text: n.text }),
      importLeases: async (t: string) => { n.imported.push(t); n.text = t; },
    } as unknown as HaControl,
  };
  return n;
}

const flush = () => new Promise((r) => setTimeout(r, 20));

beforeEach(() => jest.useFakeTimers({ doNotFake: ['setTimeout'] }));
afterEach(() => jest.useRealTimers());

test('the serving node publishes each change; the other takes it; neither takes its own nor while serving', async () => {
  const s = store();
  const a = node(true, '1 aa 10.0.0.100 one *\n');
  const b = node(false, '');
  const shares = [new HaLeaseShare(a.ha, s.work, s.onNotice, () => 'fw-a', pino({ level: 'silent' })), new HaLeaseShare(b.ha, s.work, s.onNotice, () => 'fw-b', pino({ level: 'silent' }))];
  shares.forEach((x) => x.start());
  jest.advanceTimersByTime(SHARE_MS);
  await flush();
  expect(JSON.parse(s.values.get('ha-leases')!)).toMatchObject({ node: 'fw-a', text: a.text });
  expect(b.imported).toEqual([a.text]);
  expect(a.imported).toEqual([]);
  // no change: nothing published again
  const before = s.values.get('ha-leases');
  jest.advanceTimersByTime(SHARE_MS);
  await flush();
  expect(s.values.get('ha-leases')).toBe(before);
  // b takes over: it publishes what its dnsmasq wrote; a (no longer serving) takes it
  a.serving = false;
  b.serving = true;
  b.text = '2 bb 10.0.0.101 two *\n';
  jest.advanceTimersByTime(SHARE_MS);
  await flush();
  expect(a.imported).toEqual([b.text]);
  expect(b.imported).toEqual(['1 aa 10.0.0.100 one *\n']);
  shares.forEach((x) => x.close());
});
