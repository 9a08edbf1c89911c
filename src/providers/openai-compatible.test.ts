import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { usdOf } from '../protocol/index.js';
import { collect, HISTORY, providerFor, request, textOf } from '../../test/fakes/drive.js';
import { FakeServer, gate } from '../../test/fakes/fake-server.js';
import { chatDone, chatFinish, chatReasoning, chatText, chatToolArgs, chatToolStart, chatUsage } from '../../test/fakes/openai-chat.js';
import { ModelError } from './provider.js';

const PRICE = { input: 0.1, output: 0.2, cache: 0.01, reasoning: 0.4 };
let fake: FakeServer;
const config = () => ({
  providers: { local: { type: 'openai-compatible', baseURL: `${fake.url}/v1`, apiKey: 'env:LOCAL_KEY', models: { 'qwen-coder': { contextWindow: 32768, pricing: PRICE } } } },
});
const model = () => providerFor('local/qwen-coder', config(), { LOCAL_KEY: 'sk-local' });
const user = [{ role: 'user' as const, text: 'hi' }];

beforeEach(async () => (fake = await new FakeServer().start()));
afterEach(() => fake.close());

describe('openai-compatible provider against a chat-completions fake', () => {
  it('yields each chunk before the server sends the next one', async () => {
    const g = gate();
    fake.reply({ steps: [chatText('Hel'), { gate: g }, chatText('lo'), chatFinish('stop'), chatUsage({ prompt: 5, completion: 2 }), chatDone] });
    const seen: string[] = [];
    for await (const p of model().stream(request(user))) {
      if (p.type !== 'text') continue;
      seen.push(p.text);
      if (p.text === 'Hel') {
        expect(g.opened).toBe(false); // streamed, not batched at the end
        g.open();
      }
    }
    expect(seen.join('')).toBe('Hello');
    expect(fake.requests[0]?.headers['authorization']).toBe('Bearer sk-local');
    expect(fake.requests[0]?.body.stream).toBe(true);
  });

  it('assembles two parallel tool calls from argument deltas, maps usage and prices it', async () => {
    fake.reply({
      steps: [
        chatReasoning('think'), chatText('Reading both.'),
        chatToolStart(0, 'call_a', 'read_file'), chatToolStart(1, 'call_b', 'list_dir'),
        chatToolArgs(0, '{"pa'), chatToolArgs(1, '{"path":'), chatToolArgs(0, 'th":"a.txt"}'), chatToolArgs(1, '"src"}'),
        chatFinish('tool_calls'),
        chatUsage({ prompt: 1000, completion: 300, cached: 400, reasoning: 100 }),
        chatDone,
      ],
    });
    const p = model();
    const { parts, error } = await collect(p.stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts.filter((x) => x.type === 'reasoning')).toEqual([{ type: 'reasoning', text: 'think' }]);
    expect(textOf(parts)).toBe('Reading both.');
    expect(parts.filter((x) => x.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'read_file', args: { path: 'a.txt' } },
      { type: 'tool_call', id: 'call_b', name: 'list_dir', args: { path: 'src' } },
    ]);
    const usage = parts.find((x) => x.type === 'usage');
    expect(usage).toEqual({ type: 'usage', usage: { input: 600, output: 200, cache: 400, reasoning: 100 } });
    expect(p.contextWindow).toBe(32768);
    expect(usdOf(usage!.usage, p.pricing)).toBeCloseTo((600 * 0.1 + 200 * 0.2 + 400 * 0.01 + 100 * 0.4) / 1e6, 12);
    expect(fake.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(fake.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['read_file', 'list_dir']);
  });

  it('sends history with tool calls and tool results in chat-completions shape', async () => {
    fake.reply({ steps: [chatText('ok'), chatFinish('stop'), chatDone] });
    await collect(model().stream(request(HISTORY)));
    const msgs = fake.requests[0]?.body.messages;
    expect(msgs[0]).toEqual({ role: 'system', content: 'You are ferret.' });
    expect(msgs[2]).toMatchObject({
      role: 'assistant',
      content: 'Looking.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
        { id: 'call_2', type: 'function', function: { name: 'list_dir', arguments: '{"path":"src"}' } },
      ],
    });
    expect(msgs[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'hello' });
    expect(msgs[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_2' });
    expect(msgs[4].content).toContain('no such folder');
    expect(msgs[5]).toEqual({ role: 'user', content: 'thanks' });
  });

  it('retries a 429 after its retry-after, with a notice, then succeeds', async () => {
    fake.reply(
      { status: 429, headers: { 'retry-after-ms': '30' }, json: { error: { message: 'Rate limit reached', type: 'rate_limit' } } },
      { steps: [chatText('done'), chatFinish('stop'), chatDone] },
    );
    const { parts, error } = await collect(model().stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts[0]).toEqual({ type: 'notice', level: 'warning', text: 'local/qwen-coder: HTTP 429 (rate limited); retrying in 30 ms (attempt 2 of 3)' });
    expect(textOf(parts)).toBe('done');
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up after three 5xx answers with a clear error', async () => {
    for (let i = 0; i < 3; i++) fake.reply({ status: 503, json: { error: { message: 'overloaded' } } });
    const { parts, error } = await collect(model().stream(request(user)));
    expect(parts.filter((p) => p.type === 'notice')).toHaveLength(2);
    expect(error).toBeInstanceOf(ModelError);
    expect(error?.message).toBe('local/qwen-coder: provider error (HTTP 503): overloaded (gave up after 3 attempts)');
  });

  it('does not retry when retry-after exceeds the wait budget', async () => {
    fake.reply({ status: 429, headers: { 'retry-after': '60' }, json: { error: { message: 'slow down' } } });
    const { error } = await collect(model().stream(request(user)));
    expect(error?.message).toMatch(/rate limited \(HTTP 429\): slow down; the provider asks to wait 60 s/);
    expect(fake.requests).toHaveLength(1);
  });

  it('turns 401 into a message that names the key', async () => {
    fake.reply({ status: 401, json: { error: { message: 'Incorrect API key provided' } } });
    const { error } = await collect(model().stream(request(user)));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(false);
    expect(error?.message).toBe('local/qwen-coder: authentication failed (HTTP 401): Incorrect API key provided. Check LOCAL_KEY (providers.local.apiKey in config.json).');
    expect(fake.requests).toHaveLength(1);
  });

  it('a connection cut mid-stream is retried; what was shown is not shown again, and a half-made call never runs', async () => {
    fake.reply(
      { steps: [chatText('one '), chatText('two '), chatText('three '), chatToolStart(0, 'call_a', 'read_file', '{"pa'), { delayMs: 50 }, { destroy: true }] },
      { steps: [chatText('one two '), chatText('three four'), chatFinish('stop'), chatDone] },
    );
    const { parts, error } = await collect(model().stream(request(user)));
    expect(error).toBeUndefined();
    expect(parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''))).toEqual(['one ', 'two ', 'three ', 'four']);
    expect(parts.some((p) => p.type === 'tool_call')).toBe(false);
    expect(parts.some((p) => p.type === 'notice' && /stream cut|connection lost|cut off/.test(p.text))).toBe(true);
    expect(fake.requests).toHaveLength(2);
  });

  it('a retried reply that differs from what was shown restarts the reply, with a notice', async () => {
    fake.reply({ steps: [chatText('Hello th'), { delayMs: 30 }, { destroy: true }] }, { steps: [chatText('Hi there'), chatFinish('stop'), chatDone] });
    const { parts, error } = await collect(model().stream(request(user)));
    expect(error).toBeUndefined();
    const after = parts.slice(parts.findIndex((p) => p.type === 'restart'));
    expect(after[0]).toEqual({ type: 'restart' });
    expect(textOf(after)).toBe('Hi there');
    expect(parts.some((p) => p.type === 'notice' && /differs from the part already shown/.test(p.text))).toBe(true);
  });

  it('a cut that keeps coming gives up after the attempts, keeping the partial text', async () => {
    for (let i = 0; i < 3; i++) fake.reply({ steps: [chatText('partial '), { delayMs: 20 }, { destroy: true }] });
    const { parts, error } = await collect(model().stream(request(user)));
    expect(textOf(parts)).toBe('partial ');
    expect(error).toBeInstanceOf(ModelError);
    expect(error?.message).toMatch(/gave up after 3 attempts.*partial reply is kept/);
  });

  it('a stream that ends without a finish reason is a cut, not a success', async () => {
    for (let i = 0; i < 3; i++) fake.reply({ steps: [chatText('half')] });
    const { error } = await collect(model().stream(request(user)));
    expect(error?.message).toMatch(/cut off mid-way/);
  });

  it('a silent server times out instead of hanging the turn', async () => {
    const g = gate();
    for (let i = 0; i < 3; i++) fake.reply({ steps: [chatText('a'), { gate: g }] });
    const { error } = await collect(model().stream(request(user)));
    g.open();
    expect(error?.message).toMatch(/sent no data for 2 s/);
  }, 15_000);

  it('Stop during a retry wait ends the wait at once', async () => {
    fake.reply({ status: 429, headers: { 'retry-after': '5' }, json: { error: { message: 'slow down' } } });
    const ac = new AbortController();
    const started = Date.now();
    const run = collect((async function* () {
      for await (const p of model().stream(request(user, ac.signal))) {
        if (p.type === 'notice') setTimeout(() => ac.abort(), 50);
        yield p;
      }
    })());
    const { parts, error } = await run;
    expect(parts[0]).toMatchObject({ type: 'notice', text: expect.stringContaining('retrying in 5 s') });
    expect(error).toBeDefined();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports the finish reason: the output-token limit and a refusal', async () => {
    fake.reply({ steps: [chatText('cut'), chatFinish('length'), chatDone] }, { steps: [chatText('no'), chatFinish('content_filter'), chatDone] });
    const a = await collect(model().stream(request(user)));
    expect(a.parts.at(-1)).toEqual({ type: 'finish', reason: 'length' });
    const b = await collect(model().stream(request(user)));
    expect(b.parts.at(-1)).toEqual({ type: 'finish', reason: 'refusal' });
  });

  it('an unknown model costs 0 and says so once', async () => {
    fake.reply({ steps: [chatFinish('stop'), chatDone] }, { steps: [chatFinish('stop'), chatDone] });
    const p = providerFor('local/mystery', config());
    const first = await collect(p.stream(request(user)));
    const second = await collect(p.stream(request(user)));
    expect(first.parts[0]).toMatchObject({ type: 'notice', level: 'info' });
    expect(first.parts[0]?.type === 'notice' && first.parts[0].text).toMatch(/no price is known/);
    expect(second.parts.some((x) => x.type === 'notice')).toBe(false);
    expect(p.pricing).toEqual({ input: 0, output: 0, cache: 0, reasoning: 0 });
  });
});
