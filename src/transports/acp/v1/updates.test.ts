import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { SessionEventSchema, ZERO_USAGE, type EventData, type EventDraft, type SessionEvent } from '../../../core/index.js';
import { UpdateMapper, type Outbound } from './updates.js';

// Core events → ACP v1 session/update for one client, and every update checked against the
// SDK's own JSON schema (as test/e2e does for whole messages).

const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/v1/schema.json'), 'utf8')) as object;
const ajv = new Ajv2020({ strict: false, logger: false, allErrors: false });
ajv.addSchema(schema, 'acp');
const validateNotification = ajv.getSchema('acp#/$defs/SessionNotification');
if (!validateNotification) throw new Error('no $defs/SessionNotification in the SDK schema');

const SID = 'sess-1';
let seq = 0;
const event = (draft: EventDraft): SessionEvent => SessionEventSchema.parse({ seq: ++seq, sessionId: SID, ts: 1, ...draft });

const CONFIG: SessionConfigOption[] = [
  { id: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'code', options: [{ value: 'code', name: 'Code' }, { value: 'plan', name: 'Plan' }] },
  { id: 'approval', name: 'Approval', category: '_ferret_approval', type: 'select', currentValue: 'auto', options: [{ value: 'auto', name: 'Auto' }] },
];

const ALL_EXTENSIONS = new Set(['_ferret/notice', '_ferret/sandbox_violation', '_ferret/turn_end']);
const mapper = (notices = false, extensions: ReadonlySet<string> = ALL_EXTENSIONS) =>
  new UpdateMapper({ config: () => CONFIG, notices, extensions, usageBase: { ...ZERO_USAGE } });

/** Every standard update must be a valid SessionNotification's `update`. */
function valid(out: Outbound[]): Outbound[] {
  for (const o of out) {
    if (!('update' in o)) continue;
    const ok = validateNotification!({ sessionId: SID, update: o.update });
    if (!ok) throw new Error(`${ajv.errorsText(validateNotification!.errors)}: ${JSON.stringify(o.update)}`);
  }
  return out;
}
const updates = (out: Outbound[]): SessionUpdate[] => valid(out).flatMap((o) => ('update' in o ? [o.update] : []));

const start = (callId: string, over: Partial<EventData<'tool_call_start'>> = {}): EventDraft => ({
  type: 'tool_call_start',
  data: { turnId: 't1', callId, tool: 'bash', args: { command: 'ls' }, kind: 'execute', title: 'ls', locations: [], ...over },
});
const end = (callId: string, status: 'completed' | 'failed' | 'denied' | 'cancelled', output: string, extra: { exitCode?: number | null; capReached?: boolean } = {}): EventDraft => ({
  type: 'tool_call_end',
  data: { callId, tool: 'bash', status, output, durationMs: 5, ...extra },
});

