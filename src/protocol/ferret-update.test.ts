import { describe, expect, it } from 'vitest';
import { SessionEventSchema, type EventDraft, type SessionEvent } from './events.js';
import { toFerretUpdate } from './ferret-update.js';
import { FerretUpdateSchema, FerretUpdateSchemas, type FerretUpdate } from './ferret-wire.js';

// Core event → ferret `session/update` params (also the SSE loop_event data), one row per event type.

const SID = 'sess-1';
const SEQ = 7;
const event = (draft: EventDraft): SessionEvent => SessionEventSchema.parse({ seq: SEQ, sessionId: SID, ts: 123, ...draft });
const base = { sessionId: SID, seq: SEQ };

type Row = [name: string, draft: EventDraft, live: FerretUpdate | undefined];

const rows: Row[] = [
  ['message_chunk', { type: 'message_chunk', data: { turnId: 't1', text: 'Hello' } }, { ...base, kind: 'agent_message_chunk', text: 'Hello' }],
  [
    'tool_call_start',
    { type: 'tool_call_start', data: { turnId: 't1', callId: 'call_1', tool: 'write_file', args: { path: 'a.py', content: 'x' }, kind: 'edit', title: 'Write a.py', locations: [{ path: '/ws/a.py' }] } },
    { ...base, kind: 'tool_call_start', id: 'call_1', tool: 'write_file', args: { path: 'a.py', content: 'x' } },
  ],
  ['tool_call_running (none: the ferret dialect has no running kind)', { type: 'tool_call_running', data: { callId: 'call_1' } }, undefined],
  ['tool_call_progress stdout', { type: 'tool_call_progress', data: { callId: 'call_1', stream: 'stdout', text: 'out\n' } }, { ...base, kind: 'tool_call_progress', id: 'call_1', stdout: 'out\n' }],
  ['tool_call_progress stderr', { type: 'tool_call_progress', data: { callId: 'call_1', stream: 'stderr', text: 'err\n' } }, { ...base, kind: 'tool_call_progress', id: 'call_1', stderr: 'err\n' }],
  [
    'tool_call_end with exit code and cap',
    { type: 'tool_call_end', data: { callId: 'call_1', tool: 'bash', status: 'failed', output: 'boom', durationMs: 12, exitCode: 2, capReached: true } },
    { ...base, kind: 'tool_call_end', id: 'call_1', result: { status: 'failed', output: 'boom', exitCode: 2, capReached: true }, duration_ms: 12 },
  ],
  [
    'tool_call_end killed (exitCode null)',
    { type: 'tool_call_end', data: { callId: 'call_2', tool: 'bash', status: 'cancelled', output: '', durationMs: 3, exitCode: null } },
    { ...base, kind: 'tool_call_end', id: 'call_2', result: { status: 'cancelled', output: '', exitCode: null }, duration_ms: 3 },
  ],
  [
    'tool_call_end without the optional fields',
    { type: 'tool_call_end', data: { callId: 'call_3', tool: 'read_file', status: 'completed', output: 'text', durationMs: 1 } },
    { ...base, kind: 'tool_call_end', id: 'call_3', result: { status: 'completed', output: 'text' }, duration_ms: 1 },
  ],
  [
    'permission_requested with a rule',
    { type: 'permission_requested', data: { requestId: 'perm_1', callId: 'call_1', tool: 'bash', args: { command: 'rm -rf x' }, risk: 'high', reason: 'deletes files', rule: 'bash(rm *)' } },
    { ...base, kind: 'permission_request', id: 'perm_1', tool: 'bash', args: { command: 'rm -rf x' }, risk: 'high', reason: 'deletes files', rule: 'bash(rm *)' },
  ],
  [
    'permission_requested without a rule',
    { type: 'permission_requested', data: { requestId: 'perm_2', callId: 'call_2', tool: 'write_file', args: {}, risk: 'medium', reason: 'suggest preset asks before every write' } },
    { ...base, kind: 'permission_request', id: 'perm_2', tool: 'write_file', args: {}, risk: 'medium', reason: 'suggest preset asks before every write' },
  ],
  [
    'permission_resolved',
    { type: 'permission_resolved', data: { requestId: 'perm_1', callId: 'call_1', decision: 'always', by: 'http' } },
    { ...base, kind: 'permission_resolved', id: 'perm_1', decision: 'always', by: 'http' },
  ],
  [
    'sandbox_violation with a path',
    { type: 'sandbox_violation', data: { callId: 'call_1', tool: 'read_file', path: '/etc/passwd', mode: 'workspace-write', reason: 'outside' } },
    { ...base, kind: 'sandbox_violation', tool: 'read_file', path: '/etc/passwd', mode: 'workspace-write', reason: 'outside' },
  ],
  [
    'sandbox_violation without a path (path null)',
    { type: 'sandbox_violation', data: { tool: 'bash', mode: 'read-only', reason: 'network' } },
    { ...base, kind: 'sandbox_violation', tool: 'bash', path: null, mode: 'read-only', reason: 'network' },
  ],
  ['approval_changed', { type: 'approval_changed', data: { old: 'auto', new: 'suggest' } }, { ...base, kind: 'approval_changed', old: 'auto', new: 'suggest' }],
  [
    'cost_update with contextWindow',
    { type: 'cost_update', data: { input: 100, output: 20, cache: 5, reasoning: 1, totalUsd: 0.0125, call: { input: 100, output: 20, cache: 5, reasoning: 1 }, contextWindow: 128000 } },
    { ...base, kind: 'cost_update', input: 100, output: 20, cache: 5, reasoning: 1, total_usd: 0.0125, context_window: 128000 },
  ],
  [
    'cost_update without contextWindow',
    { type: 'cost_update', data: { input: 1, output: 2, cache: 3, reasoning: 4, totalUsd: 0 } },
    { ...base, kind: 'cost_update', input: 1, output: 2, cache: 3, reasoning: 4, total_usd: 0 },
  ],
  [
    'file_edit',
    { type: 'file_edit', data: { callId: 'call_1', path: '/ws/a.py', diff: '--- a\n+++ b\n', changeKind: 'add', oldText: null, newText: 'x' } },
    { ...base, kind: 'file_edit', path: '/ws/a.py', diff: '--- a\n+++ b\n', change_kind: 'add' },
  ],
  [
    'file_edit of a move',
    { type: 'file_edit', data: { callId: 'call_1', path: '/ws/b.py', movedFrom: '/ws/a.py', diff: '--- a\n+++ b\n', changeKind: 'move', oldText: 'x', newText: 'y' } },
    { ...base, kind: 'file_edit', path: '/ws/b.py', diff: '--- a\n+++ b\n', change_kind: 'move', moved_from: '/ws/a.py' },
  ],
  ['file_open with a line', { type: 'file_open', data: { callId: 'call_1', path: '/ws/a.py', line: 12 } }, { ...base, kind: 'file_open', path: '/ws/a.py', line: 12 }],
  ['file_open without a line', { type: 'file_open', data: { path: '/ws/b.py' } }, { ...base, kind: 'file_open', path: '/ws/b.py' }],
  ['notice', { type: 'notice', data: { level: 'warning', text: 'careful' } }, { ...base, kind: 'notice', level: 'warning', text: 'careful' }],
  ['turn_end', { type: 'turn_end', data: { turnId: 't1', stopReason: 'end_turn', text: 'done' } }, { ...base, kind: 'turn_end', id: 't1', stop_reason: 'end_turn' }],
  [
    'turn_end with an error',
    { type: 'turn_end', data: { turnId: 't1', stopReason: 'error', text: '', error: 'rate limited' } },
    { ...base, kind: 'turn_end', id: 't1', stop_reason: 'error', error: 'rate limited' },
  ],
  ['turn_start (live: none)', { type: 'turn_start', data: { turnId: 't1', text: 'hi', origin: 'zed' } }, undefined],
  ['session_created', { type: 'session_created', data: { cwd: '/ws', model: 'm', mode: 'code', sandbox: 'workspace-write', approval: 'auto' } }, undefined],
  ['reasoning_chunk', { type: 'reasoning_chunk', data: { turnId: 't1', text: 'thinking' } }, { ...base, kind: 'agent_thought_chunk', text: 'thinking' }],
  ['mode_changed', { type: 'mode_changed', data: { old: 'code', new: 'plan' } }, undefined],
  ['model_changed', { type: 'model_changed', data: { old: 'a', new: 'b' } }, undefined],
  ['reasoning_changed', { type: 'reasoning_changed', data: { old: 'medium', new: 'high' } }, undefined],
  ['message', { type: 'message', data: { turnId: 't1', message: { role: 'user', text: 'hi' } } }, undefined],
  [
    'history_compacted with a summary',
    { type: 'history_compacted', data: { turnId: 't1', summary: 's', keptFrom: 2, tokensBefore: 950, tokensAfter: 120 } },
    { ...base, kind: 'history_compacted', summary: 's', tokens_before: 950, tokens_after: 120, freed_tokens: 830 },
  ],
  [
    'history_compacted clearing old tool output',
    { type: 'history_compacted', data: { turnId: 't1', keptFrom: 0, pruned: [2, 4], tokensBefore: 90000, tokensAfter: 60000 } },
    { ...base, kind: 'history_compacted', cleared: 2, tokens_before: 90000, tokens_after: 60000, freed_tokens: 30000 },
  ],
  ['history_compacted from an old log (no sizes)', { type: 'history_compacted', data: { turnId: 't1', summary: 's', keptFrom: 2 } }, { ...base, kind: 'history_compacted', summary: 's' }],
  [
    'plan_updated: the whole list as the plan kind (no call id on the wire)',
    { type: 'plan_updated', data: { callId: 'c1', entries: [{ content: 'read', status: 'completed', priority: 'medium' }, { content: 'fix', status: 'in_progress', priority: 'high' }] } },
    { ...base, kind: 'plan', entries: [{ content: 'read', status: 'completed', priority: 'medium' }, { content: 'fix', status: 'in_progress', priority: 'high' }] },
  ],
  ['session_info: the title', { type: 'session_info', data: { title: 'Fix the parser' } }, { ...base, kind: 'session_info', title: 'Fix the parser' }],
  ['subagent_chunk: a subagent\'s words under its task call', { type: 'subagent_chunk', data: { parentCallId: 'c1', text: 'found it' } }, { ...base, kind: 'subagent_chunk', parent_id: 'c1', text: 'found it' }],
  [
    'tool_call_start of a subagent carries parent_id',
    { type: 'tool_call_start', data: { turnId: 't1', callId: 'c1:c2', tool: 'grep', args: { pattern: 'x' }, kind: 'search', title: 'grep x', locations: [], parentCallId: 'c1' } },
    { ...base, kind: 'tool_call_start', id: 'c1:c2', tool: 'grep', args: { pattern: 'x' }, parent_id: 'c1' },
  ],
  [
    'cost_update of a subagent carries parent_id',
    { type: 'cost_update', data: { input: 5, output: 1, cache: 0, reasoning: 0, totalUsd: 0, parentCallId: 'c1' } },
    { ...base, kind: 'cost_update', input: 5, output: 1, cache: 0, reasoning: 0, total_usd: 0, parent_id: 'c1' },
  ],
  [
    'process_started: the id process_* tools take, the command and its call',
    { type: 'process_started', data: { processId: 'proc_1', callId: 'c1', command: 'npm run dev' } },
    { ...base, kind: 'process_started', id: 'proc_1', command: 'npm run dev', call_id: 'c1' },
  ],
  ['process_output: under the stream it came on', { type: 'process_output', data: { processId: 'proc_1', stream: 'stderr', text: 'listening' } }, { ...base, kind: 'process_output', id: 'proc_1', stderr: 'listening' }],
  [
    'process_exited: exit code, signal and why',
    { type: 'process_exited', data: { processId: 'proc_1', exitCode: null, signal: 'SIGKILL', reason: 'killed' } },
    { ...base, kind: 'process_exited', id: 'proc_1', exit_code: null, reason: 'killed', signal: 'SIGKILL' },
  ],
  [
    'checkpoint: the turn and the stage (no commit id on the wire)',
    { type: 'checkpoint', data: { turnId: 't1', stage: 'before', commit: 'abc123', skipped: ['big.bin'] } },
    { ...base, kind: 'checkpoint', id: 't1', turnId: 't1', stage: 'before' },
  ],
  [
    'rewound: what was taken back and the files written',
    { type: 'rewound', data: { op: 'undo', mode: 'both', turnId: 't1', turns: 1, code: { from: 'a', to: 'b', saved: 'c', files: ['a.py', 'b.txt'] } } },
    { ...base, kind: 'rewound', op: 'undo', mode: 'both', id: 't1', turns: 1, files: ['a.py', 'b.txt'] },
  ],
];

