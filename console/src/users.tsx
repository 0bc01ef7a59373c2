// Accounts (for roles that hold the users permission).
import { useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { User } from './types';
import { when } from './format';
import { attempt, describeError, ErrorBox, Field, Page, useLoad } from './ui';

export function UsersPage() {
  const list = useLoad(() => api<User[]>('GET', '/api/users'), []);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      await api('POST', '/api/users', { username, password });
      setUsername('');
      setPassword('');
      list.reload();
    } catch (err) {
      const field = err instanceof ApiError ? err.field : null;
      setErrors({ [field === 'username' || field === 'password' ? field : '']: describeError(err) });
    }
  };

  const remove = (name: string) => {
    if (!confirm(`Delete the account ${name}?`)) return;
    void attempt(async () => { await api('DELETE', `/api/users/${encodeURIComponent(name)}`); list.reload(); }, `Account ${name} deleted`);
  };

  return (
    <Page title="Users">
      <form class="card inline" aria-label="New user" onSubmit={create}>
        <Field label="New username" value={username} onInput={setUsername} error={errors.username} required autoComplete="off" />
        <Field label="New password" type="password" value={password} onInput={setPassword} error={errors.password} required autoComplete="new-password" hint="at least 12 characters" />
        <button type="submit" class="primary">Create user</button>
      </form>
      <ErrorBox text={errors[''] ?? list.error} />
      <table class="grid">
        <caption class="sr-only">Accounts</caption>
        <thead><tr><th scope="col">Username</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {(list.data ?? []).map((u) => (
            <tr key={u.username}><th scope="row">{u.username}</th><td>{when(u.created_at)}</td>
              <td><button type="button" class="danger" onClick={() => remove(u.username)} aria-label={`Delete user ${u.username}`}>Delete</button></td></tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
