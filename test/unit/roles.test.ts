// The roles table's derived rules: what a route's need admits, and the role an API token acts
// with when its owner's role has changed (never above either).
import { GRANTS, ROLES, allows, can, rolesFor, weakerOf, within } from '../../src/auth/roles';

test('admin holds every permission; each other role a strict subset', () => {
  for (const r of ROLES) expect(within(r, 'admin')).toBe(true);
  expect(within('admin', 'operator')).toBe(false);
  expect(within('operator', 'auditor') || within('auditor', 'operator')).toBe(false);
  expect(within('viewer', 'auditor') && within('viewer', 'operator')).toBe(true);
});

test('a list of permissions admits a role holding any one of them', () => {
  expect(allows('auditor', ['tokens', 'audit'])).toBe(true);
  expect(allows('operator', ['tokens', 'audit'])).toBe(true);
  expect(allows('viewer', ['tokens', 'audit'])).toBe(false);
  expect(rolesFor(['tokens', 'audit'])).toEqual(['admin', 'operator', 'auditor']);
  expect(rolesFor('users')).toEqual(['admin']);
});

test('weakerOf never grants what either role lacks, and is the strongest such role', () => {
  for (const a of ROLES) {
    for (const b of ROLES) {
      const w = weakerOf(a, b);
      if (w === null) {
        // only when no role fits under both (a feeder against a reader)
        expect(ROLES.some((r) => within(r, a) && within(r, b))).toBe(false);
        expect(weakerOf(b, a)).toBeNull();
        continue;
      }
      expect(within(w, a) && within(w, b)).toBe(true);
      // no role with more permissions also fits under both
      for (const r of ROLES) if (within(r, a) && within(r, b)) expect(GRANTS[r].length).toBeLessThanOrEqual(GRANTS[w].length);
      expect(weakerOf(b, a)).toBe(w);
    }
  }
  expect(weakerOf('operator', 'auditor')).toBe('viewer');
  expect(weakerOf('admin', 'operator')).toBe('operator');
  expect(can(weakerOf('admin', 'viewer')!, 'configure')).toBe(false);
});

test('feeder (issue 40) may feed dynamic sets and nothing else; operators and admins feed too', () => {
  expect(GRANTS.feeder).toEqual(['feed']);
  expect(rolesFor('feed')).toEqual(['admin', 'operator', 'feeder']);
  expect(can('feeder', 'read')).toBe(false);
  expect(weakerOf('feeder', 'operator')).toBe('feeder');
  expect(weakerOf('feeder', 'viewer')).toBeNull();
});
