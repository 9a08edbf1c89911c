import { describe, expect, it } from 'vitest';
import { OUTPUT_KEEP, SessionStore, type ToolItem } from '../../console/src/session-store.js';
import type { FerretUpdate } from '../../console/src/types.js';

// The console's view of a session is a pure fold of its loop_event frames and its prompts.

type Draft = FerretUpdate extends infer U ? (U extends FerretUpdate ? Omit<U, 'sessionId' | 'seq'> : never) : never;
function frames(...drafts: Draft[]): FerretUpdate[] {
  return drafts.map((d, i): FerretUpdate => ({ sessionId: 's', seq: i + 2, ...d }));
}

const TURN = frames(
  { kind: 'agent_message_chunk', text: 'I will ' },
  { kind: 'agent_message_chunk', text: 'write.' },
  { kind: 'tool_call_start', id: 'c1', tool: 'write_file', args: { path: 'a.txt' } },
  { kind: 'file_edit', path: '/w/a.txt', diff: '--- /w/a.txt\n+++ /w/a.txt\n@@ -0,0 +1 @@\n+a\n' },
  { kind: 'tool_call_end', id: 'c1', result: { status: 'completed', output: 'wrote a.txt' }, duration_ms: 3 },
  { kind: 'cost_update', input: 100, output: 10, cache: 0, reasoning: 0, total_usd: 0.001, context_window: 1000 },
  { kind: 'tool_call_start', id: 'c2', tool: 'bash', args: { command: 'git push' } },
  { kind: 'permission_request', id: 'perm-1', tool: 'bash', args: { command: 'git push' }, risk: 'high', reason: 'pushes' },
  { kind: 'permission_resolved', id: 'perm-1', decision: 'allow', by: 'acp:c1' },
  { kind: 'tool_call_progress', id: 'c2', stdout: 'one\n' },
  { kind: 'tool_call_progress', id: 'c2', stdout: 'two\n' },
  { kind: 'tool_call_progress', id: 'c2', stderr: 'oops\n' },
  { kind: 'tool_call_end', id: 'c2', result: { status: 'failed', output: 'one\ntwo\noops\n', exitCode: 1 }, duration_ms: 9 },
  { kind: 'file_open', path: '/w/a.txt', line: 3 },
  { kind: 'cost_update', input: 250, output: 30, cache: 50, reasoning: 0, total_usd: 0.004 },
  { kind: 'agent_message_chunk', text: 'Done.' },
  { kind: 'turn_end', id: 't1', stop_reason: 'end_turn' },
);

