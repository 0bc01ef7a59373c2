// A diff as fwctl prints it: one line per object (+ added, ~ changed, - deleted, ^ moved), the
// changed fields under their object (old -> new), a moved rule's positions and neighbours. A
// rule is named by its id, its name when it has one and its position (issue 43).
import type { DetailedDiffModel, DiffReplyModel } from '../api/routes/config';

type AnyDiff = DiffReplyModel | DetailedDiffModel;

function isDetailed(d: AnyDiff): d is DetailedDiffModel {
  return 'moved' in d;
}

export function changeCount(d: AnyDiff): number {
  return d.added.length + d.changed.length + d.deleted.length + (isDetailed(d) ? d.moved.length : d.reordered.length);
}

/** A field's value; an absent one (null, never set) reads "none", not `null`. */
const show = (v: unknown): string => (v === null || v === undefined ? 'none' : JSON.stringify(v));

function moveText(m: DetailedDiffModel['moved'][number]): string {
  const place = (n: { above: string | null; below: string | null }) =>
    (n.above === null ? 'at the top' : n.below === null ? 'at the bottom' : `between ${n.above} and ${n.below}`);
  return `position ${m.from} -> ${m.to}, now ${place(m.new_neighbours)} (was ${place(m.old_neighbours)})`;
}

/** An object as the diff names it: a rule by its id and its name when it has one ("12 web-in"). */
const label = (x: { key: string; name?: string }): string => (x.name ? `${x.key} ${x.name}` : x.key);

/** A rule's place in its table, when the answer gives it ("position 3", "was at position 3"). */
const at = (x: object, prefix: string): string | undefined =>
  ('position' in x && typeof x.position === 'number' ? `${prefix}position ${x.position}` : undefined);

/** The lines of a diff, with a summary line; "no changes" when there are none. */
export function diffText(d: AnyDiff): string {
  const rows: Array<{ sign: string; kind: string; key: string; note?: string; fields?: string[] }> = [
    ...d.added.map((x) => ({ sign: '+', kind: x.kind, key: label(x), note: at(x, '') })),
    ...d.changed.map((x) => ({ sign: '~', kind: x.kind, key: label(x), note: at(x, 'at '), fields: 'fields' in x ? x.fields.map((f) => `${f.field}: ${show(f.old)} -> ${show(f.new)}`) : [] })),
    ...d.deleted.map((x) => ({ sign: '-', kind: x.kind, key: label(x), note: at(x, 'was at ') })),
    ...(isDetailed(d) ? d.moved.map((m) => ({ sign: '^', kind: m.kind, key: label(m), note: moveText(m) })) : d.reordered.map((k) => ({ sign: '^', kind: k, key: 'reordered' }))),
  ];
  if (!rows.length) return `no changes against version ${d.base_version}\n`;
  const kindWidth = Math.max(4, ...rows.map((r) => r.kind.length));
  const keyWidth = Math.max(3, ...rows.map((r) => r.key.length));
  const lines = [`   ${'KIND'.padEnd(kindWidth)}  KEY`];
  for (const r of rows) {
    lines.push(`${r.sign}  ${r.kind.padEnd(kindWidth)}  ${r.note ? `${r.key.padEnd(keyWidth)}  ${r.note}` : r.key}`);
    for (const f of r.fields ?? []) lines.push(`       ${f}`);
  }
  // a detailed diff lists the moves themselves: "1 reordered, 1 moved" for one move said it twice
  const order = isDetailed(d) ? `${d.moved.length} moved` : `${d.reordered.length} reordered`;
  lines.push(`${d.added.length} to add, ${d.changed.length} to change, ${d.deleted.length} to delete, ${order} (against version ${d.base_version})`);
  return lines.join('\n') + '\n';
}
