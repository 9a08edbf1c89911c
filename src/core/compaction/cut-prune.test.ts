import { describe, expect, it } from 'vitest';
import type { Message } from '../../protocol/index.js';
import { CONTEXT_PREFIX } from '../prompt/context-notes.js';
import { applyPrune, planPrune, PRUNED_OUTPUT } from './prune.js';
import { chooseCut } from './cut.js';
import { nextPromptTokens } from './estimate.js';
import { SUMMARY_PREFIX } from '../session-state.js';

// Where a summary ends and which old outputs are cleared: pure choices over a history.

const user = (text: string): Message => ({ role: 'user', text });
const call = (id: string): Message => ({ role: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', args: { path: id } }] });
const result = (id: string, chars: number): Message => ({ role: 'tool', results: [{ callId: id, name: 'read_file', status: 'completed', output: 'x'.repeat(chars) }] });
const answer = (text: string): Message => ({ role: 'assistant', text, toolCalls: [] });

describe('chooseCut', () => {
  it('between turns: the current turn is kept whole, earlier turns summarised', () => {
    const h = [user('one'), call('a'), result('a', 10), answer('done'), user('two')];
    expect(chooseCut(h, 1000)).toBe(4);
  });

  it('inside a turn: the newest step is kept, older ones summarised while the tail stays in budget, but never the first step of several', () => {
    const h = [user('go'), call('a'), result('a', 400), call('b'), result('b', 400), call('c'), result('c', 400)];
    expect(chooseCut(h, 150)).toBe(5); // only the newest step fits
    expect(chooseCut(h, 10_000)).toBe(3); // everything fits, yet the first step is summarised
    expect(h[chooseCut(h, 150)!]!.role).toBe('assistant'); // never a tool message: no result without its call
  });

  it('nothing but the request before the cut: no summary (it would free nothing)', () => {
    expect(chooseCut([user('go'), call('a'), result('a', 10)], 1000)).toBeUndefined();
    expect(chooseCut([user(`${SUMMARY_PREFIX}earlier`), user('go'), call('a'), result('a', 10)], 1000)).toBeUndefined();
  });

  it('a context note is not the turn start: the person\'s message is', () => {
    const h = [user('one'), answer('ok'), user('two'), user(`${CONTEXT_PREFIX}AGENTS.md says…`), call('a'), result('a', 10)];
    expect(chooseCut(h, 1000)).toBe(4);
  });
});

describe('planPrune', () => {
  const h = [user('go'), call('a'), result('a', 40_000), call('b'), result('b', 40_000), call('c'), result('c', 40_000), call('d'), result('d', 40_000)];

  it('keeps the newest step and the protected newest output, clears what is older', () => {
    const plan = planPrune(h, 7, 25_000, 1000)!;
    expect(plan.indices).toEqual([2, 4]); // d (the newest step) and c are within the protected 25k tokens; a and b go
    expect(plan.freed).toBeGreaterThan(19_000);
  });

  it('clears nothing when that frees less than the minimum', () => {
    expect(planPrune(h, 7, 25_000, 50_000)).toBeUndefined();
  });

  it('applyPrune clears those outputs and keeps the calls; a cleared message is not cleared again', () => {
    const pruned = applyPrune(h, [2, 4]);
    expect(pruned[2]).toEqual({ role: 'tool', results: [{ callId: 'a', name: 'read_file', status: 'completed', output: PRUNED_OUTPUT }] });
    expect(pruned[1]).toBe(h[1]);
    expect(pruned[6]).toBe(h[6]);
    expect(planPrune(pruned, 7, 25_000, 1000)).toBeUndefined();
  });
});

describe('nextPromptTokens', () => {
  it('the last call\'s reported size plus what joined after its reply', () => {
    const h = [user('go'), call('a'), result('a', 4000)];
    expect(nextPromptTokens(h, 900, 0)).toBe(900 + 1000 + 8);
  });
  it('with no reported size: the fixed part and the whole history', () => {
    expect(nextPromptTokens([user('x'.repeat(400))], 0, 500)).toBe(500 + 100 + 4);
  });
});
