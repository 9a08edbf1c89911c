import { describe, expect, it } from 'vitest';
import { SessionEventSchema, type EventDraft, type SessionEvent } from '../protocol/index.js';
import { interruptedTurnEvents } from './interrupted-turn.js';
import { PRUNED_OUTPUT } from './compaction/prune.js';
import { applyEvent, emptyState, SUMMARY_PREFIX, type SessionState } from './session-state.js';

// The fold: a session's state is its events applied in order. Each row: events → what changed.

let seq = 0;
/** A whole event from a draft, validated against the union so the table holds only real events. */
const ev = (draft: EventDraft, ts = 1000 + seq): SessionEvent => SessionEventSchema.parse({ seq: ++seq, sessionId: 's1', ts, ...draft });

const created = (): SessionEvent =>
  ev({ type: 'session_created', data: { cwd: '/ws', model: 'scripted:/m.json', mode: 'code', sandbox: 'read-only', approval: 'suggest' } }, 500);

function fold(events: SessionEvent[]): SessionState {
  const s = emptyState();
  for (const e of events) applyEvent(s, e);
  return s;
}

const user = (text: string): EventDraft => ({ type: 'message', data: { turnId: 't1', message: { role: 'user', text } } });
const assistant = (text: string): EventDraft => ({ type: 'message', data: { turnId: 't1', message: { role: 'assistant', text, toolCalls: [] } } });
const toolMsg: EventDraft = { type: 'message', data: { turnId: 't1', message: { role: 'tool', results: [{ callId: 'c1', name: 'bash', status: 'completed', output: 'ok' }] } } };
const cost = (input: number, output: number, cache: number, reasoning: number, totalUsd: number, call?: { input: number; output: number; cache: number; reasoning: number }): EventDraft => ({
  type: 'cost_update',
  data: { input, output, cache, reasoning, totalUsd, ...(call ? { call } : {}) },
});

describe('emptyState', () => {
  it('starts at the defaults', () => {
    expect(emptyState()).toEqual({
      cwd: '', model: '', mode: 'code', sandbox: 'workspace-write', approval: 'auto', reasoning: 'medium', history: [],
      usage: { input: 0, output: 0, cache: 0, reasoning: 0 }, costUsd: 0, title: undefined,
      createdAt: 0, updatedAt: 0, turns: 0, modelCalls: 0, modelCallBase: 0, lastCallTokens: 0, touched: new Set(), plan: [],
      turnMarks: [], codeHead: undefined, undone: [],
    });
  });

  it('gives each caller its own usage and touched set', () => {
    const a = emptyState();
    a.usage.input = 5;
    a.touched.add('/x');
    expect(emptyState().usage.input).toBe(0);
    expect(emptyState().touched.size).toBe(0);
  });
});

