import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { SessionSummary } from '../types.js';

/** Whether a session matches the search box: its title, id, folder or model holds every word. */
export function matchesSearch(s: SessionSummary, query: string): boolean {
  const hay = [s.title ?? '', s.sessionId, s.cwd, s.model].join(' ').toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((w) => hay.includes(w));
}

/**
 * Rename and Delete for one row of the session list. Rename edits the title in place (Enter
 * saves, Esc leaves it); Delete asks first and is refused by the server while a turn runs.
 * `changed` refreshes the list after either.
 */
export function SessionRowActions({ s, changed }: { s: SessionSummary; changed: () => void }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const label = s.title ?? s.sessionId.slice(0, 8);
  const save = async () => {
    try {
      await api('PATCH', `/session/${encodeURIComponent(s.sessionId)}`, { title });
      setEditing(false);
      setError(undefined);
      changed();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the session "${label}"? Its history is removed for good.`)) return;
    try {
      await api('DELETE', `/session/${encodeURIComponent(s.sessionId)}`);
      changed();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div class="row-actions">
      {editing ? (
        <form
          class="rename"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <input
            aria-label={`New title for ${label}`}
            value={title}
            maxLength={200}
            autoFocus
            onInput={(e) => setTitle(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
          />
          <button type="submit" class="btn btn-small">
            Save
          </button>
        </form>
      ) : (
        <>
          <button
            type="button"
            class="btn btn-small"
            aria-label={`Rename ${label}`}
            onClick={() => {
              setTitle(s.title ?? '');
              setEditing(true);
            }}
          >
            Rename
          </button>
          <button type="button" class="btn btn-small btn-danger" aria-label={`Delete ${label}`} disabled={s.status === 'running'} title={s.status === 'running' ? 'A turn is running: stop it first' : undefined} onClick={() => void remove()}>
            Delete
          </button>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
