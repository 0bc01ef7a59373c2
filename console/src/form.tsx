// The create/edit form of any resource: one labelled field per API field, the API's error
// details shown at the field they name (ERR_* details start with `field "name"`).
import { useState } from 'preact/hooks';
import { api, asList } from './api';
import { fieldErrorOf } from './field-errors';
import { bodyOf, type FormValues, type RefKind, type ResourceDef } from './resources';
import type { ResourceKey, ResourceModels } from './types';
import { attempt, Checkbox, describeError, ErrorBox, Field, useLoad } from './ui';
import { ensureSession, refreshStatus, say, view } from './state';
import { AT_BOTTOM, PlacementFields, placementBody, type PlacementValue } from './placement';

interface Props<K extends ResourceKey> {
  def: ResourceDef<K>;
  editing: ResourceModels[K] | null;
  onDone: (changed: boolean) => void;
  /** ordered rule tables: the ids in evaluation order, to place a new rule among them */
  placeAmong?: number[];
}

// a group goes wherever an object of its kind does, so its names are suggested with them
const REF_PATHS: Record<RefKind, string[]> = {
  zones: ['/api/zones'], addresses: ['/api/addresses', '/api/address-groups'], services: ['/api/services', '/api/service-groups'], interfaces: ['/api/interfaces'], schedules: ['/api/schedules'],
};

/** Names to suggest for reference fields (a datalist per kind). */
function useRefNames(kinds: RefKind[]): Partial<Record<RefKind, string[]>> {
  const loaded = useLoad(async () => {
    const out: Partial<Record<RefKind, string[]>> = {};
    const q = view.value === 'candidate' ? '?config=candidate' : '';
    await Promise.all(kinds.map(async (k) => {
      const lists = await Promise.all(REF_PATHS[k].map((path) => api<{ name: string }[] | Record<string, { name: string }>>('GET', path + q)));
      out[k] = lists.flatMap((l) => asList(l).map((x) => x.name));
    }));
    return out;
  }, [kinds.join(), view.value]);
  return loaded.data ?? {};
}

/** Deletes an object from the candidate after the user confirms (a session begun if needed). */
export function removeObject<K extends ResourceKey>(def: ResourceDef<K>, id: string, done: () => void): void {
  if (!confirm(`Delete ${def.noun} ${id} from the candidate?`)) return;
  void attempt(async () => {
    await ensureSession();
    await api('DELETE', `${def.path}/${encodeURIComponent(id)}`);
    await refreshStatus();
    done();
  }, `${def.noun} ${id} deleted from the candidate`);
}

/** A new object's form: each choice on its first option. */
function defaults<K extends ResourceKey>(def: ResourceDef<K>): FormValues {
  const out: FormValues = {};
  for (const f of def.fields) if (f.options) out[f.key] = f.options[0];
  return out;
}

export function ResourceForm<K extends ResourceKey>({ def, editing, onDone, placeAmong }: Props<K>) {
  const [values, setValues] = useState<FormValues>(() => (editing ? def.formOf(editing) : defaults(def)));
  const [placement, setPlacement] = useState<PlacementValue>(AT_BOTTOM);
  const placing = !editing && placeAmong !== undefined;
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refs = useRefNames([...new Set(def.fields.map((f) => f.ref).filter((r): r is RefKind => !!r))]);
  const title = editing ? `Edit ${def.noun} ${def.idOf(editing)}` : `New ${def.noun}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral(null);
    try {
      await ensureSession();
      const body = { ...bodyOf(def.fields, values, !editing), ...(placing ? placementBody(placement) : {}) };
      if (editing) await api('PUT', `${def.path}/${encodeURIComponent(def.idOf(editing))}`, body);
      else await api('POST', def.path, body);
      say(editing ? `${def.noun} ${def.idOf(editing)} updated in the candidate` : `${def.noun} created in the candidate`);
      void refreshStatus();
      onDone(true);
    } catch (err) {
      const at = fieldErrorOf(err);
      const known = at !== null && (def.fields.some((f) => f.key === at.field) || (placing && (at.field === 'position' || at.field === 'reference_id')));
      if (known) setErrors({ [at.field]: at.text });
      else setGeneral(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form" aria-label={title} onSubmit={submit}>
      <h2>{title}</h2>
      <ErrorBox text={general} />
      <div class="fields">
        {def.fields.map((f) => {
          if (f.kind === 'bool') {
            return <Checkbox key={f.key} label={f.label} checked={values[f.key] === true} onChange={(v) => setValues({ ...values, [f.key]: v })} />;
          }
          const list = f.ref ? `dl-${def.key}-${f.key}` : undefined;
          return (
            <div key={f.key}>
              <Field label={f.label} value={String(values[f.key] ?? '')}
                onInput={(v) => setValues({ ...values, [f.key]: v })} error={errors[f.key]} hint={f.hint}
                options={f.options} required={f.required && !editing} list={list} readOnly={!!editing && f.fixed} />
              {list && <datalist id={list}>{(refs[f.ref!] ?? []).map((n) => <option key={n} value={n} />)}</datalist>}
            </div>
          );
        })}
      </div>
      {placing && <PlacementFields value={placement} ids={placeAmong!} noun={def.noun} errors={errors} onChange={setPlacement} />}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>{editing ? 'Save' : 'Create'}</button>
        <button type="button" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
