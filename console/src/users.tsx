// Accounts and their roles: listed for roles that may audit, managed by those that hold the
// users permission.
import { useState } from 'preact/hooks';
import { api, login } from './api';
import { fieldErrorOf } from './field-errors';
import { allowed } from './state';
import type { Role, User } from './types';
import { when } from './format';
import { ROLES } from '../../src/auth/roles';
import { attempt, describeError, ErrorBox, Field, Page, useId, useLoad } from './ui';
import { ACTIONS, RowActions, VirtualTable } from './virtual-table';

export function UsersPage() {
  const list = useLoad(() => api<User[]>('GET', '/api/users'), []);
  const manage = allowed('users');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      await api('POST', '/api/users', { username, password, role });
      setUsername('');
      setPassword('');
      list.reload();
    } catch (err) {
      const at = fieldErrorOf(err);
      const field = at?.field ?? '';
      if (field === 'username' || field === 'password' || field === 'role') setErrors({ [field]: at!.text });
      else setErrors({ '': describeError(err) });
    }
  };

  const remove = (name: string) => {
    if (!confirm(`Delete the account ${name}?`)) return;
    void attempt(async () => { await api('DELETE', `/api/users/${encodeURIComponent(name)}`); list.reload(); }, `Account ${name} deleted`);
  };
  const setUserRole = (name: string, r: string) =>
    void attempt(async () => { await api('PUT', `/api/users/${encodeURIComponent(name)}`, { role: r }); list.reload(); }, `${name} is now ${r}`);

  return (
    <Page title="Users">
      {manage && (
        <form class="card inline" aria-label="New user" onSubmit={create}>
          <Field label="New username" value={username} onInput={setUsername} error={errors.username} required autoComplete="off" />
          <Field label="New password" type="password" value={password} onInput={setPassword} error={errors.password} required autoComplete="new-password" hint="at least 12 characters" />
          <Field label="Role" value={role} options={ROLES} onInput={(v) => setRole(v as Role)} error={errors.role} />
          <button type="submit" class="primary">Create user</button>
        </form>
      )}
      <ErrorBox text={errors[''] ?? list.error} />
      <VirtualTable label="Users table" caption="Accounts" rows={list.data ?? []} keyOf={(u) => u.username} columns={[
        { label: 'Username', rowHeader: true, cell: (u) => u.username },
        { label: 'Role', width: 10, cell: (u) => (manage && u.username !== login.value?.username ? <RoleSelect user={u} onChange={(r) => setUserRole(u.username, r)} /> : u.role) },
        { label: 'Created', width: 14, cell: (u) => when(u.created_at) },
        ...(manage ? [{ ...ACTIONS, cell: (u: User) => <RowActions><button type="button" class="danger" onClick={() => remove(u.username)} aria-label={`Delete user ${u.username}`}>Delete</button></RowActions> }] : []),
      ]} />
    </Page>
  );
}

function RoleSelect({ user, onChange }: { user: User; onChange: (r: string) => void }) {
  const id = useId('role');
  return (
    <>
      <label for={id} class="sr-only">Role of {user.username}</label>
      <select id={id} value={user.role} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
      </select>
    </>
  );
}
