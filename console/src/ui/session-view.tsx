import type { ComponentChildren } from 'preact';
import { BridgePanel } from './bridge-panel.js';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText, FerretHttpError } from '../api.js';
import { SessionStore, type ProcessRecord } from '../session-store.js';
import { openEventStream, type Connection } from '../stream.js';
import { APPROVALS, MODES, type Approval, type Decision, type Mode, type ModelList, type Prompt, type SessionDetail } from '../types.js';
import { TurnChart } from './chart.js';
import { WorkspaceRoot } from './code-text.js';
import { unknownCommand } from '../slash.js';
import { CommandPicker, matchingCommands, useCommands } from './command-picker.js';
import { tokens, usd } from './format.js';
import { usePolling, useSubscription } from './hooks.js';
import { PermissionPrompt } from './permission-prompt.js';
import { Transcript } from './transcript.js';

const CONNECTION_TEXT: Record<Connection, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Disconnected: reconnecting…',
  failed: 'Disconnected',
};

/** Fetches the prompts after the store's last one; calls made while one is in flight run once more after it. */
function promptFetcher(id: string, store: () => SessionStore): () => void {
  let inflight = false;
  let again = false;
  return () => {
    if (inflight) {
      again = true;
      return;
    }
    inflight = true;
    void (async () => {
      try {
        do {
          again = false;
          const r = await api<{ prompts: Prompt[] }>('GET', `/session/${encodeURIComponent(id)}/prompts?after=${store().promptSeq}`);
          store().addPrompts(r.prompts);
        } while (again);
      } catch {
        // The next turn (or the next reload) fetches them again.
      } finally {
        inflight = false;
      }
    })();
  };
}

/** Ids this tab remembers across its own reloads (permissions it answered, turns it started; no secrets). */
function tabMemory(key: string): { has(id: string): boolean; add(id: string): void; delete(id: string): void } {
  const read = (): string[] => {
    try {
      return JSON.parse(sessionStorage.getItem(key) ?? '[]') as string[];
    } catch {
      return [];
    }
  };
  const ids = new Set(read());
  const save = () => sessionStorage.setItem(key, JSON.stringify([...ids].slice(-200)));
  return {
    has: (id) => ids.has(id),
    add: (id) => {
      ids.add(id);
      save();
    },
    delete: (id) => {
      ids.delete(id);
      save();
    },
  };
}