describe('applyEvent', () => {
  type Row = [name: string, drafts: EventDraft[], expected: Partial<SessionState>];
  const rows: Row[] = [
    ['session_created sets the session settings', [], { cwd: '/ws', model: 'scripted:/m.json', mode: 'code', sandbox: 'read-only', approval: 'suggest', createdAt: 500, turns: 0 }],
    ['turn_start titles the session with its first line; the turn counts once the model is given its prompt', [{ type: 'turn_start', data: { turnId: 't1', text: 'fix the bug\nin main.ts' } }, { type: 'message', data: { turnId: 't1', message: { role: 'user', text: 'fix the bug\nin main.ts' } } }], { turns: 1, title: 'fix the bug' }],
    ['a later turn keeps the first title', [{ type: 'turn_start', data: { turnId: 't1', text: 'first' } }, { type: 'message', data: { turnId: 't1', message: { role: 'user', text: 'first' } } }, { type: 'turn_start', data: { turnId: 't2', text: 'second' } }, { type: 'message', data: { turnId: 't2', message: { role: 'user', text: 'second' } } }], { turns: 2, title: 'first' }],
    ['a command answered locally (/status, /nonsense) is no turn and no title', [{ type: 'turn_start', data: { turnId: 't1', text: '/status' } }, { type: 'turn_start', data: { turnId: 't2', text: '/nonsense' } }], { turns: 0, title: undefined }],
    ['the title is the first 80 characters', [{ type: 'turn_start', data: { turnId: 't1', text: 'x'.repeat(100) } }], { title: 'x'.repeat(80) }],
    ['user and tool messages join the history without counting model calls', [user('hi'), toolMsg], { history: [{ role: 'user', text: 'hi' }, { role: 'tool', results: [{ callId: 'c1', name: 'bash', status: 'completed', output: 'ok' }] }], modelCalls: 0 }],
    ['a cost_update is a model call (one per call, failed and summary calls too); an assistant message is not', [user('hi'), assistant('hello'), cost(1, 1, 0, 0, 0), assistant('again'), cost(2, 2, 0, 0, 0), cost(2, 2, 0, 0, 0)], { modelCalls: 3 }],
    ['approval_changed', [{ type: 'approval_changed', data: { old: 'suggest', new: 'full-auto' } }], { approval: 'full-auto' }],
    ['mode_changed', [{ type: 'mode_changed', data: { old: 'code', new: 'plan' } }], { mode: 'plan' }],
    ['reasoning_changed sets the effort', [{ type: 'reasoning_changed', data: { old: 'medium', new: 'high' } }], { reasoning: 'high' }],
    ['model_changed sets the model and restarts the scripted position here', [cost(1, 1, 0, 0, 0), cost(2, 2, 0, 0, 0), { type: 'model_changed', data: { old: 'scripted:/m.json', new: 'scripted:/n.json' } }, cost(3, 3, 0, 0, 0)], { model: 'scripted:/n.json', modelCalls: 3, modelCallBase: 2 }],
    ['cost_update sets the totals and, with a call, the last call size (all four counts)', [cost(100, 20, 30, 5, 0.25, { input: 100, output: 20, cache: 30, reasoning: 5 })], { usage: { input: 100, output: 20, cache: 30, reasoning: 5 }, costUsd: 0.25, lastCallTokens: 155 }],
    ['cost_update without a call (a summary) keeps the last call size', [cost(1, 1, 0, 0, 0, { input: 1, output: 1, cache: 0, reasoning: 0 }), cost(10, 10, 0, 0, 0.5)], { usage: { input: 10, output: 10, cache: 0, reasoning: 0 }, costUsd: 0.5, lastCallTokens: 2 }],
    ['tool_call_start adds its locations to the touched files', [
      { type: 'tool_call_start', data: { turnId: 't1', callId: 'c1', tool: 'read_file', args: {}, kind: 'read', title: 'Read a', locations: [{ path: '/ws/a.ts' }, { path: '/ws/b/c.ts', line: 3 }] } },
      { type: 'tool_call_start', data: { turnId: 't1', callId: 'c2', tool: 'read_file', args: {}, kind: 'read', title: 'Read a', locations: [{ path: '/ws/a.ts' }] } },
    ], { touched: new Set(['/ws/a.ts', '/ws/b/c.ts']) }],
    ['history_compacted replaces what came before keptFrom with the summary (its call counts by its cost_update)', [
      user('one'), assistant('r1'), user('two'), assistant('r2'), cost(1, 1, 0, 0, 0, { input: 900, output: 50, cache: 0, reasoning: 0 }),
      { type: 'history_compacted', data: { turnId: 't2', summary: 'they said one', keptFrom: 2 } },
    ], { history: [{ role: 'user', text: `${SUMMARY_PREFIX}they said one` }, { role: 'user', text: 'two' }, { role: 'assistant', text: 'r2', toolCalls: [] }], modelCalls: 1, lastCallTokens: 0 }],
    ['history_compacted clearing old output: those results say so, and the last call size drops by what it freed', [
      user('go'), toolMsg, cost(1, 1, 0, 0, 0, { input: 900, output: 50, cache: 0, reasoning: 0 }),
      { type: 'history_compacted', data: { turnId: 't1', keptFrom: 0, pruned: [1], tokensBefore: 960, tokensAfter: 400 } },
    ], { history: [{ role: 'user', text: 'go' }, { role: 'tool', results: [{ callId: 'c1', name: 'bash', status: 'completed', output: PRUNED_OUTPUT }] }], lastCallTokens: 390 }],
    ['plan_updated: the last plan stands, whole (an empty one clears it)', [
      { type: 'plan_updated', data: { entries: [{ content: 'a', status: 'completed', priority: 'high' }, { content: 'b', status: 'in_progress', priority: 'medium' }] } },
      { type: 'plan_updated', data: { entries: [{ content: 'a', status: 'completed', priority: 'high' }, { content: 'b', status: 'completed', priority: 'medium' }], callId: 'c9' } },
    ], { plan: [{ content: 'a', status: 'completed', priority: 'high' }, { content: 'b', status: 'completed', priority: 'medium' }] }],
    ['plan_updated with no entries clears the plan', [
      { type: 'plan_updated', data: { entries: [{ content: 'a', status: 'pending', priority: 'low' }] } },
      { type: 'plan_updated', data: { entries: [] } },
    ], { plan: [] }],
  ];

  it.each(rows)('%s', (_name, drafts, expected) => {
    const events = [created(), ...drafts.map((d) => ev(d))];
    const s = fold(events);
    expect(s).toMatchObject(expected);
    expect(s.updatedAt).toBe(events.at(-1)!.ts);
  });

  // Events that only clients care about: the fold moves updatedAt and nothing else.
  const inert: EventDraft[] = [
    { type: 'message_chunk', data: { turnId: 't1', text: 'x' } },
    { type: 'reasoning_chunk', data: { turnId: 't1', text: 'x' } },
    { type: 'tool_call_running', data: { callId: 'c1' } },
    { type: 'tool_call_progress', data: { callId: 'c1', stream: 'stdout', text: 'x' } },
    { type: 'tool_call_end', data: { callId: 'c1', tool: 'bash', status: 'completed', output: 'x', durationMs: 1 } },
    { type: 'permission_requested', data: { requestId: 'p1', callId: 'c1', tool: 'bash', args: {}, risk: 'low', reason: 'r' } },
    { type: 'permission_resolved', data: { requestId: 'p1', callId: 'c1', decision: 'allow', by: 'me' } },
    { type: 'sandbox_violation', data: { tool: 'bash', mode: 'read-only', reason: 'r' } },
    { type: 'file_edit', data: { callId: 'c1', path: '/ws/a', diff: '', changeKind: 'add', oldText: null, newText: 'a' } },
    { type: 'file_open', data: { path: '/ws/a' } },
    { type: 'notice', data: { level: 'info', text: 'x' } },
    { type: 'turn_end', data: { turnId: 't1', stopReason: 'end_turn', text: 'x' } },
  ];
  it.each(inert.map((d) => [d.type, d] as const))('%s changes only updatedAt', (_type, draft) => {
    const before = fold([created()]);
    const e = ev(draft, 9999);
    const after = fold([created(), e]);
    expect(after).toEqual({ ...before, updatedAt: 9999 });
  });

  it('folding the same log twice gives the same state (a load is a fold)', () => {
    const events = [created(), ev({ type: 'turn_start', data: { turnId: 't1', text: 'go' } }), ev(user('go')), ev(assistant('done')), ev(cost(5, 5, 0, 0, 0.1, { input: 5, output: 5, cache: 0, reasoning: 0 }))];
    expect(fold(events)).toEqual(fold(events));
    expect(fold(events)).toMatchObject({ turns: 1, title: 'go', modelCalls: 1, costUsd: 0.1, lastCallTokens: 10 });
  });
});

