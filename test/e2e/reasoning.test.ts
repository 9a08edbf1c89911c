import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import { v1PerTest } from '../support/acp-v1-client.js';

type Update = acp.SessionUpdate;
const thoughts = (ups: Update[]) =>
  ups.flatMap((u) => (u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' ? [u.content.text] : []));
const answer = (ups: Update[]) =>
  ups.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
const effortOf = (opts: acp.SessionConfigOption[] | null | undefined) => opts?.find((o) => o.id === 'reasoning');

describe('reasoning effort and reasoning kept between calls, from the built CLI over ACP v1 (official SDK)', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer;
  const config = (extra: Record<string, unknown>) => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify(extra));
  };
  beforeEach(async () => {
    fake = await new FakeServer().start();
    writeFileSync(join(env.ws, 'a.txt'), 'alpha\n');
  });
  afterEach(() => fake.close());

  it('OpenAI: the thought_level option sets the effort; summaries stream as thoughts; the reasoning item goes back on the next call', async () => {
    config({ reasoning: 'low', providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } });
    fake.reply(
      {
        steps: [
          R.created, ...R.reasoningItem(0, 'rs_1', ['Read ', 'a.txt first.'], 'ENC-1'),
          R.callAdded(1, 'call_a', 'read_file'), R.callArgs(1, '{"path":"a.txt"}'), R.callDone(1, 'call_a', 'read_file', '{"path":"a.txt"}'),
          R.completed({ input: 100, cached: 0, output: 20, reasoning: 10 }),
        ],
      },
      { steps: [R.created, R.messageAdded(0), R.textDelta(0, 'It says alpha.'), R.messageDone(0, 'It says alpha.'), R.completed({ input: 150, cached: 0, output: 5, reasoning: 0 })] },
      { steps: [R.created, R.messageAdded(0), R.textDelta(0, 'ok'), R.messageDone(0, 'ok'), R.completed({ input: 10, cached: 0, output: 1, reasoning: 0 })] },
    );
    const c = start(['--model', 'openai/gpt-5-codex', '--approval', 'full-auto'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    // config.json's default, offered as codex-acp offers it.
    expect(effortOf(s.configOptions)).toMatchObject({ category: 'thought_level', type: 'select', currentValue: 'low' });
    expect((effortOf(s.configOptions) as { options: Array<{ value: string }> }).options.map((o) => o.value)).toEqual(['minimal', 'low', 'medium', 'high']);
    const set = await c.agent.request('session/set_config_option', { sessionId: s.sessionId, configId: 'reasoning', value: 'high' });
    expect(effortOf(set.configOptions)?.currentValue).toBe('high');

    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'what does a.txt say?' }] });
    expect(r.stopReason).toBe('end_turn');
    const ups = c.of(s.sessionId);
    expect(thoughts(ups)).toEqual(['Read ', 'a.txt first.']);
    expect(answer(ups)).toBe('It says alpha.');

    const [first, second] = fake.requests.map((q) => q.body);
    expect(first.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(first.include).toEqual(['reasoning.encrypted_content']);
    expect(first.store).toBe(false);
    const input = second.input as Array<Record<string, unknown>>;
    const at = input.findIndex((i) => i['type'] === 'reasoning');
    expect(input[at]).toEqual({ type: 'reasoning', id: 'rs_1', encrypted_content: 'ENC-1', summary: [{ type: 'summary_text', text: 'Read a.txt first.' }] });
    expect(input[at + 1]).toMatchObject({ type: 'function_call', call_id: 'call_a' });

    // The slash command: says the level and the choices, and a change is the next call's effort.
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/reasoning' }] });
    expect(answer(c.of(s.sessionId))).toContain('reasoning: high (one of minimal, low, medium, high)');
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/reasoning minimal' }] });
    const options = c.of(s.sessionId).filter((u) => u.sessionUpdate === 'config_option_update').at(-1) as { configOptions: acp.SessionConfigOption[] };
    expect(effortOf(options.configOptions)?.currentValue).toBe('minimal');
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'again' }] });
    // gpt-5-codex refuses minimal: it is sent the least it takes.
    expect(fake.requests[2]!.body.reasoning).toEqual({ effort: 'low', summary: 'auto' });
    // The earlier call's item still goes back (the history holds it).
    expect((fake.requests[2]!.body.input as Array<{ type?: string; id?: string }>).some((i) => i.type === 'reasoning' && i.id === 'rs_1')).toBe(true);
    await c.close();

    // A new process resumes the session with the effort it had.
    const d = start(['--model', 'openai/gpt-5-codex'], { OPENAI_API_KEY: 'sk-test' });
    await d.initialize();
    const loaded = await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    expect(effortOf(loaded.configOptions)?.currentValue).toBe('minimal');
  });

  it('Anthropic: extended thinking at the effort budget; thoughts stream; the signed block is kept for the next call', async () => {
    config({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } });
    fake.reply(
      {
        steps: [
          A.messageStart({ input: 100 }),
          A.thinkingStart(0), A.thinkingDelta(0, 'I should '), A.thinkingDelta(0, 'read it.'), A.signatureDelta(0, 'SIG-1'), A.blockStop(0),
          A.toolStart(1, 'toolu_1', 'read_file'), A.toolArgs(1, '{"path":"a.txt"}'), A.blockStop(1),
          A.messageDelta('tool_use', 30), A.messageStop,
        ],
      },
      { steps: [A.messageStart({ input: 200 }), A.textStart(0), A.textDelta(0, 'alpha'), A.blockStop(0), A.messageDelta('end_turn', 3), A.messageStop] },
    );
    const c = start(['--model', 'anthropic/claude-sonnet-4-5', '--approval', 'full-auto'], { ANTHROPIC_API_KEY: 'sk-ant' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    expect(effortOf(s.configOptions)?.currentValue).toBe('medium'); // no config: the default
    await c.agent.request('session/set_config_option', { sessionId: s.sessionId, configId: 'reasoning', value: 'high' });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'read a.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(thoughts(c.of(s.sessionId))).toEqual(['I should ', 'read it.']);

    const [first, second] = fake.requests.map((q) => q.body);
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    expect(first.max_tokens).toBeGreaterThan(20_000);
    const assistant = (second.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find((m) => m.role === 'assistant')!;
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'I should read it.', signature: 'SIG-1' });
    expect(assistant.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_1' });
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
  });
});
