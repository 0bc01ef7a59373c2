// Dynamic address sets (issue 40): the running sets, and the live entries of the one chosen,
// added and removed without a session (operators, admins; the entries change at once, no
// commit). The sets themselves are created in a session like every object (the API, fwctl apply).
import { useState } from 'preact/hooks';
import { api } from './api';
import { fieldErrorOf } from './field-errors';
import { allowed } from './state';
import { when } from './format';
import { attempt, describeError, ErrorBox, Field, Page, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable } from './virtual-table';

interface DynamicSet { name: string; family: string; 'max-entries': number; 'default-ttl': number }
interface Entries { name: string; size: number; 'max-entries': number; entries: Array<{ ip: string; expiresAt: string | null }> }

export function DynamicSetsPage() {
  const sets = useLoad(() => api<DynamicSet[]>('GET', '/api/dynamic-sets'), []);
  const [chosen, setChosen] = useState('');
  const name = chosen || sets.data?.[0]?.name || '';
  const entries = useLoad(() => (name ? api<Entries>('GET', `/api/dynamic-sets/${encodeURIComponent(name)}/entries`) : Promise.resolve(null)), [name]);
  const mayFeed = allowed('feed');
  const [ips, setIps] = useState('');
  const [ttl, setTtl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const path = `/api/dynamic-sets/${encodeURIComponent(name)}/entries`;

  const add = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      const body: Record<string, unknown> = { ips: ips.split(/[\s,]+/).filter((s) => s !== '') };
      if (ttl.trim()) body.ttl = /^\d+$/.test(ttl.trim()) ? Number(ttl.trim()) : ttl;
      await api('POST', path, body);
      setIps('');
      entries.reload();
    } catch (err) {
      const at = fieldErrorOf(err);
      const field = at?.field.startsWith('ips') ? 'ips' : at?.field ?? '';
      if (field === 'ips' || field === 'ttl') setErrors({ [field]: at!.text });
      else setErrors({ '': describeError(err) });
    }
  };
  const remove = (ip: string) => {
    void attempt(async () => { await api('DELETE', path, { ips: [ip] }); entries.reload(); }, `Entry ${ip} removed`);
  };

  return (
    <Page title="Dynamic sets">
      <ErrorBox text={errors[''] ?? sets.error ?? entries.error} />
      {sets.data && sets.data.length === 0 && <p>No dynamic set in the running configuration.</p>}
      {sets.data && sets.data.length > 0 && (
        <form class="card inline" aria-label="Dynamic set" onSubmit={(e) => e.preventDefault()}>
          <Field label="Set" value={name} options={sets.data.map((s) => s.name)} onInput={setChosen} />
        </form>
      )}
      {mayFeed && name && (
        <form class="card inline" aria-label="Add entries" onSubmit={add}>
          <Field label="Addresses" value={ips} onInput={setIps} error={errors.ips} hint="addresses or prefixes, separated by commas" required />
          <Field label="TTL (seconds)" value={ttl} onInput={setTtl} error={errors.ttl} hint={`empty: the set's default (${sets.data?.find((s) => s.name === name)?.['default-ttl'] ?? '?'} s); 0: until removed`} />
          <button type="submit" class="primary">Add entries</button>
        </form>
      )}
      {entries.data && <p>{entries.data.size} of at most {entries.data['max-entries']} entries.</p>}
      {name && (
        <VirtualTable label="Entries table" caption={`Entries of ${name}`} rows={entries.data?.entries ?? []} keyOf={(e) => e.ip} columns={[
          { label: 'Entry', rowHeader: true, cell: (e) => e.ip },
          { label: 'Expires', width: 16, cell: (e) => (e.expiresAt ? when(e.expiresAt) : 'never') },
          { ...ACTIONS, cell: (e) => mayFeed && <RowActions><button type="button" class="danger" onClick={() => remove(e.ip)} aria-label={`Remove entry ${e.ip}`}>Remove</button></RowActions> },
        ]} empty={entries.data ? 'No entries.' : undefined} />
      )}
    </Page>
  );
}
