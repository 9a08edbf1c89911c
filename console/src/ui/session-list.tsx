import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { APPROVALS, MODES, type ModelList, type SessionSummary } from '../types.js';
import { ago, usd } from './format.js';
import { usePolling } from './hooks.js';
import { matchesSearch, SessionRowActions } from './session-row-actions.js';

interface Created {
  sessionId: string;
}

function NewSession({ models }: { models: ModelList | undefined }) {
  const [cwd, setCwd] = useState('');
  const [model, setModel] = useState('');
  const [mode, setMode] = useState('');
  const [approval, setApproval] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const body = { ...(cwd.trim() ? { cwd: cwd.trim() } : {}), ...(model ? { model } : {}), ...(mode ? { mode } : {}), ...(approval ? { approval } : {}) };
      const s = await api<Created>('POST', '/session', body);
      location.hash = `#/s/${encodeURIComponent(s.sessionId)}`;
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <section class="card new-session" aria-labelledby="new-title">
      <h2 id="new-title">New session</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <label class="field">
          <span>Folder</span>
          <input name="cwd" value={cwd} placeholder="the server's folder" onInput={(e) => setCwd(e.currentTarget.value)} spellcheck={false} />
        </label>
        <label class="field">
          <span>Model</span>
          <select name="model" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
            <option value="">server default{models ? ` (${models.default})` : ''}</option>
            {(models?.models ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Mode</span>
          <select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            <option value="">server default</option>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Approval</span>
          <select name="approval" value={approval} onChange={(e) => setApproval(e.currentTarget.value)}>
            <option value="">server default</option>
            {APPROVALS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          Create session
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}

export function SessionList() {
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>();
  const [models, setModels] = useState<ModelList | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [now, setNow] = useState(Date.now());
  const [query, setQuery] = useState('');
  const [tick, setTick] = useState(0);
  usePolling(
    async () => {
      try {
        const r = await api<{ sessions: SessionSummary[] }>('GET', '/session');
        setSessions(r.sessions);
        setError(undefined);
      } catch (e) {
        setError(errorText(e));
      }
      setNow(Date.now());
    },
    2000,
    [tick],
  );
  const shown = sessions?.filter((s) => matchesSearch(s, query));
  useEffect(() => {
    api<ModelList>('GET', '/models').then(setModels, () => undefined);
  }, []);
  return (
    <main id="main" class="page">
      <h1>Sessions</h1>
      <NewSession models={models} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">All sessions</h2>
        <label class="field search">
          <span>Search</span>
          <input type="search" name="search" value={query} placeholder="title, folder, model or id" onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        {sessions === undefined || shown === undefined ? (
          <p>Loading…</p>
        ) : sessions.length === 0 ? (
          <p>No session yet.</p>
        ) : shown.length === 0 ? (
          <p>No session matches “{query}”.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Session table">
            <table class="sessions">
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Session</th>
                  <th scope="col">Folder</th>
                  <th scope="col">Model</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Approval</th>
                  <th scope="col" class="num">
                    Cost
                  </th>
                  <th scope="col">Active</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((s) => (
                  <tr key={s.sessionId} data-session={s.sessionId}>
                    <td>
                      <span class={`pill ${s.status === 'running' ? 'pill-running' : 'pill-idle'}`}>{s.status}</span>
                      {!s.live && <span class="pill pill-stored">stored</span>}
                    </td>
                    <td class="clip clip-wide" title={s.title}>
                      <a href={`#/s/${encodeURIComponent(s.sessionId)}`}>{s.title ?? s.sessionId.slice(0, 8)}</a>
                    </td>
                    <td class="clip" title={s.cwd}>
                      <code>{s.cwd}</code>
                    </td>
                    <td class="clip" title={s.model}>
                      {s.model}
                    </td>
                    <td>{s.mode}</td>
                    <td>{s.approval ?? '—'}</td>
                    <td class="num">{usd(s.costUsd)}</td>
                    <td>
                      <time dateTime={s.updatedAt} title={s.updatedAt}>
                        {ago(s.updatedAt, now)}
                      </time>
                    </td>
                    <td>
                      <SessionRowActions s={s} changed={() => setTick((t) => t + 1)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}