describe('toFerretUpdate', () => {
  it.each(rows)('%s', (_name, draft, expected) => {
    const got = toFerretUpdate(event(draft));
    expect(got).toEqual(expected);
    if (got) expect(FerretUpdateSchema.safeParse(got).error).toBeUndefined();
  });

  it('a replay adds user_message_chunk for turn_start, and maps everything else as live', () => {
    const got = toFerretUpdate(event({ type: 'turn_start', data: { turnId: 't1', text: 'add a test' } }), true);
    expect(got).toEqual({ ...base, kind: 'user_message_chunk', text: 'add a test' });
    expect(FerretUpdateSchema.safeParse(got).success).toBe(true);
    for (const [, draft] of rows) {
      if (draft.type === 'turn_start') continue;
      expect(toFerretUpdate(event(draft), true)).toEqual(toFerretUpdate(event(draft)));
    }
  });

  it('the table covers every core event type and every ferret update kind', () => {
    const eventTypes = new Set(SessionEventSchema.options.map((o) => o.shape.type.value));
    expect(new Set(rows.map(([, d]) => d.type))).toEqual(eventTypes);
    const kinds = new Set(rows.map(([, , u]) => u?.kind).filter((k) => k !== undefined));
    kinds.add('user_message_chunk'); // replay only, above
    expect(kinds).toEqual(new Set(Object.keys(FerretUpdateSchemas)));
  });

  it('never leaks core field names (camelCase turnId/callId/requestId/totalUsd) onto the wire', () => {
    for (const [, draft] of rows) {
      const got = toFerretUpdate(event(draft));
      if (!got) continue;
      // checkpoint's turnId is the name contract §10 gives (beside `id`, the dialect's own).
      if (got.kind === 'checkpoint') expect(got.id).toBe(got.turnId);
      for (const key of [...(got.kind === 'checkpoint' ? [] : ['turnId']), 'callId', 'requestId', 'totalUsd', 'durationMs', 'contextWindow', 'stopReason']) expect(got).not.toHaveProperty(key);
    }
  });
});
