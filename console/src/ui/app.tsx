import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, errorText, setCsrfToken, whenUnauthorized } from '../api.js';
import type { AuthState } from '../types.js';
import { Login } from './login.js';
import { SessionList } from './session-list.js';
import { SessionView } from './session-view.js';

/** `#/` is the list, `#/s/ID` a session. */
function useRoute(): string | undefined {
  const read = () => /^#\/s\/([^/?#]+)/.exec(location.hash)?.[1];
  const [id, setId] = useState(() => {
    const m = read();
    return m ? decodeURIComponent(m) : undefined;
  });
  useEffect(() => {
    const on = () => {
      const m = read();
      setId(m ? decodeURIComponent(m) : undefined);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return id;
}

export function App() {
  const [auth, setAuth] = useState<AuthState | undefined>();
  const [error, setError] = useState<string | undefined>();
  const route = useRoute();
  const adopt = useCallback((a: AuthState) => {
    setCsrfToken(a.csrfToken);
    setAuth(a);
  }, []);
  const check = useCallback(() => {
    api<AuthState>('GET', '/auth/session').then(adopt, (e: unknown) => setError(errorText(e)));
  }, [adopt]);
  useEffect(() => {
    whenUnauthorized(check);
    check();
  }, [check]);
  useEffect(() => {
    document.title = route ? `ferret · session ${route.slice(0, 8)}` : 'ferret · sessions';
  }, [route]);

  const logout = async () => {
    await api('POST', '/auth/logout').catch(() => undefined);
    setCsrfToken(undefined);
    check();
  };

  if (error) {
    return (
      <main id="main" class="page">
        <h1>ferret</h1>
        <p class="error" role="alert">
          The server did not answer: {error}
        </p>
      </main>
    );
  }
  if (!auth) return <main id="main" class="page" aria-busy="true" />;
  if (!auth.authenticated) return <Login done={adopt} />;
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          ferret
        </a>
        <nav aria-label="Console">
          <a href="#/" aria-current={route ? undefined : 'page'}>
            Sessions
          </a>
        </nav>
        {auth.tokenRequired && (
          <button type="button" class="btn-small" onClick={() => void logout()}>
            Log out
          </button>
        )}
      </header>
      {route ? <SessionView key={route} id={route} onUnauthorized={check} /> : <SessionList />}
    </>
  );
}
