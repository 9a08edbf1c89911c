import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './failures.js';
import { toPrompt } from './messages.js';
import { resolvePrice } from './pricing.js';

describe('resolvePrice', () => {
  it.each([
    ['openai', 'gpt-5-codex', 'builtin', 1.25],
    ['anthropic', 'claude-sonnet-4-5-20250929', 'builtin', 3],
    ['openai', 'gpt-4o-mini-2024-07-18', 'builtin', 0.15],
    ['ollama', 'qwen2.5-coder', 'free', 0],
    ['openai-compatible', 'gpt-5', 'unknown', 0],
  ] as const)('%s/%s → %s at %d', (type, model, source, input) => {
    const r = resolvePrice({ type, model });
    expect(r.source).toBe(source);
    expect(r.pricing.input).toBe(input);
  });

  it('a partial config price fills its gaps from the built-in table', () => {
    const r = resolvePrice({ type: 'openai', model: 'gpt-5', override: { input: 1 }, contextWindow: 1000 });
    expect(r).toEqual({ source: 'config', contextWindow: 1000, pricing: { input: 1, output: 10, cache: 0.125, reasoning: 10 } });
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(retryAfterMs({ 'Retry-After': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 7_000)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('toPrompt', () => {
  it('answers a tool call the history left without a result', () => {
    const { messages } = toPrompt('', [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'bash', args: { command: 'ls' } }] },
      { role: 'user', text: 'again' },
    ], false);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]).toMatchObject({ content: [{ type: 'tool-result', toolCallId: 'c1', output: { type: 'error-text' } }] });
  });
});
