import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { ChatModel, type ToolCard } from '../../../extensions/vscode/src/model/chat-model.js';

// ACP v1 updates (as ferret sends them) → the chat view's state, without VS Code.

const text = (t: string) => ({ type: 'text' as const, text: t });
const cards = (m: ChatModel): ToolCard[] => m.view().entries.flatMap((e) => (e.kind === 'tool' ? [e.card] : []));
const feed = (m: ChatModel, updates: SessionUpdate[]) => updates.flatMap((u) => m.apply(u));

describe('ChatModel', () => {
  it('streams agent text into one bubble until something else comes between', () => {
    const m = new ChatModel();
    m.addUser('hi');
    feed(m, [
      { sessionUpdate: 'agent_message_chunk', content: text("I'll ") },
      { sessionUpdate: 'agent_message_chunk', content: text('look.') },
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'ls', kind: 'execute', status: 'in_progress' },
      { sessionUpdate: 'agent_message_chunk', content: text('Done.') },
    ]);
    expect(m.view().entries.map((e) => [e.kind, 'text' in e ? e.text : e.kind === 'tool' ? e.card.title : ''])).toEqual([
      ['user', 'hi'],
      ['agent', "I'll look."],
      ['tool', 'ls'],
      ['agent', 'Done.'],
    ]);
  });

  it("labels a prompt someone else sent in a shared session with its sender, and not this person's own", () => {
    const from = (origin: string) => ({ _meta: { 'ferret.dev': { origin } } });
    const m = new ChatModel();
    m.addUser('mine');
    feed(m, [
      { sessionUpdate: 'user_message_chunk', content: text('run the tests'), ...from('http:ci-bot') },
      { sessionUpdate: 'user_message_chunk', content: text('and you?'), ...from('http:console') },
      { sessionUpdate: 'user_message_chunk', content: text('from zed'), ...from('acp:7') },
    ]);
    m.replaying = true;
    feed(m, [{ sessionUpdate: 'user_message_chunk', content: text('earlier, from this editor'), ...from('acp:3') }]);
    expect(m.view().entries.map((e) => (e.kind === 'user' ? [e.text, e.from] : []))).toEqual([
      ['mine', undefined],
      ['run the tests', 'ci-bot'],
      ['and you?', 'web console'],
      ['from zed', 'another editor'],
      ['earlier, from this editor', undefined],
    ]);
  });

  it('keeps a command card live (unfenced output) and takes its final status from ferret', () => {
    const m = new ChatModel();
    feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'npm test', name: 'bash', kind: 'execute', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', content: [{ type: 'content', content: text('```\nok 1\n```') }] },
    ]);
    expect(cards(m)[0]).toMatchObject({ status: 'in_progress', output: 'ok 1', name: 'bash' });
    feed(m, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        rawOutput: { status: 'completed', exitCode: 0 },
        content: [{ type: 'content', content: text('```\nok 1\nok 2\n[exit code 0]\n```') }],
        _meta: { 'ferret.dev': { status: 'completed' } },
      },
    ]);
    expect(cards(m)[0]).toMatchObject({ status: 'completed', output: 'ok 1\nok 2\n[exit code 0]', exitCode: 0 });
  });

  it('shows a permission question, then the denial and the reason the model was given', () => {
    const m = new ChatModel();
    feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'git push', kind: 'execute', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'pending', _meta: { 'ferret.dev': { permission: { requestId: 'p1', risk: 'high', reason: 'publishes commits' } } } },
    ]);
    expect(cards(m)[0]).toMatchObject({ status: 'pending', permission: { risk: 'high', reason: 'publishes commits' } });
    m.recordDecision('c1', 'denied');
    feed(m, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'failed',
        content: [{ type: 'content', content: text('the user denied this bash call') }],
        _meta: { 'ferret.dev': { status: 'denied' } },
      },
    ]);
    expect(cards(m)[0]).toMatchObject({ status: 'denied', output: 'the user denied this bash call', permission: { risk: 'high', decision: 'denied' } });
  });

  it('infers the answer of a question settled elsewhere (replayed history, another client)', () => {
    const m = new ChatModel();
    feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'a', title: 'rm x', kind: 'execute' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'pending', _meta: { 'ferret.dev': { permission: { risk: 'medium' } } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'in_progress', _meta: { 'ferret.dev': { permission: { decision: 'always', by: 'http' } } } },
      { sessionUpdate: 'tool_call', toolCallId: 'b', title: 'rm y', kind: 'execute' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b', status: 'pending', _meta: { 'ferret.dev': { permission: { risk: 'medium' } } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b', status: 'failed', _meta: { 'ferret.dev': { status: 'denied' } } },
    ]);
    expect(cards(m).map((c) => c.permission?.decision)).toEqual(['always allowed', 'denied']);
  });

  it('turns diff content into review rows with workspace-relative labels', () => {
    const m = new ChatModel((p) => p.replace('/ws/', ''));
    feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'w', title: 'Write a.py', kind: 'edit' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'w', content: [{ type: 'diff', path: '/ws/a.py', oldText: null, newText: 'x\n' }, { type: 'diff', path: '/ws/b.py', oldText: 'y\n', newText: 'z\n' }] },
      // ferret's final update of a kept edit carries no content: the diffs stay.
      { sessionUpdate: 'tool_call_update', toolCallId: 'w', status: 'completed', _meta: { 'ferret.dev': { status: 'completed' } } },
    ]);
    expect(cards(m)[0]!.diffs).toEqual([
      { path: '/ws/a.py', label: 'a.py', isNew: true },
      { path: '/ws/b.py', label: 'b.py', isNew: false },
    ]);
    m.setReview('/ws/a.py', 'accepted');
    expect(m.view().reviews).toEqual({ '/ws/a.py': 'accepted' });
  });

  it('asks to reveal the file once an open_file call has run, at its line', () => {
    const m = new ChatModel();
    const effects = feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'o', title: 'Open a.ts:7', kind: 'read', _meta: { 'ferret.dev': { tool: 'open_file' } }, locations: [{ path: '/ws/a.ts' }] },
      { sessionUpdate: 'tool_call_update', toolCallId: 'o', locations: [{ path: '/ws/a.ts', line: 7 }] },
      { sessionUpdate: 'tool_call_update', toolCallId: 'o', status: 'completed', _meta: { 'ferret.dev': { status: 'completed' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'o', status: 'completed' },
    ]);
    expect(effects).toEqual([{ kind: 'reveal', path: '/ws/a.ts', line: 7 }]);
    // Other tools' locations are not followed.
    expect(feed(m, [{ sessionUpdate: 'tool_call', toolCallId: 'r', title: 'Read b', name: 'read_file', kind: 'read', status: 'completed', locations: [{ path: '/ws/b' }] }])).toEqual([]);
  });

  it('marks unfinished cards cancelled when the prompt answers cancelled, and says it stopped', () => {
    const m = new ChatModel();
    m.turnStarted();
    feed(m, [{ sessionUpdate: 'tool_call', toolCallId: 's', title: 'sleep 30', kind: 'execute', status: 'in_progress' }]);
    expect(m.view().busy).toBe(true);
    m.turnEnded('cancelled');
    expect(m.view().busy).toBe(false);
    expect(cards(m)[0]!.status).toBe('cancelled');
    expect(m.view().entries.at(-1)).toMatchObject({ kind: 'notice', text: 'Stopped.' });
  });

  it('shows a failed turn as an error notice, failing the cards still running', () => {
    const m = new ChatModel();
    m.turnStarted();
    feed(m, [{ sessionUpdate: 'tool_call', toolCallId: 's', title: 'x', kind: 'other', status: 'in_progress' }]);
    m.turnFailed('No model is configured.');
    expect(cards(m)[0]!.status).toBe('failed');
    expect(m.view().entries.at(-1)).toMatchObject({ kind: 'notice', level: 'error', text: 'No model is configured.' });
  });

  it('keeps usage, config options and the current mode', () => {
    const m = new ChatModel();
    m.reset('s1', [{ id: 'mode', name: 'Mode', type: 'select', currentValue: 'code', options: [{ value: 'code', name: 'Code' }, { value: 'plan', name: 'Plan' }] }]);
    feed(m, [
      { sessionUpdate: 'usage_update', used: 1240, size: 200000, cost: { amount: 0.0017, currency: 'USD' } },
      { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
    ]);
    expect(m.view()).toMatchObject({ sessionId: 's1', usage: { used: 1240, size: 200000, costUsd: 0.0017 }, config: [{ id: 'mode', currentValue: 'plan' }] });
  });

  it('ignores updates for calls it never saw (a v1 client must not invent cards)', () => {
    const m = new ChatModel();
    feed(m, [{ sessionUpdate: 'tool_call_update', toolCallId: 'nope', status: 'completed' }]);
    expect(m.view().entries).toEqual([]);
  });

  it('keeps one plan block per session where the first plan appeared; later plans replace its list', () => {
    const m = new ChatModel();
    const plan = (fix: 'pending' | 'in_progress' | 'completed'): SessionUpdate => ({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', status: 'completed', priority: 'medium' },
        { content: 'Fix', status: fix, priority: 'high' },
      ],
    });
    feed(m, [
      { sessionUpdate: 'tool_call', toolCallId: 'p1', title: 'Plan: 1 of 2 done', kind: 'think', status: 'pending' },
      plan('in_progress'),
      { sessionUpdate: 'tool_call_update', toolCallId: 'p1', status: 'completed' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Fixed.' } },
      { sessionUpdate: 'tool_call', toolCallId: 'p2', title: 'Plan: 2 of 2 done', kind: 'think', status: 'pending' },
      plan('completed'),
    ]);
    expect(m.view().entries.map((e) => e.kind)).toEqual(['tool', 'plan', 'agent', 'tool']);
    expect(m.view().entries[1]).toMatchObject({
      kind: 'plan',
      items: [
        { text: 'Read', status: 'completed', priority: 'medium' },
        { text: 'Fix', status: 'completed', priority: 'high' },
      ],
    });
  });
});
