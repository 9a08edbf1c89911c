import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { AuthState } from '../types.js';

/** The token goes once, in a POST body, and comes back as an HttpOnly cookie: never in a URL or in storage. */
export function Login({ done }: { done: (a: AuthState) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const a = await api<AuthState>('POST', '/auth/login', { token });
      setToken('');
      done(a);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <main id="main" class="login">
      <h1>ferret</h1>
      <form
        class="card"
        method="post"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h2>Log in</h2>
        <p>This server has a token. Paste the value of <code>FERRET_SERVER_TOKEN</code>.</p>
        {/* For password managers: the token is this server's one credential. */}
        <input type="text" name="username" autocomplete="username" value={`ferret@${location.host}`} hidden readOnly />
        <label class="field">
          <span>Server token</span>
          <input type="password" name="token" autocomplete="current-password" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <button type="submit" class="btn btn-primary" disabled={busy || token === ''}>
          Log in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