describe('tool calls', () => {
  it('tool_call goes out once per id (pending); running, start again, progress and end are tool_call_updates', () => {
    const m = mapper();
    expect(updates(m.map(event(start('c1', { locations: [{ path: '/ws' }] })), false))).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'ls', kind: 'execute', status: 'pending', locations: [{ path: '/ws' }], rawInput: { command: 'ls' }, _meta: { 'ferret.dev': { tool: 'bash' } } },
    ]);
    expect(updates(m.map(event(start('c1', { title: 'ls -la' })), false))).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'c1', title: 'ls -la', locations: [] }]);
    expect(updates(m.map(event({ type: 'tool_call_running', data: { callId: 'c1' } }), false))).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    ]);
    expect(updates(m.map(event({ type: 'tool_call_progress', data: { callId: 'c1', stream: 'stdout', text: 'a\n' } }), false))).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'content', content: { type: 'text', text: '```\na\n```' } }] },
    ]);
    // progress accumulates: the content is the whole output so far
    const second = updates(m.map(event({ type: 'tool_call_progress', data: { callId: 'c1', stream: 'stderr', text: 'b\n' } }), false));
    expect(second[0]).toMatchObject({ content: [{ type: 'content', content: { type: 'text', text: '```\na\nb\n```' } }] });
    expect(updates(m.map(event(end('c1', 'completed', 'a\nb\n', { exitCode: 0 })), false))).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        rawOutput: { status: 'completed', durationMs: 5, exitCode: 0 },
        content: [{ type: 'content', content: { type: 'text', text: '```\na\nb\n```' } }],
        _meta: { 'ferret.dev': { status: 'completed', tool: 'bash' } },
      },
    ]);
  });

  it.each([
    ['completed', 'completed'],
    ['failed', 'failed'],
    ['denied', 'failed'],
    ['cancelled', 'failed'],
  ] as const)('a %s call ends with ACP status %s and keeps ferret\'s status in _meta', (ours, theirs) => {
    const m = mapper();
    m.map(event(start('c1', { tool: 'read_file', kind: 'read' })), false);
    const [u] = updates(m.map(event(end('c1', ours, 'out', { capReached: true })), false));
    expect(u).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: theirs,
      rawOutput: { status: ours, durationMs: 5, capReached: true },
      content: [{ type: 'content', content: { type: 'text', text: 'out' } }], // not an execute call: no fence
      _meta: { 'ferret.dev': { status: ours, tool: 'bash' } },
    });
  });

  it('a call that was never announced ends as a finished tool_call; running, progress and file_open for it send nothing', () => {
    const m = mapper();
    expect(m.map(event({ type: 'tool_call_running', data: { callId: 'x' } }), false)).toEqual([]);
    expect(m.map(event({ type: 'tool_call_progress', data: { callId: 'x', stream: 'stdout', text: 'a' } }), false)).toEqual([]);
    expect(m.map(event({ type: 'file_open', data: { callId: 'x', path: '/ws/a' } }), false)).toEqual([]);
    expect(updates(m.map(event(end('x', 'completed', '')), false))).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'x', title: 'bash', kind: 'other', status: 'completed', rawOutput: { status: 'completed', durationMs: 5 }, _meta: { 'ferret.dev': { status: 'completed', tool: 'bash' } } },
    ]);
  });

  it('a file edit shows its diff and location, and the final update keeps the diff instead of the text output', () => {
    const m = mapper();
    m.map(event(start('c1', { tool: 'write_file', kind: 'edit', title: 'Write a.py' })), false);
    expect(updates(m.map(event({ type: 'file_edit', data: { callId: 'c1', path: '/ws/a.py', diff: 'd', changeKind: 'modify', oldText: 'old', newText: 'new' } }), false))).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'diff', path: '/ws/a.py', oldText: 'old', newText: 'new' }], locations: [{ path: '/ws/a.py' }] },
    ]);
    const [u] = updates(m.map(event(end('c1', 'completed', 'Wrote /ws/a.py')), false));
    // `content` replaces the card's list: the finished edit says its diff again (clients would show a bare "completed").
    expect(u).toMatchObject({ status: 'completed', content: [{ type: 'diff', path: '/ws/a.py', oldText: 'old', newText: 'new' }] });
    expect(updates(m.map(event({ type: 'file_open', data: { callId: 'c1', path: '/ws/a.py', line: 3 } }), false))).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', locations: [{ path: '/ws/a.py', line: 3 }] },
    ]);
  });

  it('a patch that deletes one file and moves another shows a diff for each, with _meta saying which', () => {
    const m = mapper();
    m.map(event(start('c1', { tool: 'apply_patch', kind: 'edit', title: 'Patch 3 files' })), false);
    m.map(event({ type: 'file_edit', data: { callId: 'c1', path: '/ws/old.md', diff: 'd', changeKind: 'delete', oldText: '# old\n', newText: '' } }), false);
    const [u] = updates(m.map(event({ type: 'file_edit', data: { callId: 'c1', path: '/ws/b.ts', movedFrom: '/ws/a.ts', diff: 'd', changeKind: 'move', oldText: 'a', newText: 'b' } }), false));
    expect(u).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      content: [
        { type: 'diff', path: '/ws/old.md', oldText: '# old\n', newText: '', _meta: { 'ferret.dev': { changeKind: 'delete' } } },
        { type: 'diff', path: '/ws/b.ts', oldText: 'a', newText: 'b', _meta: { 'ferret.dev': { changeKind: 'move', movedFrom: '/ws/a.ts' } } },
      ],
      locations: [{ path: '/ws/old.md' }, { path: '/ws/b.ts' }],
    });
  });
});

