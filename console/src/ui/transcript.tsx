import type { Item, SessionStore } from '../session-store.js';
import { DiffView } from './diff-view.js';
import { speaker } from './format.js';
import { PlanView } from './plan-view.js';
import { Markdown } from './markdown-view.js';
import { PermissionNote, ToolCard } from './tool-card.js';

// Every stop reason has its line, so a new one fails to compile here rather than render nothing.
const STOP_TEXT: Record<Extract<Item, { kind: 'turn_end' }>['stopReason'], string> = {
  end_turn: '',
  cancelled: 'Stopped.',
  max_steps: 'Stopped: the step limit was reached.',
  max_tokens: 'Stopped: the reply reached the output limit.',
  refusal: 'The model refused to continue.',
  error: 'The turn failed.',
};

interface EntryProps {
  it: Item;
  store: SessionStore;
  mine: (id: string) => boolean;
  sent: (turnId: string) => boolean;
  /** Sends a failed turn's message again. */
  retry: ((turnId: string) => void) | undefined;
  /** Puts files and conversation back to before this request (POST /session/:id/rewind). */
  restore?: ((turnId: string) => void) | undefined;
}

function Entry({ it, store, mine, sent, retry, restore }: EntryProps) {
  const waiting = (id: string) => store.pending.some((p) => p.id === id);
  switch (it.kind) {
    case 'user':
      return (
        <div class={`msg msg-user${it.pending ? ' is-pending' : ''}`} data-seq={it.pending ? undefined : it.seq}>
          <div class="who" data-origin={it.origin ?? ''}>
            {speaker(it.origin, it.turnId !== undefined && sent(it.turnId))}
          </div>
          <div class="bubble">{it.text}</div>
          {restore && !it.pending && it.turnId && !it.text.startsWith('/') && !store.running && (
            <button type="button" class="restore" title="Put the files and the conversation back as they were before this request (/redo undoes it)" onClick={() => restore(it.turnId!)}>
              Restore to here
            </button>
          )}
        </div>
      );
    case 'assistant':
      return (
        <div class="msg msg-agent" data-seq={it.seq}>
          <div class="who">ferret</div>
          <Markdown text={it.text} />
        </div>
      );
    case 'compacted':
      return (
        <p class="meta-line" data-seq={it.seq}>
          {it.text}
        </p>
      );
    case 'thought':
      return (
        <details class="thought" data-seq={it.seq}>
          <summary>Thinking</summary>
          <p class="thought-text">{it.text}</p>
        </details>
      );
    case 'tool':
      return <ToolCard t={it} mine={mine} waiting={waiting} />;
    case 'plan':
      return <PlanView entries={it.entries} seq={it.seq} />;
    case 'permission':
      return (
        <div class="tool">
          <header class="tool-head">
            <span class="tool-name">{it.p.tool}</span>
          </header>
          <PermissionNote p={it.p} mine={mine(it.p.id)} waiting={waiting(it.p.id)} />
        </div>
      );
    case 'diff':
      return <DiffView path={it.d.path} diff={it.d.diff} />;
    case 'open':
      return (
        <p class="open-hint">
          ferret points at <code>{it.path}{it.line !== undefined ? `:${it.line}` : ''}</code>
        </p>
      );
    case 'notice':
      return (
        <p class={`notice notice-${it.level}`}>
          <strong>{it.level}:</strong> {it.text}
        </p>
      );
    case 'violation':
      return (
        <p class="notice notice-error">
          <strong>sandbox ({it.mode}):</strong> {it.tool} {it.path ? <code>{it.path}</code> : null} — {it.reason}
        </p>
      );
    case 'approval':
      return (
        <p class="meta-line">
          Approval changed: {it.old} → {it.new}
        </p>
      );
    case 'turn_end': {
      const text = STOP_TEXT[it.stopReason];
      return (
        <div class={`turn-end stop-${it.stopReason}`} data-stop={it.stopReason}>
          {text && <span>{text}</span>}
          {it.error && <span class="error"> {it.error}</span>}
          {it.stopReason === 'error' && retry && (
            <button type="button" class="btn btn-small retry" onClick={() => retry(it.id)}>
              Retry
            </button>
          )}
        </div>
      );
    }
  }
}

export function Transcript({ store, mine, sent, retry, restore }: Omit<EntryProps, 'it'>) {
  return (
    <div class="transcript" role="log" aria-label="Transcript" aria-live="off">
      {store.items.length === 0 && <p class="empty">Nothing yet. Say what to do below.</p>}
      {store.items.map((it) => (
        <Entry key={it.key} it={it} store={store} mine={mine} sent={sent} retry={retry} restore={restore} />
      ))}
    </div>
  );
}