describe('a turn the log leaves open (its process died)', () => {
  const start: EventDraft = { type: 'turn_start', data: { turnId: 't1', text: 'run it' } };
  const call = (callId: string): EventDraft => ({ type: 'tool_call_start', data: { turnId: 't1', callId, tool: 'bash', args: {}, kind: 'execute', title: 'bash', locations: [] } });
  const ask: EventDraft = { type: 'permission_requested', data: { requestId: 'p2', callId: 'c2', tool: 'bash', args: {}, risk: 'medium', reason: 'writes' } };
  const asked = (drafts: EventDraft[]) => fold([created(), ...drafts.map((d) => ev(d))]);

  it('is tracked from turn_start to turn_end: unfinished calls, unanswered questions, a model call not yet billed', () => {
    const s = asked([start, assistant('running'), call('c1'), call('c2'), ask, { type: 'tool_call_end', data: { callId: 'c1', tool: 'bash', status: 'completed', output: '', durationMs: 1 } }]);
    expect(s.openTurn).toEqual({ turnId: 't1', calls: { c2: 'bash' }, asks: { p2: 'c2' }, uncosted: true, text: 'run it' });
    expect(asked([start, { type: 'turn_end', data: { turnId: 't1', stopReason: 'end_turn', text: '' } }]).openTurn).toBeUndefined();
  });

  it('is ended as interrupted: questions withdrawn, calls failed with the reason, the model call counted, the turn ended error', () => {
    const s = asked([start, assistant('running'), call('c2'), ask]);
    const drafts = interruptedTurnEvents(s, 'it died');
    expect(drafts.map((d) => d.type)).toEqual(['permission_resolved', 'tool_call_end', 'cost_update', 'turn_end']);
    expect(drafts[1]!.data).toMatchObject({ callId: 'c2', status: 'failed', output: 'interrupted: it died' });
    expect(drafts[3]!.data).toMatchObject({ turnId: 't1', stopReason: 'error', error: 'the turn was interrupted: it died' });
    // Folded in, they close the turn and move the model-call count on (a replayable model's next answer).
    const after = fold([created(), ...[start, assistant('running'), call('c2'), ask, ...drafts].map((d) => ev(d))]);
    expect(after.openTurn).toBeUndefined();
    expect(after.modelCalls).toBe(1);
    expect(interruptedTurnEvents(after, 'again')).toEqual([]);
  });
});