describe('usage_update', () => {
  it('size is cost_update.contextWindow; used is the call\'s input + cache + output; cost is the session total', () => {
    const m = mapper();
    const [u] = updates(m.map(event({ type: 'cost_update', data: { input: 1000, output: 80, cache: 300, reasoning: 40, totalUsd: 0.02, call: { input: 1000, output: 80, cache: 300, reasoning: 40 }, contextWindow: 64_000 } }), false));
    expect(u).toEqual({
      sessionUpdate: 'usage_update',
      used: 1380,
      size: 64_000,
      cost: { amount: 0.02, currency: 'USD' },
      _meta: { 'ferret.dev': { input: 1000, output: 80, cache: 300, reasoning: 40, totalUsd: 0.02 } },
    });
  });

  it('a second call reports its own size, not the running total', () => {
    const m = mapper();
    m.map(event({ type: 'cost_update', data: { input: 1000, output: 80, cache: 0, reasoning: 0, totalUsd: 0, call: { input: 1000, output: 80, cache: 0, reasoning: 0 }, contextWindow: 64_000 } }), false);
    const [u] = updates(m.map(event({ type: 'cost_update', data: { input: 2200, output: 130, cache: 0, reasoning: 0, totalUsd: 0, call: { input: 1200, output: 50, cache: 0, reasoning: 0 }, contextWindow: 64_000 } }), false));
    expect(u).toMatchObject({ used: 1250, size: 64_000 });
  });

  it('without contextWindow no usage_update (no made-up size); without call, used is the growth since the last update', () => {
    const m = mapper();
    expect(m.map(event({ type: 'cost_update', data: { input: 100, output: 10, cache: 0, reasoning: 0, totalUsd: 0 } }), false)).toEqual([]);
    const [u] = updates(m.map(event({ type: 'cost_update', data: { input: 150, output: 30, cache: 5, reasoning: 0, totalUsd: 0, contextWindow: 8192 } }), false));
    expect(u).toMatchObject({ used: 50 + 5 + 20, size: 8192 });
  });
});

