import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message, ReasoningPart } from '../protocol/index.js';
import * as A from '../../test/fakes/anthropic.js';
import { collect, providerFor, request } from '../../test/fakes/drive.js';
import { FakeServer } from '../../test/fakes/fake-server.js';
import * as R from '../../test/fakes/openai-responses.js';
import { reasoningFamily, reasoningOptions } from './reasoning.js';

let fake: FakeServer;
beforeEach(async () => (fake = await new FakeServer().start()));
afterEach(() => fake.close());

const openai = (model = 'gpt-5-codex') => providerFor(`openai/${model}`, { providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }, { OPENAI_API_KEY: 'sk-o' });
const claude = (model = 'claude-sonnet-4-5') => providerFor(`anthropic/${model}`, { providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }, { ANTHROPIC_API_KEY: 'sk-a' });
const user: Message[] = [{ role: 'user', text: 'what is in a.txt?' }];

/** The conversation after a first call that reasoned, then asked for a tool. */
function afterCall(reasoning: ReasoningPart[]): Message[] {
  return [
    ...user,
    { role: 'assistant', text: '', toolCalls: [{ id: 'call_a', name: 'read_file', args: { path: 'a.txt' } }], reasoning },
    { role: 'tool', results: [{ callId: 'call_a', name: 'read_file', status: 'completed', output: 'hello' }] },
  ];
}

const openaiReasoningReply = {
  steps: [
    R.created, ...R.reasoningItem(0, 'rs_1', ['Need ', 'the file.'], 'ENC-1'),
    R.callAdded(1, 'call_a', 'read_file'), R.callArgs(1, '{"path":"a.txt"}'), R.callDone(1, 'call_a', 'read_file', '{"path":"a.txt"}'),
    R.completed({ input: 100, cached: 0, output: 50, reasoning: 30 }),
  ],
};

