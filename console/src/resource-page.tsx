// A resource that is a set of named objects (addresses, zones, ...): a sortable, filterable
// table and its form; running or candidate view.
import { useMemo, useState } from 'preact/hooks';
import { naturalCompare } from './format';
import { api, asList } from './api';
import { removeObject, ResourceForm } from './form';
import type { ResourceDef } from './resources';
import { allowed, traced, view } from './state';
import { FilterBox, useSortFilter } from './table';
import type { ResourceKey, ResourceModels } from './types';
import { ErrorBox, Page, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable, type VColumn } from './virtual-table';
import { ViewSwitch } from './view-switch';
import { lockAttrs, LockNote } from './lock';

export function ResourcePage<K extends ResourceKey>({ def }: { def: ResourceDef<K> }) {
  const which = view.value;
  const loaded = useLoad(async () => asList(await api<ResourceModels[K][] | Record<string, ResourceModels[K]>>('GET', `${def.path}${which === 'candidate' ? '?config=candidate' : ''}`)), [def.key, which]);
  // named objects in natural order of their names (h-ext-12 before h-ext-102), whatever order the API lists them in
  const natural = useMemo(() => (loaded.data && def.key !== 'routes' ? [...loaded.data].sort((a, b) => naturalCompare(def.idOf(a), def.idOf(b))) : loaded.data), [loaded.data]);
  const t = useSortFilter(natural, def.columns);
  const [editing, setEditing] = useState<ResourceModels[K] | 'new' | null>(null);
  const mayChange = allowed('configure');
  const tracedRoute = def.key === 'routes' ? traced.value.route : null;

  const remove = (m: ResourceModels[K]) => removeObject(def, def.idOf(m), loaded.reload);

  return (
    <Page title={def.title} actions={<>
      <ViewSwitch />
      {mayChange && def.create && <button type="button" class="primary" {...lockAttrs()} onClick={() => setEditing('new')}>New {def.noun}</button>}
    </>}>
      {editing && (
        <ResourceForm key={editing === 'new' ? 'new' : def.idOf(editing)} def={def} editing={editing === 'new' ? null : editing}
          onDone={(changed) => { setEditing(null); if (changed) loaded.reload(); }} />
      )}
      <ErrorBox text={loaded.error} />
      {mayChange && <LockNote />}
      <div class="toolbar"><FilterBox value={t.filter} onInput={t.setFilter} /><span class="count">{t.shown.length} of {loaded.data?.length ?? 0}</span></div>
      <VirtualTable label={`${def.title} table`} caption={`${def.title} (${which})`} rows={t.shown} keyOf={(m) => def.idOf(m)}
        columns={[
          ...def.columns.map((c, i): VColumn<ResourceModels[K]> => ({
            label: c.label, width: c.width, rowHeader: i === 0, text: c.text,
            sort: { active: t.sort.col === i, dir: t.sort.dir, onSort: () => t.toggle(i) },
          })),
          ...(mayChange ? [{
            ...ACTIONS, cell: (m: ResourceModels[K]) => (
              <RowActions>
                <button type="button" {...lockAttrs()} onClick={() => setEditing(m)} aria-label={`Edit ${def.noun} ${def.idOf(m)}`}>Edit</button>
                {def.remove && <button type="button" class="danger" {...lockAttrs()} onClick={() => remove(m)} aria-label={`Delete ${def.noun} ${def.idOf(m)}`}>Delete</button>}
              </RowActions>
            ),
          }] : []),
        ]}
        rowProps={(m) => {
          const hit = tracedRoute !== null && String(tracedRoute) === def.idOf(m);
          return { class: hit ? 'traced' : undefined, 'aria-current': hit ? 'true' : undefined };
        }}
        empty={loaded.data ? `No ${def.title.toLowerCase()} in the ${which} configuration.` : undefined} />
    </Page>
  );
}
