// Who else holds the configuration session, as the controls that need it see it: while
// another user holds the lock, every change (move, edit, delete, create, switch) would be the
// API's 409, so the console offers none of them and names the owner instead (issue 43: move
// handles were offered, the row moved, and the status said "moved" for a refused move).
import { computed } from '@preact/signals';
import { login } from './api';
import { status } from './state';

/** The user holding the session when it is not the logged-in one; null otherwise. */
export const lockedBy = computed<string | null>(() => {
  const s = status.value?.session;
  return s?.active && s.owner !== login.value?.username ? s.owner : null;
});

/** Why a change control is off: the title of a disabled button. */
export const lockReason = (owner: string) => `Locked by ${owner}: changes wait until ${owner}'s session ends`;

/** Attributes of a control that needs the lock: disabled with the owner named while someone else holds it. */
export function lockAttrs(): { disabled?: boolean; title?: string } {
  const owner = lockedBy.value;
  return owner ? { disabled: true, title: lockReason(owner) } : {};
}

/** A line over a table whose changes are off: who holds the lock and what that means. */
export function LockNote() {
  const owner = lockedBy.value;
  if (!owner) return null;
  return <p class="lock-note" data-testid="lock-note">{lockReason(owner)}. You can look, not change.</p>;
}