describe('permission', () => {
  it('the call stays pending while it asks (the request rides in _meta); every answer is reported; running moves it to in_progress', () => {
    const m = mapper();
    const [announced] = updates(m.map(event(start('c1')), false));
    expect(announced).toMatchObject({ sessionUpdate: 'tool_call', status: 'pending' });
    const requested = event({ type: 'permission_requested', data: { requestId: 'perm_c1', callId: 'c1', tool: 'bash', args: {}, risk: 'high', reason: 'rm', rule: 'bash(rm *)' } });
    expect(updates(m.map(requested, false))).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        content: [{ type: 'content', content: { type: 'text', text: 'Needs your approval (high risk): rm' } }],
        _meta: { 'ferret.dev': { permission: { requestId: 'perm_c1', risk: 'high', reason: 'rm', rule: 'bash(rm *)' } } },
      },
    ]);
    for (const decision of ['allow', 'always', 'deny', 'never'] as const) {
      expect(updates(m.map(event({ type: 'permission_resolved', data: { requestId: 'perm_c1', callId: 'c1', decision, by: 'zed' } }), false))).toEqual([
        { sessionUpdate: 'tool_call_update', toolCallId: 'c1', _meta: { 'ferret.dev': { permission: { requestId: 'perm_c1', decision, by: 'zed' } } } },
      ]);
    }
    expect(updates(m.map(event({ type: 'tool_call_running', data: { callId: 'c1' } }), false))).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' }]);
  });

  it('a denied call goes from pending straight to failed, never in_progress', () => {
    const m = mapper();
    const statuses = [
      event(start('c1')),
      event({ type: 'permission_requested', data: { requestId: 'p', callId: 'c1', tool: 'bash', args: {}, risk: 'medium', reason: 'r' } }),
      event({ type: 'permission_resolved', data: { requestId: 'p', callId: 'c1', decision: 'deny', by: 'zed' } }),
      event(end('c1', 'denied', 'the user denied this bash call')),
    ].flatMap((e) => updates(m.map(e, false))).map((u) => ('status' in u ? u.status : undefined)).filter((s) => s !== undefined);
    expect(statuses).toEqual(['pending', 'failed']);
  });

  it('a request or an answer for a call this client never saw sends nothing', () => {
    const m = mapper();
    expect(m.map(event({ type: 'permission_requested', data: { requestId: 'p', callId: 'unseen', tool: 'bash', args: {}, risk: 'low', reason: 'r' } }), false)).toEqual([]);
    expect(m.map(event({ type: 'permission_resolved', data: { requestId: 'p', callId: 'unseen', decision: 'allow', by: 'x' } }), false)).toEqual([]);
  });
});

describe('sandbox violations', () => {
  it('on an announced call: _meta on its update; otherwise a _ferret/sandbox_violation notification', () => {
    const m = mapper();
    m.map(event(start('c1')), false);
    expect(updates(m.map(event({ type: 'sandbox_violation', data: { callId: 'c1', tool: 'read_file', path: '/etc/x', mode: 'workspace-write', reason: 'outside' } }), false))).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', _meta: { 'ferret.dev': { sandboxViolation: { tool: 'read_file', mode: 'workspace-write', reason: 'outside', path: '/etc/x' } } } },
    ]);
    expect(m.map(event({ type: 'sandbox_violation', data: { tool: 'bash', mode: 'read-only', reason: 'network' } }), false)).toEqual([
      { ext: '_ferret/sandbox_violation', params: { sessionId: SID, tool: 'bash', mode: 'read-only', reason: 'network' } },
    ]);
    // only to a client that asked for that extension
    expect(mapper(false, new Set()).map(event({ type: 'sandbox_violation', data: { tool: 'bash', mode: 'read-only', reason: 'network' } }), false)).toEqual([]);
  });
});

describe('notices', () => {
  const notice = (): SessionEvent => event({ type: 'notice', data: { level: 'warning', text: 'the model is slow' } });

  it('with the notices capability: a standard notice update', () => {
    expect(updates(mapper(true).map(notice(), false))).toEqual([{ sessionUpdate: 'notice', severity: 'warning', title: 'the model is slow' }]);
  });

  it('without it: a _ferret/notice extension notification (no standard update), if the client asked for that extension', () => {
    expect(valid(mapper(false).map(notice(), false))).toEqual([{ ext: '_ferret/notice', params: { sessionId: SID, level: 'warning', text: 'the model is slow' } }]);
    expect(mapper(false, new Set(['_ferret/turn_end'])).map(notice(), false)).toEqual([]);
  });

  it('with the capability the standard notice goes out whatever extensions were asked for', () => {
    expect(updates(mapper(true, new Set()).map(notice(), false))).toEqual([{ sessionUpdate: 'notice', severity: 'warning', title: 'the model is slow' }]);
  });

  it.each(['info', 'warning', 'error'] as const)('level %s is a valid severity', (level) => {
    expect(updates(mapper(true).map(event({ type: 'notice', data: { level, text: 'x' } }), false))[0]).toMatchObject({ severity: level });
  });
});

