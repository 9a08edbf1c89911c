import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, retryDelayMs, seconds } from './backoff.js';
import { ShownText } from './shown-text.js';

describe('retry waits', () => {
  it('take the provider figure when it gives one, else double from 2 s with jitter in the upper half, up to 30 s', () => {
    expect(retryDelayMs(1, DEFAULT_RETRY, 20_000)).toBe(20_000);
    expect(retryDelayMs(1, DEFAULT_RETRY, undefined, () => 0)).toBe(1000);
    expect(retryDelayMs(1, DEFAULT_RETRY, undefined, () => 1)).toBe(2000);
    expect(retryDelayMs(3, DEFAULT_RETRY, undefined, () => 1)).toBe(8000);
    expect(retryDelayMs(9, DEFAULT_RETRY, undefined, () => 1)).toBe(30_000);
    expect(retryDelayMs(9, DEFAULT_RETRY, undefined, () => 0)).toBe(15_000);
    expect(DEFAULT_RETRY.maxAttempts).toBe(10);
    expect(seconds(20_000)).toBe('20 s');
    expect(seconds(250)).toBe('250 ms');
  });
});

describe('what a retried reply shows', () => {
  it('passes on only what goes past the text already shown, split however the chunks come', () => {
    const s = new ShownText();
    const out: string[] = [];
    const feed = (t: string) => s.pass({ type: 'text', text: t }).forEach((p) => p.type === 'text' && out.push(p.text));
    ['one ', 'two ', 'thr'].forEach(feed);
    s.restart();
    ['o', 'ne two th', 'ree', ' four'].forEach(feed);
    expect(out.join('')).toBe('one two three four');
  });

  it('a retry that says something else restarts the reply after a notice', () => {
    const s = new ShownText();
    s.pass({ type: 'text', text: 'Hello' });
    s.restart();
    expect(s.pass({ type: 'text', text: 'He' })).toEqual([]);
    const parts = s.pass({ type: 'text', text: 'y' });
    expect(parts.map((p) => p.type)).toEqual(['notice', 'restart', 'text']);
    expect(parts.at(-1)).toEqual({ type: 'text', text: 'Hey' });
    expect(s.pass({ type: 'text', text: ' you' })).toEqual([{ type: 'text', text: ' you' }]);
  });
});