describe('OpenAI Responses reasoning', () => {
  it('asks for the effort, a summary and the encrypted item with store false; streams the summary; keeps the item', async () => {
    fake.reply(openaiReasoningReply);
    const { parts, error } = await collect(openai().stream({ ...request(user), reasoning: 'high' }));
    expect(error).toBeUndefined();
    const body = fake.requests[0]!.body;
    expect(body.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    expect(body.store).toBe(false);
    expect(parts.filter((p) => p.type === 'reasoning').map((p) => (p as { text: string }).text)).toEqual(['Need ', 'the file.']);
    expect(parts.filter((p) => p.type === 'reasoning_part')).toEqual([
      { type: 'reasoning_part', part: { text: 'Need the file.', data: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC-1' } } } },
    ]);
  });

  it('hands the reasoning item back, before the call it led to, on the next call', async () => {
    fake.reply(openaiReasoningReply);
    const first = await collect(openai().stream({ ...request(user), reasoning: 'low' }));
    const kept = first.parts.flatMap((p) => (p.type === 'reasoning_part' ? [p.part] : []));
    fake.reply({ steps: [R.created, R.messageAdded(0), R.textDelta(0, 'It says hello.'), R.messageDone(0, 'It says hello.'), R.completed({ input: 200, cached: 0, output: 5, reasoning: 0 })] });
    const second = await collect(openai().stream({ ...request(afterCall(kept)), reasoning: 'low' }));
    expect(second.error).toBeUndefined();
    const input = fake.requests[1]!.body.input as Array<Record<string, unknown>>;
    const at = input.findIndex((i) => i['type'] === 'reasoning');
    expect(input[at]).toEqual({ type: 'reasoning', id: 'rs_1', encrypted_content: 'ENC-1', summary: [{ type: 'summary_text', text: 'Need the file.' }] });
    expect(input[at + 1]).toMatchObject({ type: 'function_call', call_id: 'call_a' });
    expect(fake.requests[1]!.body.reasoning).toEqual({ effort: 'low', summary: 'auto' });
  });

  it('a model outside the rule is sent no effort, and a chosen one is said once', async () => {
    const done = { steps: [R.created, R.messageAdded(0), R.textDelta(0, 'ok'), R.messageDone(0, 'ok'), R.completed({ input: 1, cached: 0, output: 1, reasoning: 0 })] };
    fake.reply(done, done);
    const p = openai('gpt-4.1');
    const a = await collect(p.stream({ ...request(user), reasoning: 'high' }));
    const b = await collect(p.stream({ ...request(user), reasoning: 'high' }));
    expect(fake.requests[0]!.body.reasoning).toBeUndefined();
    expect(fake.requests[0]!.body.store).toBeUndefined();
    const said = [...a.parts, ...b.parts].filter((x) => x.type === 'notice' && x.text.includes('takes no reasoning effort'));
    expect(said).toHaveLength(1);
    expect(p.takesReasoning).toBe(false);
  });
});

describe('Anthropic extended thinking', () => {
  const thinkingReply = {
    steps: [
      A.messageStart({ input: 10 }),
      A.thinkingStart(0), A.thinkingDelta(0, 'Read it '), A.thinkingDelta(0, 'first.'), A.signatureDelta(0, 'SIG-1'), A.blockStop(0),
      A.redactedThinking(1, 'REDACTED-1'), A.blockStop(1),
      A.toolStart(2, 'call_a', 'read_file'), A.toolArgs(2, '{"path":"a.txt"}'), A.blockStop(2),
      A.messageDelta('tool_use', 20), A.messageStop,
    ],
  };

  it('asks for thinking with the effort budget; keeps the signed block and the redacted one', async () => {
    fake.reply(thinkingReply);
    const { parts, error } = await collect(claude().stream({ ...request(user), reasoning: 'high' }));
    expect(error).toBeUndefined();
    const body = fake.requests[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    expect(body.max_tokens).toBeGreaterThan(20_000); // the answer keeps room above the budget
    expect(parts.filter((p) => p.type === 'reasoning_part')).toEqual([
      { type: 'reasoning_part', part: { text: 'Read it first.', data: { anthropic: { signature: 'SIG-1' } } } },
      { type: 'reasoning_part', part: { text: '', data: { anthropic: { redactedData: 'REDACTED-1' } } } },
    ]);
  });

  it('sends the signed thinking block back first in the assistant message on the next call', async () => {
    fake.reply(thinkingReply);
    const first = await collect(claude().stream({ ...request(user), reasoning: 'minimal' }));
    const kept = first.parts.flatMap((p) => (p.type === 'reasoning_part' ? [p.part] : []));
    fake.reply({ steps: [A.messageStart({ input: 30 }), A.textStart(0), A.textDelta(0, 'hello'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
    await collect(claude().stream({ ...request(afterCall(kept)), reasoning: 'minimal' }));
    const body = fake.requests[1]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    const assistant = (body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find((m) => m.role === 'assistant')!;
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'Read it first.', signature: 'SIG-1' });
    expect(assistant.content[1]).toEqual({ type: 'redacted_thinking', data: 'REDACTED-1' });
    expect(assistant.content[2]).toMatchObject({ type: 'tool_use', id: 'call_a' });
  });

  it("never hands one family's reasoning to the other (a model switch mid-session)", async () => {
    const done = { steps: [A.messageStart({ input: 30 }), A.textStart(0), A.textDelta(0, 'ok'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] };
    fake.reply(done);
    await collect(claude().stream({ ...request(afterCall([{ text: 'x', data: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC' } } }])), reasoning: 'high' }));
    const assistant = (fake.requests[0]!.body.messages as Array<{ role: string; content: Array<{ type: string }> }>).find((m) => m.role === 'assistant')!;
    expect(assistant.content.map((c) => c.type)).toEqual(['tool_use']);
    fake.reply({ steps: [R.created, R.messageAdded(0), R.textDelta(0, 'ok'), R.messageDone(0, 'ok'), R.completed({ input: 1, cached: 0, output: 1, reasoning: 0 })] });
    await collect(openai().stream({ ...request(afterCall([{ text: 't', data: { anthropic: { signature: 'SIG' } } }])), reasoning: 'high' }));
    expect((fake.requests[1]!.body.input as Array<{ type?: string }>).some((i) => i.type === 'reasoning')).toBe(false);
  });
});

describe('which models take an effort', () => {
  it('minimal goes to the codex line and gpt-5.1 on as low (they refuse minimal); gpt-5 gets it as it is', () => {
    const effort = (model: string) => (reasoningOptions('openai', 'minimal', model)?.['openai'] as { reasoningEffort?: string }).reasoningEffort;
    expect(effort('gpt-5-codex')).toBe('low');
    expect(effort('gpt-5.1')).toBe('low');
    expect(effort('gpt-5')).toBe('minimal');
    expect(effort('o3')).toBe('minimal');
  });

  it.each([
    ['openai', 'gpt-5', 'openai'], ['openai', 'gpt-5-codex', 'openai'], ['openai', 'gpt-5.1', 'openai'], ['openai', 'o3-mini', 'openai'],
    ['openai', 'o1', 'openai'], ['openai', 'o4-mini', 'openai'], ['openai', 'codex-mini-latest', 'openai'],
    ['openai', 'gpt-5-chat-latest', undefined], ['openai', 'gpt-4.1', undefined], ['openai', 'gpt-4o', undefined],
    ['anthropic', 'claude-3-7-sonnet-latest', 'anthropic'], ['anthropic', 'claude-sonnet-4-5', 'anthropic'], ['anthropic', 'claude-opus-4-1', 'anthropic'],
    ['anthropic', 'claude-sonnet-4-20250514', 'anthropic'], ['anthropic', 'claude-haiku-4-5', 'anthropic'],
    ['anthropic', 'claude-3-5-sonnet-latest', undefined], ['anthropic', 'claude-3-5-haiku-latest', undefined],
    ['ollama', 'gpt-5', undefined], ['openai-compatible', 'qwq', undefined],
  ] as const)('%s %s → %s', (type, model, family) => {
    expect(reasoningFamily(type, model)).toBe(family);
  });
});