export function SessionView({ id, onUnauthorized }: { id: string; onUnauthorized: () => void }) {
  const { store, fetchPrompts } = useMemo(() => {
    const holder: { store?: SessionStore } = {};
    const fetchPrompts = promptFetcher(id, () => holder.store!);
    const store = (holder.store = new SessionStore(() => fetchPrompts()));
    return { store, fetchPrompts };
  }, [id]);
  useSubscription(useCallback((fn: () => void) => store.subscribe(fn), [store]));
  const [conn, setConn] = useState<{ c: Connection; why?: string }>({ c: 'connecting' });
  const [detail, setDetail] = useState<SessionDetail | undefined>();
  const [models, setModels] = useState<ModelList | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [gone, setGone] = useState<string | undefined>();
  const mine = useMemo(() => tabMemory(`ferret.answered.${id}`), [id]);
  const sentHere = useMemo(() => tabMemory(`ferret.sent.${id}`), [id]);

  useEffect(() => {
    fetchPrompts();
    const h = openEventStream(
      id,
      (f) => {
        if (f.event === 'loop_event') store.apply(f.data);
      },
      (c, e) => {
        if (e instanceof FerretHttpError && e.status === 401) onUnauthorized();
        if (e instanceof FerretHttpError && e.status === 404) setGone(e.serverMessage);
        setConn({ c, ...(e !== undefined ? { why: errorText(e) } : {}) });
      },
    );
    return () => h.close();
  }, [id, store, fetchPrompts, onUnauthorized]);

  const refresh = useCallback(async () => {
    try {
      setDetail(await api<SessionDetail>('GET', `/session/${encodeURIComponent(id)}`));
    } catch (e) {
      if (e instanceof FerretHttpError && e.status === 404) setGone(e.serverMessage);
    }
  }, [id]);
  usePolling(refresh, 3000, [refresh]);
  useEffect(() => {
    api<ModelList>('GET', '/models').then(setModels, () => undefined);
  }, []);

  const path = `/session/${encodeURIComponent(id)}`;
  const act = async (what: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await what();
    } catch (e) {
      setError(errorText(e));
    }
    void refresh();
  };
  const send = async (text: string): Promise<boolean> => {
    setError(undefined);
    try {
      const r = await api<{ turnId: string }>('POST', `${path}/message?wait=false`, { text });
      sentHere.add(r.turnId);
      store.addPending(text, r.turnId);
      fetchPrompts();
      void refresh();
      return true;
    } catch (e) {
      setError(e instanceof FerretHttpError && e.code === 'session_busy' ? 'A turn is running: stop it or wait for it to end.' : errorText(e));
      return false;
    }
  };
  const stop = () => act(() => api('POST', `${path}/cancel`));
  /** Retry on a failed turn: its message, sent again. */
  const retry = (turnId: string) => {
    const said = store.items.find((it) => it.kind === 'user' && it.turnId === turnId);
    if (said?.kind === 'user') void send(said.text);
  };
  const answer = async (permissionId: string, decision: Decision) => {
    mine.add(permissionId);
    try {
      await api('POST', `${path}/permission`, { id: permissionId, decision });
    } catch (e) {
      mine.delete(permissionId);
      // Someone else answered first: their permission_resolved is on its way and clears the prompt.
      if (e instanceof FerretHttpError && (e.code === 'already_decided' || e.code === 'permission_not_found')) return;
      throw e;
    }
  };

  // The stream knows first; the polled detail only until the stream has said anything.
  const running = store.lastSeq > 0 ? store.running : detail?.status === 'running';
  useEffect(() => {
    void refresh(); // a turn began or ended: the title, the cost and the settings may have changed
  }, [store.running, refresh]);
  const approval = store.approval ?? detail?.approval;
  const costUsd = Math.max(store.usage.usd, detail?.costUsd ?? 0);
  const pending = store.pending[0];
  const modelOptions = useMemo(() => {
    const list = models?.models ?? [];
    const current = detail?.model;
    return current && !list.some((m) => m.id === current) ? [{ id: current, name: current }, ...list] : list;
  }, [models, detail?.model]);

  if (gone) {
    return (
      <main id="main" class="page">
        <h1>Session not found</h1>
        <p>{gone}</p>
        <p>
          <a href="#/">Back to the sessions</a>
        </p>
      </main>
    );
  }

  return (
    <main id="main" class="session" data-session={id} data-running={running ? 'true' : 'false'}>
      <div class="session-main">
        <header class="session-head">
          <div class="crumb">
            <a href="#/">← All sessions</a>
          </div>
          <h1>{store.title ?? detail?.title ?? 'Session'}</h1>
          <p class="sub">
            <code>{detail?.cwd ?? ''}</code> · <span class="sid">{id}</span>
          </p>
          <div class="pills">
            <span class={`pill ${running ? 'pill-running' : 'pill-idle'}`} data-status={running ? 'running' : 'idle'}>
              {running ? 'running' : 'idle'}
            </span>
            <span class={`pill conn conn-${conn.c}`} role="status" data-connection={conn.c} title={conn.why}>
              {CONNECTION_TEXT[conn.c]}
            </span>
            {conn.c === 'failed' && (
              <button type="button" class="btn-small" onClick={() => location.reload()}>
                Reconnect
              </button>
            )}
          </div>
        </header>
        <Scroller version={store.version}>
          <WorkspaceRoot.Provider value={detail?.cwd}>
            <Transcript store={store} mine={(pid) => mine.has(pid)} sent={(t) => sentHere.has(t)} retry={running ? undefined : retry} restore={(turnId) => void send(`/rewind ${turnId}`)} />
          </WorkspaceRoot.Provider>
        </Scroller>
        {pending && <PermissionPrompt p={pending} more={store.pending.length - 1} answer={answer} />}
        {error && (
          <p class="error banner" role="alert">
            {error}
          </p>
        )}
        <Composer sessionId={id} running={running} send={send} stop={stop} />
      </div>
      <aside class="side" aria-label="Session settings and usage">
        <h2>Settings</h2>
        <label class="field">
          <span>Mode</span>
          <select value={detail?.mode ?? ''} onChange={(e) => void act(() => api('POST', `${path}/mode`, { mode: e.currentTarget.value as Mode }))}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Model</span>
          <select value={detail?.model ?? ''} onChange={(e) => void act(() => api('POST', `${path}/model`, { model: e.currentTarget.value }))}>
            {modelOptions.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Approval</span>
          <select value={approval ?? ''} onChange={(e) => void act(() => api('POST', `${path}/approval`, { preset: e.currentTarget.value as Approval }))}>
            {APPROVALS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <h2>Usage</h2>
        <dl class="usage">
          <dt>Cost</dt>
          <dd data-cost>{usd(costUsd)}</dd>
          <dt>Tokens</dt>
          <dd>
            {tokens(store.usage.input + store.usage.cache)} in · {tokens(store.usage.output + store.usage.reasoning)} out
          </dd>
          <dt>Context</dt>
          <dd>
            {store.contextWindow && store.contextUsed !== undefined ? (
              <>
                <meter min={0} max={store.contextWindow} value={store.contextUsed} aria-label="Context used" />{' '}
                {Math.round((100 * store.contextUsed) / store.contextWindow)}% of {tokens(store.contextWindow)}
              </>
            ) : store.contextUsed !== undefined ? (
              `${tokens(store.contextUsed)} tokens`
            ) : (
              '—'
            )}
          </dd>
          <dt>Turns</dt>
          <dd>{store.turns.length}</dd>
        </dl>
        <TurnChart turns={store.turns} />
        <BridgePanel sessionId={id} />
        <ProcessList processes={[...store.processes.values()]} />
      </aside>
    </main>
  );
}

/** Background processes the agent started: what runs now, and how the others ended. */
function ProcessList({ processes }: { processes: ProcessRecord[] }) {
  if (processes.length === 0) return null;
  const running = processes.filter((p) => p.running).length;
  return (
    <section class="processes" aria-label="Background processes">
      <h2>Background processes ({running} running)</h2>
      <ul>
        {processes.map((p) => (
          <li key={p.id} class={p.running ? 'running' : 'ended'}>
            <code>{p.id}</code> {p.running ? 'running' : `ended (${p.reason ?? 'exited'}${p.exitCode != null ? `, exit ${p.exitCode}` : ''})`}
            <div class="process-command">
              <code>{p.command.split('\n')[0]}</code>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The transcript's scroll box: it follows new output while the reader is at the bottom. */
function Scroller({ version, children }: { version: number; children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [version]);
  return (
    <div
      class="scroller"
      ref={ref}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {children}
    </div>
  );
}

function Composer({ sessionId, running, send, stop }: { sessionId: string; running: boolean; send: (text: string) => Promise<boolean>; stop: () => Promise<void> }) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  /** Why a message was not sent (an unknown command), said at the composer. */
  const [said, setSaid] = useState<string | undefined>();
  /** Typed during a turn: sent when it ends; Stop puts it back in the box. */
  const [queued, setQueued] = useState<string | undefined>();
  // Read again when a turn ends: a command file added meanwhile shows without a reload.
  const commands = useCommands(sessionId, running);
  useEffect(() => {
    if (running || queued === undefined) return;
    const t = queued;
    setQueued(undefined);
    void send(t).then((ok) => {
      if (!ok) setText((now) => (now ? `${t}\n${now}` : t));
    });
  }, [running, queued, send]);
  const items = dismissed ? [] : matchingCommands(text, commands);
  const pick = items[Math.min(active, items.length - 1)];
  const choose = (c: { name: string }) => {
    setText(`/${c.name} `);
    setActive(0);
  };
  const submit = async () => {
    const t = text.trim();
    if (!t || sending) return;
    // An unknown `/command` is answered here: sent, it would reach the model as a billed prompt.
    const unknown = unknownCommand(t, commands);
    if (unknown) return setSaid(unknown);
    setSaid(undefined);
    if (running) {
      // Enter during a turn queues the message (one at a time: a second one joins it).
      setQueued((q) => (q ? `${q}\n${t}` : t));
      setText('');
      return;
    }
    setSending(true);
    if (await send(t)) setText('');
    setSending(false);
  };
  /** Stop: the turn ends, and a queued message goes back into the box instead of being sent. */
  const stopAndKeep = () => {
    if (queued !== undefined) {
      setText((now) => (now ? `${queued}\n${now}` : queued));
      setQueued(undefined);
    }
    void stop();
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <CommandPicker items={items} active={Math.min(active, items.length - 1)} choose={choose} />
      {(said || queued) && (
        <p class={said ? 'composer-note error' : 'composer-note'} role={said ? 'alert' : 'status'}>
          {said ?? `Queued, sent when this turn ends: ${queued}`}
        </p>
      )}
      <label for="composer-text" class="sr-only">
        Message
      </label>
      <textarea
        id="composer-text"
        rows={3}
        placeholder={running ? 'A turn is running… (Esc stops it)' : 'Say what to do (Enter sends, Shift+Enter is a new line; type / for the commands)'}
        value={text}
        aria-autocomplete="list"
        // Only while the menu is there: an id that names nothing is an accessibility error.
        {...(pick ? { 'aria-controls': 'command-picker', 'aria-activedescendant': `command-${items.indexOf(pick)}` } : {})}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setActive(0);
          setDismissed(false);
        }}
        onKeyDown={(e) => {
          if (items.length > 0 && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault();
            setActive((i) => (Math.min(i, items.length - 1) + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
          } else if (pick && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && !e.isComposing && text !== `/${pick.name}`))) {
            // Tab, or Enter on a name not typed out yet, completes it; Enter on a whole name sends it.
            e.preventDefault();
            choose(pick);
          } else if (e.key === 'Escape' && items.length > 0) {
            e.preventDefault();
            setDismissed(true);
          } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void submit();
          } else if (e.key === 'Escape' && running) {
            e.preventDefault();
            stopAndKeep();
          }
        }}
      />
      <div class="composer-actions">
        <button type="submit" class="btn btn-primary" disabled={sending || text.trim() === ''} title={running ? 'Sent when the running turn ends' : undefined}>
          {running ? 'Queue' : 'Send'}
        </button>
        <button type="button" class="btn btn-stop" disabled={!running} onClick={stopAndKeep}>
          Stop
        </button>
      </div>
    </form>
  );
}