describe('compaction', () => {
  const compacting = (compaction: boolean) => new UpdateMapper({ config: () => CONFIG, notices: true, compaction, extensions: ALL_EXTENSIONS, usageBase: { ...ZERO_USAGE } });
  const summarised = event({ type: 'history_compacted', data: { turnId: 't1', summary: 'they asked one', keptFrom: 3, tokensBefore: 950, tokensAfter: 100 } });
  const cleared = event({ type: 'history_compacted', data: { turnId: 't1', keptFrom: 0, pruned: [2, 4], tokensBefore: 90_000, tokensAfter: 60_000 } });

  it('a client that advertised session.compaction gets one completed compaction_update with the summary', () => {
    expect(updates(compacting(true).map(summarised, false))).toEqual([
      { sessionUpdate: 'compaction_update', compactionId: `compaction-${summarised.seq}`, status: 'completed', summary: [{ type: 'text', text: 'they asked one' }] },
    ]);
  });

  it('clearing old output says what it cleared and freed', () => {
    expect(updates(compacting(true).map(cleared, false))[0]).toMatchObject({ status: 'completed', summary: [{ type: 'text', text: 'Cleared the output of 2 older tool results (about 30000 tokens freed).' }] });
  });

  it('a client that did not advertise it gets nothing', () => {
    expect(compacting(false).map(summarised, false)).toEqual([]);
  });
});

describe('everything else', () => {
  type Row = [name: string, draft: EventDraft, showUser: boolean, expected: Outbound[]];
  const rows: Row[] = [
    ['turn_start shown', { type: 'turn_start', data: { turnId: 't1', text: 'hi' } }, true, [{ update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } } }]],
    ['turn_start of this client (not echoed)', { type: 'turn_start', data: { turnId: 't1', text: 'hi' } }, false, []],
    ['message_chunk', { type: 'message_chunk', data: { turnId: 't1', text: 'Hello' } }, false, [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } }]],
    ['reasoning_chunk', { type: 'reasoning_chunk', data: { turnId: 't1', text: 'hmm' } }, false, [{ update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } } }]],
    ['mode_changed', { type: 'mode_changed', data: { old: 'code', new: 'plan' } }, false, [
      { update: { sessionUpdate: 'current_mode_update', currentModeId: 'plan' } },
      { update: { sessionUpdate: 'config_option_update', configOptions: CONFIG } },
    ]],
    ['model_changed', { type: 'model_changed', data: { old: 'a', new: 'b' } }, false, [{ update: { sessionUpdate: 'config_option_update', configOptions: CONFIG } }]],
    ['approval_changed', { type: 'approval_changed', data: { old: 'auto', new: 'suggest' } }, false, [{ update: { sessionUpdate: 'config_option_update', configOptions: CONFIG } }]],
    ['turn_end', { type: 'turn_end', data: { turnId: 't1', stopReason: 'max_steps', text: 'x' } }, false, [{ ext: '_ferret/turn_end', params: { sessionId: SID, turnId: 't1', stopReason: 'max_steps' } }]],
    ['session_created', { type: 'session_created', data: { cwd: '/ws', model: 'm', mode: 'code', sandbox: 'workspace-write', approval: 'auto' } }, true, []],
    ['message', { type: 'message', data: { turnId: 't1', message: { role: 'user', text: 'hi' } } }, true, []],
  ];
  it.each(rows)('%s', (_name, draft, showUser, expected) => {
    expect(valid(mapper().map(event(draft), showUser))).toEqual(expected);
  });

  it('turn_end is sent only to a client that asked for _ferret/turn_end', () => {
    expect(mapper(false, new Set()).map(event({ type: 'turn_end', data: { turnId: 't1', stopReason: 'end_turn', text: '' } }), false)).toEqual([]);
  });
});

