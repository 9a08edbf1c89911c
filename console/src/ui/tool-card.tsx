import type { PermissionRecord, ToolItem } from '../session-store.js';
import { answeredBy, DECISION_TEXT, duration, toolSummary } from './format.js';
import { DiffView } from './diff-view.js';
import { InlineText } from './markdown-view.js';

const STATUS_TEXT = { running: 'running…', completed: 'done', failed: 'failed', denied: 'denied', cancelled: 'stopped' } as const;

export function PermissionNote({ p, mine, waiting }: { p: PermissionRecord; mine: boolean; waiting: boolean }) {
  return (
    <p class={`perm-note risk-${p.risk}`}>
      <span class={`risk risk-${p.risk}`}>{p.risk} risk</span> <InlineText text={p.reason} />
      {p.rule && <> (rule: <code>{p.rule}</code>)</>}
      {' — '}
      {p.resolved ? (
        <strong>
          {DECISION_TEXT[p.resolved.decision]} {answeredBy(p.resolved.by, mine)}
        </strong>
      ) : waiting ? (
        <strong>waiting for an answer</strong>
      ) : (
        <strong>not answered (the turn ended)</strong>
      )}
    </p>
  );
}

/** One tool call: what it runs, its live output, its diffs, how it ended. */
export function ToolCard({ t, mine, waiting }: { t: ToolItem; mine: (id: string) => boolean; waiting: (id: string) => boolean }) {
  const summary = toolSummary(t.tool, t.args);
  const streamed = t.output.length > 0;
  const execLike = t.tool === 'bash' || streamed;
  return (
    <article class={`tool tool-${t.status}`} aria-label={`${t.tool} ${summary}`} data-tool-id={t.id} data-status={t.status}>
      <header class="tool-head">
        <span class="tool-name">{t.tool}</span>
        <code class="tool-summary">{summary}</code>
        <span class={`status status-${t.status}`}>{STATUS_TEXT[t.status]}</span>
        {t.exitCode !== undefined && t.exitCode !== null && <span class="exit">exit {t.exitCode}</span>}
        {t.durationMs !== undefined && <span class="dur">{duration(t.durationMs)}</span>}
      </header>
      {t.permission && <PermissionNote p={t.permission} mine={mine(t.permission.id)} waiting={waiting(t.permission.id)} />}
      {(streamed || (execLike && t.result)) && (
        <pre class="out" tabIndex={0} aria-label={`output of ${t.tool}`}>
          {t.trimmed && <span class="trimmed">[earlier output trimmed]{'\n'}</span>}
          {streamed ? t.output.map((c, i) => (
            <span key={i} class={c.stream === 'stderr' ? 'stderr' : undefined}>
              {c.text}
            </span>
          )) : t.result}
          {t.capReached && <span class="trimmed">{'\n'}[output capped]</span>}
        </pre>
      )}
      {(t.children?.length || t.subagentText) && (
        <section class="subagent" aria-label={`subagent of ${summary}`}>
          {t.children?.map((c) => <ToolCard key={c.key} t={c} mine={mine} waiting={waiting} />)}
          {t.subagentText && t.status === 'running' && <p class="subagent-text">{t.subagentText.slice(-2000)}</p>}
        </section>
      )}
      {t.diffs.map((d) => (
        <DiffView key={d.seq} path={d.path} diff={d.diff} />
      ))}
      {t.opens.map((o, i) => (
        <p class="open-hint" key={i}>
          Points at <code>{o.path}{o.line !== undefined ? `:${o.line}` : ''}</code>
        </p>
      ))}
      {!execLike && t.result && t.status !== 'running' && !(t.status === 'completed' && t.diffs.length > 0) && (
        <details class="result" open={t.status !== 'completed'}>
          <summary>{t.status === 'completed' ? 'Result' : 'Why'}</summary>
          <pre>{t.result}</pre>
        </details>
      )}
      <details class="args">
        <summary>Arguments</summary>
        <pre>{JSON.stringify(t.args, null, 2)}</pre>
      </details>
    </article>
  );
}
