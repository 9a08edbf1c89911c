import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCore } from '../core/create-core.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../core/test-kit.js';
import type { ApprovalPreset, PlanEntry, SandboxMode, SessionEvent } from '../protocol/index.js';
import { jsonSchemaOf, type ToolContext } from './define.js';
import { updatePlanTool } from './update-plan.js';

// update_plan on its own (its arguments, its result) and through real turns: it never asks, under
// any preset, sandbox or mode, and its plan lands in the log and in the session's state.

const parse = (args: unknown) => updatePlanTool.schema.safeParse(args);

describe('arguments', () => {
  it('takes the whole list; a missing priority stays missing until the run gives it medium', () => {
    const r = parse({ entries: [{ content: 'read', status: 'completed', priority: 'high' }, { content: 'fix', status: 'pending' }] });
    expect(r.success && r.data).toEqual({ entries: [{ content: 'read', status: 'completed', priority: 'high' }, { content: 'fix', status: 'pending' }] });
  });

  it('reads `plan` (with `step`) and `todos` as entries, and ignores fields it does not know', () => {
    expect(parse({ explanation: 'x', plan: [{ step: 'read', status: 'in_progress' }] }).data).toEqual({ entries: [{ content: 'read', status: 'in_progress' }] });
    expect(parse({ todos: [{ content: 'fix', status: 'pending', activeForm: 'Fixing' }] }).data).toEqual({ entries: [{ content: 'fix', status: 'pending' }] });
  });

  it.each([
    [{ entries: [{ content: 'a', status: 'done' }] }, 'entries.0.status'],
    [{ entries: [{ content: '  ', status: 'pending' }] }, 'entries.0.content'],
    [{ entries: [{ content: 'a', status: 'pending', priority: 'urgent' }] }, 'entries.0.priority'],
    [{ entries: Array.from({ length: 51 }, () => ({ content: 'a', status: 'pending' })) }, 'entries'],
    [{}, 'entries'],
  ])('refuses %j naming %s', (args, field) => {
    const r = parse(args);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path.join('.')).toBe(field);
  });

  it('the model is shown `entries` only (the aliases are not offered)', () => {
    const shown = jsonSchemaOf(updatePlanTool);
    expect(Object.keys(shown['properties'] as object)).toEqual(['entries']);
    expect(shown['required']).toEqual(['entries']);
  });
});

describe('run', () => {
  const run = async (args: unknown) => {
    const got: PlanEntry[][] = [];
    const ctx = { plan: (e: PlanEntry[]) => got.push(e) } as unknown as ToolContext;
    const out = await updatePlanTool.run(parse(args).data, ctx);
    return { out, got };
  };

  it('records the whole plan with every priority filled in, and says so briefly', async () => {
    const { out, got } = await run({ entries: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'in_progress', priority: 'low' }, { content: 'c', status: 'pending' }] });
    expect(got).toEqual([[{ content: 'a', status: 'completed', priority: 'medium' }, { content: 'b', status: 'in_progress', priority: 'low' }, { content: 'c', status: 'pending', priority: 'medium' }]]);
    expect(out).toEqual({ status: 'completed', output: 'Plan recorded: 1 done, 1 in progress, 1 pending.' });
  });

  it('two steps in progress are recorded, with a note to keep one', async () => {
    const { out } = await run({ entries: [{ content: 'a', status: 'in_progress' }, { content: 'b', status: 'in_progress' }] });
    expect(out.output).toBe('Plan recorded: 0 done, 2 in progress, 0 pending. Note: 2 steps are in progress; keep one at a time.');
  });

  it('an empty list clears the plan', async () => {
    const { out, got } = await run({ entries: [] });
    expect(got).toEqual([[]]);
    expect(out.output).toBe('Plan cleared.');
  });

  it('titles say how far the plan is', () => {
    expect(updatePlanTool.title({ entries: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'pending' }] })).toBe('Plan: 1 of 2 done');
    expect(updatePlanTool.title({ entries: [] })).toBe('Clear the plan');
  });
});

describe('through a turn', () => {
  const { fresh, script } = scratch('ferret-plan-');
  const keep = closeAfterEach();
  const PLAN = { entries: [{ content: 'Read the code', status: 'in_progress' }, { content: 'Fix it', status: 'pending', priority: 'high' }] };

  async function turn(opts: { approval: ApprovalPreset; sandbox: SandboxMode; mode?: 'plan' }) {
    const core = keep(createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: {}, cwd: fresh('ws'), sandbox: opts.sandbox, approval: opts.approval }));
    const seen = spyOnModel(core);
    const session = core.manager.create({ model: script({ responses: [{ chunks: ['planning'], toolCalls: [{ name: 'update_plan', arguments: PLAN }] }, { chunks: ['ok'] }] }) });
    if (opts.mode) session.setMode(opts.mode);
    const events: SessionEvent[] = [];
    session.subscribe((e) => events.push(e));
    await session.startTurn('go').done;
    return { session, events, seen };
  }

  it.each([
    ['suggest', 'read-only', undefined],
    ['auto', 'workspace-write', undefined],
    ['full-auto', 'danger-full-access', undefined],
    ['suggest', 'read-only', 'plan'],
  ] as const)('under %s / %s / mode %s: never asks, logs the plan, the state knows it', async (approval, sandbox, mode) => {
    const t = await turn({ approval, sandbox, ...(mode ? { mode } : {}) });
    expect(ofType(t.events, 'permission_requested')).toEqual([]);
    expect(ofType(t.events, 'sandbox_violation')).toEqual([]);
    expect(ofType(t.events, 'tool_call_start')[0]!.data).toMatchObject({ tool: 'update_plan', kind: 'think', title: 'Plan: 0 of 2 done', locations: [] });
    const want = [{ content: 'Read the code', status: 'in_progress', priority: 'medium' }, { content: 'Fix it', status: 'pending', priority: 'high' }];
    expect(ofType(t.events, 'plan_updated').map((e) => e.data)).toEqual([{ entries: want, callId: 'call_1_1' }]);
    expect(ofType(t.events, 'tool_call_end')[0]!.data).toMatchObject({ status: 'completed', output: 'Plan recorded: 0 done, 1 in progress, 1 pending.' });
    expect(t.session.state.plan).toEqual(want);
    expect(t.seen[0]!.tools.map((s) => s.name)).toContain('update_plan');
  });
});