describe('SessionStore', () => {
  it('folds a turn into messages, tool cards with their diffs, output and permission, and per-turn usage', () => {
    const calls: number[] = [];
    const s = new SessionStore((after) => calls.push(after));
    for (const u of TURN) s.apply(u);
    expect(s.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'tool', 'open', 'assistant', 'turn_end']);
    expect(s.items[0]).toMatchObject({ kind: 'assistant', text: 'I will write.' });
    const write = s.items[1] as ToolItem;
    expect(write).toMatchObject({ status: 'completed', durationMs: 3, result: 'wrote a.txt' });
    expect(write.diffs.map((d) => d.path)).toEqual(['/w/a.txt']);
    const push = s.items[2] as ToolItem;
    expect(push).toMatchObject({ status: 'failed', exitCode: 1, permission: { id: 'perm-1', risk: 'high', resolved: { decision: 'allow', by: 'acp:c1' } } });
    expect(push.output).toEqual([
      { stream: 'stdout', text: 'one\ntwo\n' },
      { stream: 'stderr', text: 'oops\n' },
    ]);
    expect(s.pending).toEqual([]);
    expect(s.running).toBe(false);
    expect(s.turns).toEqual([{ turnId: 't1', n: 1, input: 250, output: 30, cache: 50, reasoning: 0, usd: 0.004, tokens: 330 }]);
    expect(s.contextWindow).toBe(1000);
    expect(s.contextUsed).toBe(150 + 50 + 20); // the second call: its prompt (input + cache) and its reply
    // A new turn was noticed once at its start and once at its (unknown) end.
    expect(calls).toEqual([0, 0]);
  });

  it('a model\'s thoughts fold into one collapsed item before the text they precede', () => {
    const s = new SessionStore();
    for (const u of frames(
      { kind: 'agent_thought_chunk', text: 'The test ' },
      { kind: 'agent_thought_chunk', text: 'needs a fixture.' },
      { kind: 'agent_message_chunk', text: 'Adding it.' },
    )) s.apply(u);
    expect(s.items.map((i) => i.kind)).toEqual(['thought', 'assistant']);
    expect(s.items[0]).toMatchObject({ kind: 'thought', text: 'The test needs a fixture.' });
  });

  it('a pending request leaves the moment permission_resolved arrives, whoever answered', () => {
    const s = new SessionStore();
    for (const u of TURN.slice(0, 8)) s.apply(u);
    expect(s.pending.map((p) => p.id)).toEqual(['perm-1']);
    s.apply(TURN[8]!);
    expect(s.pending).toEqual([]);
  });

  it('never applies a frame twice, and a replay builds the very same view', () => {
    const a = new SessionStore();
    const b = new SessionStore();
    for (const u of TURN) a.apply(u);
    for (const u of [...TURN.slice(0, 9), ...TURN.slice(5, 12), ...TURN.slice(9)]) b.apply(u);
    expect(b.items).toEqual(a.items);
    expect(b.turns).toEqual(a.turns);
  });

  it('prompts take their place by seq, before the frames of their turn, whenever they arrive', () => {
    const s = new SessionStore();
    s.addPending('write a file', 't1');
    expect(s.items.map((i) => i.kind)).toEqual(['user']);
    for (const u of TURN) s.apply(u);
    s.addPrompts([{ seq: 1, turnId: 't1', text: 'write a file', origin: 'http' }]);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'tool', 'open', 'assistant', 'turn_end']);
    expect(s.items[0]).toMatchObject({ seq: 1, pending: false });
    // A reload: the prompts first, then the frames.
    const r = new SessionStore();
    r.addPrompts([{ seq: 1, turnId: 't1', text: 'write a file', origin: 'http' }, { seq: 40, turnId: 't2', text: 'again' }]);
    for (const u of TURN) r.apply(u);
    r.apply({ sessionId: 's', seq: 41, kind: 'agent_message_chunk', text: 'Second.' });
    expect(r.items.map((i) => (i.kind === 'user' ? `user:${i.text}` : i.kind))).toEqual(['user:write a file', 'assistant', 'tool', 'tool', 'open', 'assistant', 'turn_end', 'user:again', 'assistant']);
    expect(r.items.at(-1)).toMatchObject({ text: 'Second.' });
  });

  it('a turn that ends cancelled drops its questions and stops its cards', () => {
    const s = new SessionStore();
    for (const u of TURN.slice(0, 8)) s.apply(u);
    s.apply({ sessionId: 's', seq: 50, kind: 'turn_end', id: 't1', stop_reason: 'cancelled' });
    expect(s.pending).toEqual([]);
    expect((s.items[2] as ToolItem).status).toBe('cancelled');
    expect(s.items.at(-1)).toMatchObject({ kind: 'turn_end', stopReason: 'cancelled' });
  });

  it('keeps only the tail of a huge command output', () => {
    const s = new SessionStore();
    s.apply({ sessionId: 's', seq: 2, kind: 'tool_call_start', id: 'c', tool: 'bash', args: {} });
    for (let i = 0; i < 30; i++) s.apply({ sessionId: 's', seq: 3 + i, kind: 'tool_call_progress', id: 'c', stdout: `${i}`.padEnd(10_000, '.') });
    const t = s.items[0] as ToolItem;
    expect(t.trimmed).toBe(true);
    expect(t.output.reduce((n, c) => n + c.text.length, 0)).toBe(OUTPUT_KEEP);
    expect(t.output.at(-1)!.text.endsWith('29'.padEnd(10_000, '.'))).toBe(true);
  });

  it('keeps one plan block per session where the first plan appeared; every later plan redraws it', () => {
    const step = (c: 'pending' | 'in_progress' | 'completed', d: 'pending' | 'in_progress' | 'completed') => [
      { content: 'Read', status: 'completed' as const, priority: 'medium' as const },
      { content: 'Fix', status: c, priority: 'high' as const },
      { content: 'Test', status: d, priority: 'medium' as const },
    ];
    const s = new SessionStore();
    for (const u of frames(
      { kind: 'agent_message_chunk', text: 'Planning.' },
      { kind: 'tool_call_start', id: 'p1', tool: 'update_plan', args: {} },
      { kind: 'plan', entries: step('in_progress', 'pending') },
      { kind: 'tool_call_end', id: 'p1', result: { status: 'completed', output: 'Plan recorded' }, duration_ms: 1 },
      { kind: 'tool_call_start', id: 'p2', tool: 'update_plan', args: {} },
      { kind: 'plan', entries: step('completed', 'in_progress') },
      { kind: 'tool_call_end', id: 'p2', result: { status: 'completed', output: 'Plan recorded' }, duration_ms: 1 },
      { kind: 'turn_end', id: 't1', stop_reason: 'end_turn' },
      { kind: 'plan', entries: step('completed', 'completed') },
    )) s.apply(u);
    expect(s.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'plan', 'tool', 'turn_end']);
    const plans = s.items.filter((i) => i.kind === 'plan');
    expect(plans).toEqual([{ kind: 'plan', key: 'plan4', seq: 4, entries: step('completed', 'completed') }]);
  });
  it('a provider error is said once: on the turn\'s end line, not also as a notice', () => {
    const s = new SessionStore(() => {});
    const msg = 'the provider is overloaded (529)';
    for (const u of frames({ kind: 'notice', level: 'error', text: msg }, { kind: 'notice', level: 'info', text: 'retrying' }, { kind: 'turn_end', id: 't1', stop_reason: 'error', error: msg })) s.apply(u);
    expect(s.items.map((i) => i.kind)).toEqual(['notice', 'turn_end']);
    expect(s.items[0]).toMatchObject({ level: 'info' });
    expect(s.items[1]).toMatchObject({ stopReason: 'error', error: msg });
  });

  it('lists background processes, and their output between turns starts no turn', () => {
    const s = new SessionStore();
    for (const u of TURN) s.apply(u);
    expect(s.running).toBe(false);
    const later = [
      { kind: 'process_started', id: 'proc_1', command: 'npm run dev', call_id: 'c9' },
      { kind: 'process_output', id: 'proc_1', stdout: 'ready\n' },
    ] as const;
    for (const [i, d] of later.entries()) s.apply({ sessionId: 's', seq: 100 + i, ...d });
    expect(s.running).toBe(false);
    expect([...s.processes.values()]).toEqual([{ id: 'proc_1', command: 'npm run dev', running: true }]);
    s.apply({ sessionId: 's', seq: 110, kind: 'process_exited', id: 'proc_1', exit_code: null, signal: 'SIGKILL', reason: 'killed' });
    expect(s.processes.get('proc_1')).toMatchObject({ running: false, reason: 'killed', exitCode: null });
    expect(s.running).toBe(false);
  });
});

