// Running or candidate: the candidate exists only in one's own session.
import { ownSession, view } from './state';

export function ViewSwitch() {
  const own = ownSession.value;
  return (
    <fieldset class="switch">
      <legend class="sr-only">Configuration shown</legend>
      {(['running', 'candidate'] as const).map((v) => (
        <label key={v} class={view.value === v ? 'on' : undefined}>
          <input type="radio" name="view" value={v} checked={view.value === v} disabled={v === 'candidate' && !own}
            onChange={() => { view.value = v; }} />
          {v === 'running' ? 'Running' : 'Candidate'}
        </label>
      ))}
    </fieldset>
  );
}
