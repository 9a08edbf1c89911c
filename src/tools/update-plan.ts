import { z } from 'zod';
import { DEFAULT_PLAN_PRIORITY, PLAN_PRIORITIES, PLAN_STATUSES, type PlanEntry } from '../protocol/index.js';
import { defineTool, fail, ok } from './define.js';

// The model's todo list for a task of several steps. It sends the whole list every time (never a
// diff), so what a client shows is exactly the last call, and a lost update costs nothing.

/** Steps in one plan at most, and characters in one step: a plan is a checklist, not a document. */
const MAX_ENTRIES = 50;
const MAX_CONTENT = 2000;

const EntrySchema = z.object({
  content: z.string().trim().min(1, 'say what the step is').max(MAX_CONTENT, `keep a step under ${MAX_CONTENT} characters`),
  status: z.enum(PLAN_STATUSES),
  priority: z.enum(PLAN_PRIORITIES).optional(),
});

const ArgsSchema = z.object({
  entries: z.array(EntrySchema).max(MAX_ENTRIES, `a plan has at most ${MAX_ENTRIES} steps`).describe('The whole plan, in order: every step each time, not only the ones that changed.'),
});

/**
 * Models trained on other agents' todo tools send `plan` (with `step` for the text) or `todos`;
 * those are read as `entries` so the call is not wasted. The model is shown `entries` only.
 */
function aliases(args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const a = args as Record<string, unknown>;
  if (a['entries'] !== undefined) return a;
  const list = a['plan'] ?? a['todos'];
  if (!Array.isArray(list)) return a;
  const entries = list.map((e: unknown) => {
    if (typeof e !== 'object' || e === null) return e;
    const o = e as Record<string, unknown>;
    return o['content'] === undefined && typeof o['step'] === 'string' ? { ...o, content: o['step'] } : o;
  });
  return { entries };
}

const Schema = z.preprocess(aliases, ArgsSchema);

/** How many steps stand in each status: the title and the result say it. */
function counts(entries: readonly { status: PlanEntry['status'] }[]): Record<PlanEntry['status'], number> {
  const c = { pending: 0, in_progress: 0, completed: 0 };
  for (const e of entries) c[e.status]++;
  return c;
}

export const updatePlanTool = defineTool({
  id: 'update_plan',
  description:
    'Keep a visible checklist for a task of several steps. Send the whole list every time, each step with its status ' +
    '(pending, in_progress or completed) and an optional priority (high, medium, low). Keep one step in_progress, ' +
    'and mark a step completed as soon as it is done. An empty list clears the plan.',
  schema: Schema,
  kind: 'think',
  // It touches nothing outside the session: allowed under every preset and offered in plan mode.
  effect: 'read',
  // One short audit key, not the whole list.
  approval: async () => ({ key: 'plan' }),
  title: (a) => {
    if (a.entries.length === 0) return 'Clear the plan';
    return `Plan: ${counts(a.entries).completed} of ${a.entries.length} done`;
  },
  async run(a, ctx) {
    if (!ctx.plan) return fail('this session cannot keep a plan');
    const entries: PlanEntry[] = a.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority ?? DEFAULT_PLAN_PRIORITY }));
    ctx.plan(entries);
    if (entries.length === 0) return ok('Plan cleared.');
    const c = counts(entries);
    const busy = c.in_progress > 1 ? ` Note: ${c.in_progress} steps are in progress; keep one at a time.` : '';
    return ok(`Plan recorded: ${c.completed} done, ${c.in_progress} in progress, ${c.pending} pending.${busy}`);
  },
});
