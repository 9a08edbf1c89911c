import type { PlanEntry } from '../types.js';

// The model's plan (its update_plan calls) as one checklist per session: each update redraws the
// same block, so a person watching a long task sees the steps tick off where the plan first appeared.

const MARK: Record<PlanEntry['status'], string> = { completed: '✓', in_progress: '▸', pending: '○' };
/** What a screen reader says before each step (the marks are decoration). */
const SAID: Record<PlanEntry['status'], string> = { completed: 'done', in_progress: 'in progress', pending: 'to do' };

export function PlanView({ entries, seq }: { entries: PlanEntry[]; seq: number }) {
  const done = entries.filter((e) => e.status === 'completed').length;
  return (
    <section class="plan" data-seq={seq} aria-label="Plan">
      <header class="plan-head">
        <span class="plan-title">Plan</span>
        <span class="plan-count">{entries.length === 0 ? 'cleared' : `${done} of ${entries.length} done`}</span>
      </header>
      {entries.length > 0 && (
        <ul class="plan-list">
          {entries.map((e, i) => (
            <li key={i} class={`plan-item plan-${e.status}`} data-status={e.status}>
              <span class="plan-mark" aria-hidden="true">
                {MARK[e.status]}
              </span>
              <span class="sr-only">{SAID[e.status]}: </span>
              <span class="plan-text">{e.content}</span>
              {e.priority !== 'medium' && <span class={`plan-priority prio-${e.priority}`}>{e.priority}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
