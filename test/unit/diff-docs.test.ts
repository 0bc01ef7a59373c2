// diffDocs against its definition (every object compared as JSON, the order of the rules both
// tables hold compared as joined lists), on random documents and random edits of them: the
// in-place path (same ids at the same positions) and the map path give the same diff.
import fc from 'fast-check';
import { cloneDoc, workingCopy } from '../../src/config/document';
import { diffDocs, type ConfigDiff } from '../../src/config/diff';
import type { ConfigDoc } from '../../src/config/types';
import { LARGE, specArb, specDoc } from '../eval/helpers';

function reference(a: ConfigDoc, b: ConfigDoc): ConfigDiff {
  const out: ConfigDiff = { added: [], changed: [], deleted: [], reordered: [] };
  const entries = (d: ConfigDoc): Record<string, Array<[string, unknown]>> => ({
    address: [...d.addresses], service: [...d.services], zone: [...d.zones], interface: [...d.interfaces], vlan: [...d.vlans], dhcp: [...d.dhcp],
    route: d.routes.map((r) => [String(r.id), r]), policy: d.policies.map((r) => [String(r.id), r]), nat: d.nat.map((r) => [String(r.id), r]),
  });
  const before = entries(a), after = entries(b);
  for (const kind of Object.keys(before)) {
    const old = new Map(before[kind]);
    const neu = new Map(after[kind]);
    for (const [key, value] of neu) {
      if (!old.has(key)) out.added.push({ kind, key });
      else if (JSON.stringify(old.get(key)) !== JSON.stringify(value)) out.changed.push({ kind, key });
    }
    for (const key of old.keys()) if (!neu.has(key)) out.deleted.push({ kind, key });
  }
  const order = (x: Array<[string, unknown]>, y: Array<[string, unknown]>) => {
    const inY = new Set(y.map(([k]) => k)), inX = new Set(x.map(([k]) => k));
    return x.filter(([k]) => inY.has(k)).map(([k]) => k).join(',') !== y.filter(([k]) => inX.has(k)).map(([k]) => k).join(',');
  };
  if (order(before.policy, after.policy)) out.reordered.push('policies');
  if (order(before.nat, after.nat)) out.reordered.push('nat');
  return out;
}

const editArb = fc.array(fc.record({ kind: fc.constantFrom('flip', 'delete', 'move', 'insert', 'addr', 'nat'), at: fc.nat(), to: fc.nat() }), { maxLength: 4 });

test('diffDocs is its definition on random edits (shared and copied objects)', () => {
  fc.assert(
    fc.property(specArb(LARGE, { disabled: true }), editArb, fc.boolean(), (spec, edits, copy) => {
      const a = specDoc(spec);
      const b = copy ? cloneDoc(a) : workingCopy(a);
      b.policies = [...b.policies];
      b.nat = [...b.nat];
      for (const e of edits) {
        const ps = b.policies;
        if (e.kind === 'addr' && b.addresses.size) {
          const name = [...b.addresses.keys()][e.at % b.addresses.size];
          b.addresses.set(name, { name, ips: ['192.0.2.1/32'] });
        } else if (e.kind === 'nat' && b.nat.length) b.nat.splice(e.at % b.nat.length, 1);
        else if (!ps.length) continue;
        else if (e.kind === 'flip') { const k = e.at % ps.length; ps[k] = { ...ps[k], action: ps[k].action === 'allow' ? 'deny' : 'allow' }; }
        else if (e.kind === 'delete') ps.splice(e.at % ps.length, 1);
        else if (e.kind === 'move') { const [x] = ps.splice(e.at % ps.length, 1); ps.splice(e.to % (ps.length + 1), 0, x); }
        else if (e.kind === 'insert') ps.splice(e.at % (ps.length + 1), 0, { ...ps[e.to % ps.length], id: 1000 + e.to });
      }
      expect(diffDocs(a, b)).toEqual(reference(a, b));
    }),
    { numRuns: 300 },
  );
});