describe('a task call', () => {
  it("nests its subagent's calls and words on the task's card; its cost counts but is no measure of the context", () => {
    const s = new SessionStore();
    for (const u of frames(
      { kind: 'tool_call_start', id: 'c1', tool: 'task', args: { description: 'find it', prompt: 'p' } },
      { kind: 'tool_call_start', id: 'c1:k1', tool: 'grep', args: { pattern: 'x' }, parent_id: 'c1' },
      { kind: 'tool_call_end', id: 'c1:k1', result: { status: 'completed', output: 'a.ts:1' }, duration_ms: 2, parent_id: 'c1' },
      { kind: 'subagent_chunk', parent_id: 'c1', text: 'Found ' },
      { kind: 'subagent_chunk', parent_id: 'c1', text: 'hmm', thought: true },
      { kind: 'subagent_chunk', parent_id: 'c1', text: 'it.' },
      { kind: 'cost_update', input: 100, output: 10, cache: 0, reasoning: 0, total_usd: 0.001, context_window: 1000 },
      { kind: 'cost_update', input: 5100, output: 20, cache: 0, reasoning: 0, total_usd: 0.002, parent_id: 'c1' },
      { kind: 'tool_call_end', id: 'c1', result: { status: 'completed', output: 'Found it.' }, duration_ms: 9 },
    ))
      s.apply(u);
    expect(s.items.map((i) => i.kind)).toEqual(['tool']);
    const task = s.items[0] as ToolItem;
    expect(task).toMatchObject({ tool: 'task', status: 'completed', result: 'Found it.', subagentText: 'Found it.' });
    expect(task.children?.map((c) => [c.id, c.tool, c.status])).toEqual([['c1:k1', 'grep', 'completed']]);
    expect(s.usage).toMatchObject({ input: 5100, usd: 0.002 });
    expect(s.contextUsed).toBe(110);
  });
});
