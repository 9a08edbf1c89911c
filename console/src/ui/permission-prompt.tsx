import { useEffect, useRef, useState } from 'preact/hooks';
import type { PermissionRecord } from '../session-store.js';
import type { Decision } from '../types.js';
import { toolSummary } from './format.js';
import { InlineText } from './markdown-view.js';

const CHOICES: { decision: Decision; label: string; hint: string }[] = [
  { decision: 'allow', label: 'Allow once', hint: 'this call only' },
  { decision: 'deny', label: 'Deny', hint: 'this call only' },
  { decision: 'always', label: 'Always allow', hint: 'remembered for this exact call' },
  { decision: 'never', label: 'Never allow', hint: 'remembered for this exact call' },
];

/**
 * The oldest pending permission request, prominent above the composer. It goes away the moment a
 * `permission_resolved` arrives, whoever answered (this tab, another, the editor).
 */
export function PermissionPrompt({ p, more, answer }: { p: PermissionRecord; more: number; answer: (id: string, d: Decision) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    setBusy(false);
    setError(undefined);
    // Take the focus unless the person is typing a message.
    const active = document.activeElement;
    if (!(active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement)) first.current?.focus();
  }, [p.id]);
  const choose = async (d: Decision) => {
    setBusy(true);
    setError(undefined);
    try {
      await answer(p.id, d);
    } catch (e) {
      setBusy(false);
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const summary = toolSummary(p.tool, p.args);
  return (
    <section class={`prompt risk-${p.risk}`} role="region" aria-labelledby="prompt-title" aria-describedby="prompt-reason" data-permission-id={p.id}>
      <h2 id="prompt-title">
        Permission needed: <span class="tool-name">{p.tool}</span>
        {more > 0 && <span class="more"> (and {more} more)</span>}
      </h2>
      <pre class="prompt-call">{summary}</pre>
      <p id="prompt-reason">
        <span class={`risk risk-${p.risk}`}>{p.risk} risk</span> <InlineText text={p.reason} />
        {p.rule && (
          <>
            {' '}
            (rule <code>{p.rule}</code>)
          </>
        )}
      </p>
      <div class="prompt-actions">
        {CHOICES.map((c, i) => (
          <button
            key={c.decision}
            type="button"
            ref={i === 0 ? first : undefined}
            class={`btn btn-${c.decision}`}
            disabled={busy}
            title={c.hint}
            data-decision={c.decision}
            onClick={() => void choose(c.decision)}
          >
            {c.label}
          </button>
        ))}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
