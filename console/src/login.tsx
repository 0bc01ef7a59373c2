// The login form: "Username", "Password", "Log in".
import { useEffect, useState } from 'preact/hooks';
import { logIn, loginNotice } from './api';
import { describeError, Field } from './ui';

export function LoginPage() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => { document.title = 'Log in · fwd console'; }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await logIn(username, password);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login" id="main">
      <form class="card" aria-labelledby="login-h" onSubmit={submit}>
        <h1 id="login-h">fwd console</h1>
        {loginNotice.value && <p class="notice" role="status">{loginNotice.value}</p>}
        <Field label="Username" value={username} onInput={setUsername} autoComplete="username" required />
        <Field label="Password" type="password" value={password} onInput={setPassword} autoComplete="current-password" required />
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>Log in</button>
      </form>
    </main>
  );
}
