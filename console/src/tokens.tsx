// API tokens: one's own (create, revoke); admins and auditors see everyone's, admins revoke
// anyone's. A new token's secret is shown once.
import { useState } from 'preact/hooks';
import { api, login } from './api';
import { fieldErrorOf } from './field-errors';
import { allowed } from './state';
import type { ApiToken, CreatedToken, Role } from './types';
import { when } from './format';
import { ROLES, within } from '../../src/auth/roles';
import { attempt, describeError, ErrorBox, Field, Page, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable } from './virtual-table';
import { CopyButton } from './copy-button';

export function TokensPage() {
  const me = login.value!;
  const list = useLoad(() => api<ApiToken[]>('GET', '/api/tokens'), []);
  const mayCreate = allowed('tokens');
  // a token's role is at most one's own
  const roles = ROLES.filter((r) => within(r, me.role));
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>(roles.includes('viewer') ? 'viewer' : roles[roles.length - 1] ?? 'viewer');
  const [days, setDays] = useState('90');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<CreatedToken | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      const body: Record<string, unknown> = { name, role };
      if (days.trim()) body.expires_in = /^\d+$/.test(days.trim()) ? Number(days.trim()) * 86400 : days;
      setSecret(await api<CreatedToken>('POST', '/api/tokens', body));
      setName('');
      list.reload();
    } catch (err) {
      const at = fieldErrorOf(err);
      const field = at?.field === 'expires_in' ? 'days' : at?.field ?? '';
      if (field === 'name' || field === 'role' || field === 'days') setErrors({ [field]: at!.text });
      else setErrors({ '': describeError(err) });
    }
  };

  const revoke = (t: ApiToken) => {
    if (!confirm(`Revoke the token ${t.owner}/${t.name}?`)) return;
    const q = t.owner === me.username ? '' : `?owner=${encodeURIComponent(t.owner)}`;
    void attempt(async () => { await api('DELETE', `/api/tokens/${encodeURIComponent(t.name)}${q}`); list.reload(); }, `Token ${t.owner}/${t.name} revoked`);
  };
  const mayRevoke = (t: ApiToken) => (t.owner === me.username ? allowed('tokens') : allowed('users'));

  return (
    <Page title="API tokens">
      {mayCreate && (
        <form class="card inline" aria-label="New API token" onSubmit={create}>
          <Field label="Token name" value={name} onInput={setName} error={errors.name} required />
          <Field label="Token role" value={role} options={roles} onInput={(v) => setRole(v as Role)} error={errors.role} />
          <Field label="Valid for (days)" value={days} onInput={setDays} error={errors.days} hint="empty: no expiry" />
          <button type="submit" class="primary">Create token</button>
        </form>
      )}
      {secret && (
        <section class="card" role="status" aria-labelledby="secret-h">
          <h2 id="secret-h">Token {secret.name} ({secret.role})</h2>
          <p>Copy the secret now: it is not shown again.</p>
          <p class="mono secret" id="token-secret">{secret.token}</p>
          <div class="buttons">
            <CopyButton value={secret.token} label="Copy the token's secret" target="token-secret" />
            <button type="button" onClick={() => setSecret(null)}>Done</button>
          </div>
        </section>
      )}
      <ErrorBox text={errors[''] ?? list.error} />
      <VirtualTable label="API tokens table" caption="API tokens" rows={list.data ?? []} keyOf={(t) => `${t.owner}/${t.name}`} columns={[
        { label: 'Name', rowHeader: true, cell: (t) => t.name },
        { label: 'Owner', cell: (t) => t.owner },
        { label: 'Role', width: 7, cell: (t) => t.role },
        { label: 'Created', width: 14, cell: (t) => when(t.created_at) },
        { label: 'Expires', width: 14, cell: (t) => (t.expires_at ? when(t.expires_at) : 'never') },
        { label: 'Last used', width: 14, cell: (t) => (t.last_used_at ? when(t.last_used_at) : '—') },
        { ...ACTIONS, cell: (t) => mayRevoke(t) && <RowActions><button type="button" class="danger" onClick={() => revoke(t)} aria-label={`Revoke token ${t.owner}/${t.name}`}>Revoke</button></RowActions> },
      ]} empty={list.data ? 'No API tokens.' : undefined} />
    </Page>
  );
}

