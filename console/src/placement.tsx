// Where a new policy or NAT rule lands: the create's `position` and `reference_id` (as a move),
// chosen in the form, with the resulting place spelled out before the rule is created.
import { Field } from './ui';

export interface PlacementValue {
  position: 'bottom' | 'top' | 'before' | 'after';
  reference: string;
}

export const AT_BOTTOM: PlacementValue = { position: 'bottom', reference: '' };

/** The create body's placement fields (none at the bottom: the seed's payload). */
export function placementBody(p: PlacementValue): Record<string, unknown> {
  if (p.position === 'bottom') return {};
  if (p.position === 'top') return { position: 'top' };
  return { position: p.position, reference_id: Number(p.reference) };
}

/** "Lands at position 3 of 10, between #4 and #7", for the rules in evaluation order. */
export function landingText(p: PlacementValue, ids: number[], noun: string): string {
  const at = p.position === 'top' ? 0 : p.position === 'bottom' ? ids.length : ids.indexOf(Number(p.reference));
  if (at < 0) return `choose the ${noun} it goes ${p.position}`;
  const index = p.position === 'after' ? at + 1 : at;
  const above = index > 0 ? `#${ids[index - 1]}` : null;
  const below = index < ids.length ? `#${ids[index]}` : null;
  const where = above && below ? `between ${above} and ${below}` : above ? `after ${above}, at the bottom` : below ? `before ${below}, at the top` : 'the only one';
  return `Lands at position ${index + 1} of ${ids.length + 1}, ${where}`;
}

export function PlacementFields(p: { value: PlacementValue; ids: number[]; noun: string; errors: Record<string, string>; onChange: (v: PlacementValue) => void }) {
  const needsReference = p.value.position === 'before' || p.value.position === 'after';
  return (
    <div class="placement">
      <Field label="Place" value={p.value.position} options={['bottom', 'top', 'before', 'after']} error={p.errors.position}
        onInput={(v) => p.onChange({ ...p.value, position: v as PlacementValue['position'], reference: p.value.reference || String(p.ids[0] ?? '') })} />
      {needsReference && (
        <Field label={`${p.noun} it goes ${p.value.position}`} value={p.value.reference} options={p.ids.map(String)} error={p.errors.reference_id}
          onInput={(v) => p.onChange({ ...p.value, reference: v })} />
      )}
      <p class="landing" role="status">{landingText(p.value, p.ids, p.noun)}</p>
    </div>
  );
}