describe('the schema check itself', () => {
  it('rejects what the SDK schema rejects, so the checks above can fail', () => {
    expect(() => valid([{ update: { sessionUpdate: 'usage_update', used: -1, size: 10 } }])).toThrow(/used/);
    expect(() => valid([{ update: { sessionUpdate: 'notice', severity: 'info', title: '' } }])).toThrow(/title/);
    expect(() => valid([{ update: { sessionUpdate: 'tool_call_update' } as unknown as SessionUpdate }])).toThrow(/toolCallId/);
  });
});

describe('plan', () => {
  it('plan_updated is a schema-valid `plan` update with the whole list, every entry with its priority', () => {
    const entries = [
      { content: 'Read the code', status: 'completed', priority: 'medium' },
      { content: 'Fix the bug', status: 'in_progress', priority: 'high' },
      { content: 'Run the tests', status: 'pending', priority: 'low' },
    ] as const;
    expect(updates(mapper().map(event({ type: 'plan_updated', data: { entries: [...entries], callId: 'c1' } }), false))).toEqual([{ sessionUpdate: 'plan', entries }]);
  });

  it('an empty plan goes out as an empty list (the client clears what it shows)', () => {
    expect(updates(mapper().map(event({ type: 'plan_updated', data: { entries: [] } }), true))).toEqual([{ sessionUpdate: 'plan', entries: [] }]);
  });

  it('the schema check refuses an entry without a priority, so the rows above can fail', () => {
    expect(() => valid([{ update: { sessionUpdate: 'plan', entries: [{ content: 'a', status: 'pending' }] } as unknown as SessionUpdate }])).toThrow(/priority/);
  });
});

describe('a task call and its subagent', () => {
  it("announces the child's calls with the parent's id in _meta and shows its progress on the task's card", () => {
    const m = mapper();
    const run = (d: EventDraft) => updates(m.map(event(d), false));
    run({ type: 'tool_call_start', data: { turnId: 't', callId: 'c1', tool: 'task', args: {}, kind: 'think', title: 'task: find it', locations: [] } });
    const child = run({ type: 'tool_call_start', data: { turnId: 't', callId: 'c1:k1', tool: 'grep', args: { pattern: 'x' }, kind: 'search', title: 'grep x', locations: [], parentCallId: 'c1' } });
    expect(child[0]).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'c1:k1', _meta: { 'ferret.dev': { parentToolCallId: 'c1' } } });
    expect(child[1]).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'content', content: { type: 'text', text: '▸ grep x' } }] });
    run({ type: 'tool_call_end', data: { callId: 'c1:k1', tool: 'grep', status: 'completed', output: 'a.ts:1', durationMs: 1, parentCallId: 'c1' } });
    const said = run({ type: 'subagent_chunk', data: { parentCallId: 'c1', text: 'Found it.' } });
    expect(said).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'content', content: { type: 'text', text: '✓ grep x\n\nFound it.' } }] }]);
    // Its reasoning stays off the card, and its cost moves the total but not the context meter.
    expect(run({ type: 'subagent_chunk', data: { parentCallId: 'c1', text: 'hmm', thought: true } })).toEqual([]);
    run({ type: 'cost_update', data: { input: 100, output: 10, cache: 0, reasoning: 0, totalUsd: 0.5, call: { input: 100, output: 10, cache: 0, reasoning: 0 }, contextWindow: 1000 } });
    const cost = run({ type: 'cost_update', data: { input: 5100, output: 20, cache: 0, reasoning: 0, totalUsd: 0.9, call: { input: 5000, output: 10, cache: 0, reasoning: 0 }, contextWindow: 1000, parentCallId: 'c1' } });
    expect(cost[0]).toMatchObject({ sessionUpdate: 'usage_update', used: 110, cost: { amount: 0.9 } });
    const end = run({ type: 'tool_call_end', data: { callId: 'c1', tool: 'task', status: 'completed', output: 'Found it.', durationMs: 5 } });
    expect(end[0]).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'Found it.' } }] });
  });
});
