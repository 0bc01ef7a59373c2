// Accounts and their roles: listed for roles that may audit, managed by those that hold the
// users permission.
import { useState } from 'preact/hooks';
import { api, ApiError, login } from './api';
import { allowed } from './state';
import type { Role, User } from './types';
import { when } from './format';
import { ROLES } from '../../src/auth/roles';
import { attempt, describeError, ErrorBox, Field, Page, useId, useLoad } from './ui';

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
      const field = err instanceof ApiError ? err.field : null;
      setErrors({ [field === 'username' || field === 'password' || field === 'role' ? field : '']: describeError(err) });
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
      <table class="grid">
        <caption class="sr-only">Accounts</caption>
        <thead><tr><th scope="col">Username</th><th scope="col">Role</th><th scope="col">Created</th>{manage && <th scope="col">Actions</th>}</tr></thead>
        <tbody>
          {(list.data ?? []).map((u) => (
            <tr key={u.username}>
              <th scope="row">{u.username}</th>
              <td>{manage && u.username !== login.value?.username ? <RoleSelect user={u} onChange={(r) => setUserRole(u.username, r)} /> : u.role}</td>
              <td>{when(u.created_at)}</td>
              {manage && <td><button type="button" class="danger" onClick={() => remove(u.username)} aria-label={`Delete user ${u.username}`}>Delete</button></td>}
            </tr>
          ))}
        </tbody>
      </table>
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
