// Search across every object type (GET /api/search: by address, name, port or tag) and where an
// object is used (GET /api/{kind}/{name}/usage), with each result a link to its table.
import { useState } from 'preact/hooks';
import { api } from './api';
import { view } from './state';
import { attempt, ErrorBox, Field, Link, Page } from './ui';
import { VirtualTable } from './virtual-table';
import { ViewSwitch } from './view-switch';
import { loadRuleNames, namesRules, ruleLabel, type RuleNames } from './rule-names';

interface Hit { kind: string; key: string; match?: string }

const BY = ['address', 'name', 'port', 'tag', 'used by'] as const;
const USED_KINDS = ['addresses', 'services', 'address-groups', 'service-groups', 'zones', 'interfaces', 'vlans'] as const;
const PAGE_OF: Record<string, string> = {
  address: '/addresses', service: '/services', 'address-group': '/address-groups', 'service-group': '/service-groups', zone: '/zones', interface: '/interfaces', vlan: '/vlans', dhcp: '/dhcp', route: '/routes', policy: '/policies', nat: '/nat',
};

/** The table a result is in; a policy or NAT rule filtered to itself ("#12 "). */
const hrefOf = (h: Hit) => (h.kind === 'policy' || h.kind === 'nat' ? `${PAGE_OF[h.kind]}?filter=%23${h.key}%20` : PAGE_OF[h.kind] ?? '/');

export function SearchPage() {
  const [by, setBy] = useState<(typeof BY)[number]>('address');
  const [kind, setKind] = useState<(typeof USED_KINDS)[number]>('addresses');
  const [value, setValue] = useState('');
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [names, setNames] = useState<RuleNames | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const q = view.value === 'candidate' ? 'config=candidate' : '';
    const ok = await attempt(async () => {
      if (by === 'used by') {
        const r = await api<{ used_by: Hit[] }>('GET', `/api/${kind}/${encodeURIComponent(value)}/usage${q ? `?${q}` : ''}`);
        showHits(r.used_by);
      } else {
        const r = await api<{ results: Hit[] }>('GET', `/api/search?${by}=${encodeURIComponent(value)}${q ? `&${q}` : ''}`);
        showHits(r.results);
      }
    });
    if (!ok) setHits(null);
  };
  // rules found are named beside their ids ("#12 web-in"), read once the results name a rule
  const showHits = (found: Hit[]) => {
    setHits(found);
    setNames(null);
    if (namesRules(found)) void loadRuleNames(view.value === 'candidate').then(setNames, () => undefined);
  };
  return (
    <Page title="Search" actions={<ViewSwitch />}>
      <form class="card inline" aria-label="Search objects" onSubmit={submit}>
        <Field label="Search by" value={by} options={[...BY]} onInput={(v) => setBy(v as typeof by)} />
        {by === 'used by' && <Field label="Object type" value={kind} options={[...USED_KINDS]} onInput={(v) => setKind(v as typeof kind)} />}
        <Field label={by === 'used by' ? 'Object name' : by === 'address' ? 'IP address' : by === 'port' ? 'Port' : by === 'tag' ? 'Tag' : 'Name'} value={value} onInput={setValue} required />
        <div class="buttons"><button type="submit" class="primary">Search</button></div>
      </form>
      <ErrorBox text={error} />
      {hits && (
        <section class="card" aria-labelledby="results-h">
          <h2 id="results-h">{hits.length} result{hits.length === 1 ? '' : 's'}</h2>
          {hits.length > 0 && (
            <VirtualTable label="Search results table" caption="Search results" rows={hits} keyOf={(h) => `${h.kind}-${h.key}`} columns={[
              { label: 'Kind', width: 8, cell: (h) => h.kind },
              { label: 'Object', rowHeader: true, cell: (h) => <Link href={hrefOf(h)}>{ruleLabel(h.kind, h.key, names)}</Link> },
              { label: 'Matched', cell: (h) => h.match ?? 'references it', title: (h) => h.match },
            ]} />
          )}
        </section>
      )}
    </Page>
  );
}
