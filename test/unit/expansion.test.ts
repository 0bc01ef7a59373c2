// The expansion budget's count (src/config/expansion.ts) and its settings (issue 38).
import { emptyDoc } from '../../src/config/document';
import { checkExpansion, expansionOf } from '../../src/config/expansion';
import { GroupFlattener } from '../../src/config/groups';
import type { ConfigDoc, PolicyObj } from '../../src/config/types';
import { loadSettings } from '../../src/settings';

function doc(): ConfigDoc {
  const d = emptyDoc(['eth0']);
  d.addresses.set('x', { name: 'x', ips: ['10.0.0.0/24', '10.0.1.0/24'] });
  d.addresses.set('y', { name: 'y', ips: ['10.0.1.0/24', '10.0.2.0/24', '10.0.3.0/24'] });
  d.addressGroups.set('xy', { name: 'xy', members: ['x', 'y'], description: '' });
  d.addressGroups.set('only-xy', { name: 'only-xy', members: ['xy'], description: '' });
  d.addressGroups.set('unused', { name: 'unused', members: ['xy', 'x'], description: '' });
  return d;
}

const rule = (id: number, src: string, dst: string) => ({ id, name: '', description: '', action: 'allow', srcZone: '', dstZone: '', srcAddr: src, dstAddr: dst, services: [], log: false }) as unknown as PolicyObj;

test('rules count 1; each named address or group its prefixes once (a group: the sum of its members); unnamed groups nothing', () => {
  const d = doc();
  expect(expansionOf(d)).toEqual({ total: 0, rules: 0, prefixes: 0, top: [] });
  d.policies = [rule(1, 'only-xy', 'x'), rule(2, 'only-xy', ''), rule(3, 'any', 'y')];
  const e = expansionOf(d);
  // only-xy: 2 + 3 (the shared 10.0.1.0/24 counted twice, as flattening walks it); x 2; y 3
  expect(e).toEqual({ total: 3 + 5 + 2 + 3, rules: 3, prefixes: 10, top: [
    { name: 'only-xy', kind: 'address group', prefixes: 5, rules: 2 },
    { name: 'y', kind: 'address', prefixes: 3, rules: 1 },
    { name: 'x', kind: 'address', prefixes: 2, rules: 1 },
  ] });
  expect(() => checkExpansion(d, 13)).not.toThrow();
  let refusal: unknown;
  try { checkExpansion(d, 12); } catch (e) { refusal = e; }
  expect(refusal).toEqual(expect.objectContaining({ code: 'ERR_NET_1008', status: 400 }));
  expect((refusal as { details: string }).details).toMatch(/expands to 13 prefixes and rules, over the limit of 12 .*biggest: address group "only-xy" 5 prefixes \(named by 2 rules\)/);
  expect(() => checkExpansion(d, 12, 13)).not.toThrow(); // not grown
});

test('a group is flattened when looked up, and one holding one group shares its networks', () => {
  const g = new GroupFlattener(doc());
  const all = g.addresses();
  expect(all.has('unused') && all.has('x') && !all.has('nope')).toBe(true);
  expect(all.size).toBe(5);
  expect(all.get('xy')!.ips).toEqual(['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24', '10.0.3.0/24']);
  expect(all.get('only-xy')!.ips).toBe(all.get('xy')!.ips);
  // a group whose other members add nothing shares its first member's array too
  expect(all.get('unused')!.ips).toBe(all.get('xy')!.ips);
  expect([...all.keys()].sort()).toEqual(['only-xy', 'unused', 'x', 'xy', 'y']);
});

test('settings: FW_MAX_EXPANSION (default 2,000,000, at least 1,000), FW_COMPILE_TIMEOUT_MS (default and at most FW_COMMIT_TIMEOUT)', () => {
  expect(loadSettings({})).toEqual(expect.objectContaining({ maxExpansion: 2_000_000, compileTimeoutMs: 60_000 }));
  expect(loadSettings({ FW_MAX_EXPANSION: '5000000', FW_COMPILE_TIMEOUT_MS: '250' })).toEqual(expect.objectContaining({ maxExpansion: 5_000_000, compileTimeoutMs: 250 }));
  expect(loadSettings({ FW_COMMIT_TIMEOUT: '5', FW_COMPILE_TIMEOUT_MS: '9000' }).compileTimeoutMs).toBe(5000);
  expect(() => loadSettings({ FW_MAX_EXPANSION: '999' })).toThrow(/FW_MAX_EXPANSION/);
  expect(() => loadSettings({ FW_COMPILE_TIMEOUT_MS: '10' })).toThrow(/FW_COMPILE_TIMEOUT_MS/);
});
