import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { usdOf } from '../protocol/index.js';
import * as A from '../../test/fakes/anthropic.js';
import { collect, HISTORY, providerFor, request, textOf } from '../../test/fakes/drive.js';
import { FakeServer, gate } from '../../test/fakes/fake-server.js';
import { ModelError } from './provider.js';

let fake: FakeServer;
// The built-in provider with only its baseURL overridden: the price comes from the built-in table.
const model = () => providerFor('anthropic/claude-sonnet-4-5', { providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }, { ANTHROPIC_API_KEY: 'sk-ant' });
const user = [{ role: 'user' as const, text: 'hi' }];

beforeEach(async () => (fake = await new FakeServer().start()));
afterEach(() => fake.close());

describe('anthropic provider against a messages-SSE fake', () => {
  it('yields each text delta before the server sends the next one', async () => {
    const g = gate();
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'Hel'), { gate: g }, A.textDelta(0, 'lo'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
    const seen: string[] = [];
    for await (const p of model().stream(request(user))) {
      if (p.type !== 'text') continue;
      seen.push(p.text);
      if (p.text === 'Hel') {
        expect(g.opened).toBe(false);
        g.open();
      }
    }
    expect(seen.join('')).toBe('Hello');
    expect(fake.requests[0]?.path).toBe('/v1/messages');
    expect(fake.requests[0]?.headers['x-api-key']).toBe('sk-ant');
  });

  it('two parallel tool_use blocks, thinking, usage with cache reads, priced from the built-in table', async () => {
    fake.reply({
      steps: [
        A.messageStart({ input: 200, cacheRead: 5000, cacheWrite: 300 }), A.ping,
        A.thinkingStart(0), A.thinkingDelta(0, 'plan'), A.blockStop(0),
        A.textStart(1), A.textDelta(1, 'Both.'), A.blockStop(1),
        A.toolStart(2, 'toolu_1', 'read_file'), A.toolArgs(2, '{"path":'), A.toolArgs(2, '"a.txt"}'), A.blockStop(2),
        A.toolStart(3, 'toolu_2', 'list_dir'), A.toolArgs(3, ''), A.toolArgs(3, '{"path":"src"}'), A.blockStop(3),
        A.messageDelta('tool_use', 120), A.messageStop,
      ],
    });
    const p = model();
    const { parts, error } = await collect(p.stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts.filter((x) => x.type === 'reasoning')).toEqual([{ type: 'reasoning', text: 'plan' }]);
    expect(textOf(parts)).toBe('Both.');
    expect(parts.filter((x) => x.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 'toolu_1', name: 'read_file', args: { path: 'a.txt' } },
      { type: 'tool_call', id: 'toolu_2', name: 'list_dir', args: { path: 'src' } },
    ]);
    const usage = parts.find((x) => x.type === 'usage');
    // cache writes are billed as input; cache reads are `cache`
    expect(usage).toEqual({ type: 'usage', usage: { input: 500, output: 120, cache: 5000, reasoning: 0 } });
    expect(p.pricing).toEqual({ input: 3, output: 15, cache: 0.3, reasoning: 15 });
    expect(usdOf(usage!.usage, p.pricing)).toBeCloseTo((500 * 3 + 120 * 15 + 5000 * 0.3) / 1e6, 12);
    expect(parts.some((x) => x.type === 'notice')).toBe(false);
  });

  it('sends history as tool_use/tool_result blocks with cache breakpoints on system and the last message', async () => {
    fake.reply({ steps: [A.messageStart({ input: 1 }), A.messageDelta('end_turn', 1), A.messageStop] });
    await collect(model().stream(request(HISTORY)));
    const body = fake.requests[0]?.body;
    expect(body.system).toEqual([{ type: 'text', text: 'You are ferret.', cache_control: { type: 'ephemeral' } }]);
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'call_2', name: 'list_dir', input: { path: 'src' } },
      ],
    });
    const results = body.messages[2].content;
    expect(results[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1', content: 'hello' });
    expect(results[1]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_2', is_error: true });
    const last = body.messages[body.messages.length - 1];
    expect(last.content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('retries a 429 with retry-after, then succeeds', async () => {
    fake.reply(
      { status: 429, headers: { 'retry-after': '0' }, json: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } } },
      { steps: [A.messageStart({ input: 1 }), A.textStart(0), A.textDelta(0, 'ok'), A.blockStop(0), A.messageDelta('end_turn', 1), A.messageStop] },
    );
    const { parts, error } = await collect(model().stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts[0]).toMatchObject({ type: 'notice', level: 'warning', text: expect.stringContaining('HTTP 429') });
    expect(textOf(parts)).toBe('ok');
  });

  it('401 names ANTHROPIC_API_KEY', async () => {
    fake.reply({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const { error } = await collect(model().stream(request(user)));
    expect(error?.message).toBe('anthropic/claude-sonnet-4-5: authentication failed (HTTP 401): invalid x-api-key. Check ANTHROPIC_API_KEY.');
  });

  it('a stream that stops before message_delta is a cut: retried, then given up with the partial text kept', async () => {
    for (let i = 0; i < 3; i++) fake.reply({ steps: [A.messageStart({ input: 1 }), A.textStart(0), A.textDelta(0, 'half')] });
    const { parts, error } = await collect(model().stream(request(user)));
    expect(textOf(parts)).toBe('half');
    expect(error).toBeInstanceOf(ModelError);
    expect(error?.message).toMatch(/cut off mid-way.*gave up after 3 attempts.*partial reply is kept/);
    expect(fake.requests).toHaveLength(3);
  });

  it('an overloaded_error event mid-stream is the 529 it stands for: retried, and the text is shown once', async () => {
    fake.reply(
      { steps: [A.messageStart({ input: 1 }), A.textStart(0), A.textDelta(0, 'Half '), A.errorEvent('overloaded_error', 'Overloaded')] },
      { steps: [A.messageStart({ input: 1 }), A.textStart(0), A.textDelta(0, 'Half '), A.textDelta(0, 'and whole.'), A.blockStop(0), A.messageDelta('end_turn', 4), A.messageStop] },
    );
    const { parts, error } = await collect(model().stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts.filter((p) => p.type === 'notice').map((p) => p.text)).toEqual([expect.stringMatching(/^anthropic\/claude-sonnet-4-5: HTTP 529; retrying in /)]);
    expect(textOf(parts)).toBe('Half and whole.');
    expect(fake.requests).toHaveLength(2);
  });

  it('an error event that no retry mends fails at once, in words (not "[object Object]"), the partial text kept', async () => {
    fake.reply({ steps: [A.messageStart({ input: 1 }), A.textStart(0), A.textDelta(0, 'Half'), A.errorEvent('invalid_request_error', 'messages: text content blocks must be non-empty')] });
    const { parts, error } = await collect(model().stream(request(user)));
    expect(textOf(parts)).toBe('Half');
    expect(error).toBeInstanceOf(ModelError);
    expect(error?.message).toBe(
      'anthropic/claude-sonnet-4-5: request rejected (HTTP 400): messages: text content blocks must be non-empty. The partial reply is kept; send another message to continue',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('a missing key fails the call with advice, without a request', async () => {
    const p = providerFor('anthropic/claude-sonnet-4-5', {}, {});
    const { error } = await collect(p.stream(request(user)));
    expect(error?.message).toBe('anthropic/claude-sonnet-4-5: no API key; set ANTHROPIC_API_KEY');
  });
});
