import * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import { chatDone, chatFinish, chatText, chatUsage } from '../fakes/openai-chat.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

// Compaction inside a turn, from the built CLI: what the ferret dialect on stdio, an SSE reader
// and an official ACP v1 client see, and what a recording OpenAI Responses server is sent.

const TOKEN = 'tok-compaction-0123456789';
const read = { name: 'read_file', arguments: { path: 'a.txt' } };
/** A 1,000-token window whose calls report 850, 950, then (after the summary) 1,200 tokens. */
const FILLING = {
  contextWindow: 1000,
  responses: [
    { chunks: ['Reading a.'], toolCalls: [read], usage: { input: 800, output: 50 } },
    { chunks: ['Once more.'], toolCalls: [read], usage: { input: 900, output: 50 } },
    { chunks: ['SUMMARY: a.txt was read twice; it says alpha.'] },
    { chunks: ['It says alpha.'], usage: { input: 1150, output: 50 } },
  ],
};

describe('a long turn is compacted before the call that would not fit', () => {
  const { env, start, startHttp } = ferretPerTest();
  beforeEach(() => writeFileSync(join(env.ws, 'a.txt'), 'alpha\n'));

  it('the ferret dialect on stdio: history_compacted with what it freed, then the turn ends end_turn', async () => {
    const model = writeScript(env.home, 'model.json', FILLING);
    const srv = start(['--model', `scripted:${model}`, '--approval', 'full-auto']);
    const id = (await srv.call('session/new', {}))['sessionId'] as string;
    const r = await srv.call('session/message', { sessionId: id, text: 'what does a.txt say?' });
    expect(r).toMatchObject({ stopReason: 'end_turn', message: { text: 'It says alpha.' } });
    const kinds = srv.updates(id).map((u) => u['kind']);
    const compacted = srv.updates(id).find((u) => u['kind'] === 'history_compacted');
    expect(compacted).toMatchObject({ summary: expect.stringContaining('SUMMARY: a.txt was read twice'), tokens_before: expect.any(Number), freed_tokens: expect.any(Number) });
    // Before the third call: after both tool results, before the answer.
    expect(kinds.lastIndexOf('tool_call_end')).toBeLessThan(kinds.indexOf('history_compacted'));
    expect(kinds.indexOf('history_compacted')).toBeLessThan(kinds.lastIndexOf('agent_message_chunk'));
    expect(srv.updates(id).filter((u) => u['kind'] === 'tool_call_end')).toHaveLength(2);
  });

  it('SSE readers get the history_compacted loop_event', async () => {
    const model = writeScript(env.home, 'model.json', FILLING);
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    const done = await api(url, 'POST', `/session/${id}/message`, { text: 'what does a.txt say?' }, TOKEN);
    expect(done.body).toMatchObject({ stopReason: 'end_turn' });
    await sse.waitFor((fs) => fs.some((f) => f.event === 'loop_event' && f.data.kind === 'history_compacted'));
    sse.close();
  });
});

describe('ACP v1 clients see a compaction only when they advertise session.compaction', () => {
  const t = v1PerTest();
  beforeEach(() => writeFileSync(join(t.env.ws, 'a.txt'), 'alpha\n'));

  for (const advertised of [true, false]) {
    it(advertised ? 'advertised: one compaction_update, completed, with the summary' : 'not advertised: none (the notice says it)', async () => {
      const model = writeScript(t.env.home, 'model.json', FILLING);
      const c = t.start(['--model', `scripted:${model}`, '--approval', 'full-auto']);
      const session = advertised ? { notices: {}, compaction: {} } : { notices: {} };
      await c.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: false, session });
      const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
      const r = await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'what does a.txt say?' }] });
      expect(r.stopReason).toBe('end_turn');
      const ups = c.of(s.sessionId);
      const compactions = ups.filter((u) => u.sessionUpdate === 'compaction_update');
      const notice = ups.find((u) => u.sessionUpdate === 'notice' && /summarised/.test(String((u as { title?: unknown }).title)));
      expect(notice).toBeDefined();
      if (!advertised) {
        expect(compactions).toEqual([]);
        return;
      }
      expect(compactions).toHaveLength(1);
      expect(compactions[0]).toMatchObject({ status: 'completed', compactionId: expect.any(String), summary: [{ type: 'text', text: expect.stringContaining('SUMMARY: a.txt') }] });
    });
  }
});

describe('a context-length refusal from an OpenAI Responses server', () => {
  const t = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(t.env.home, 'ferret'), { recursive: true });
    writeFileSync(join(t.env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(() => fake.close());

  const say = (text: string, input: number) => ({ steps: [R.created, R.messageAdded(0), R.textDelta(0, text), R.messageDone(0, text), R.completed({ input, cached: 0, output: 5, reasoning: 0 })] });

  it('gets one compacted retry, and the turn succeeds', async () => {
    fake.reply(
      say('First answer.', 100),
      {
        status: 400,
        json: { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } },
      },
      say('SUMMARY: the person asked one thing.', 50),
      say('Second answer.', 40),
    );
    const c = t.start(['--model', 'openai/gpt-4.1'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    const prompt = (text: string) => c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text }] });
    expect((await prompt('one')).stopReason).toBe('end_turn');
    expect((await prompt('two')).stopReason).toBe('end_turn');

    expect(fake.requests).toHaveLength(4);
    const [, refused, summary, retried] = fake.requests.map((q) => q.body);
    expect(JSON.stringify(refused.input)).toContain('First answer.');
    expect(String(summary.instructions ?? JSON.stringify(summary.input))).toMatch(/You compact a coding session/);
    const retriedText = JSON.stringify(retried.input);
    expect(retriedText).toContain('SUMMARY: the person asked one thing.');
    expect(retriedText).not.toContain('First answer.');
    expect(retriedText).toContain('two');
    const answer = c.of(s.sessionId).flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(answer).toContain('Second answer.');
  });
});

describe('a local OpenAI-compatible server with no configured window', () => {
  const t = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(t.env.home, 'ferret'), { recursive: true });
    writeFileSync(join(t.env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(() => fake.close());

  const say = (text: string, prompt: number) => ({ steps: [chatText(text), chatFinish('stop'), chatUsage({ prompt, completion: 5 }), chatDone] });
  async function session() {
    const c = t.start(['--model', 'local/qwen']);
    await c.initialize();
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    const prompt = async (text: string) => (await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text }] })).stopReason;
    return { c, id: s.sessionId, prompt };
  }

  it('reports the window llama.cpp says it runs with, and compaction judges by it', async () => {
    fake.windowInfo.set('/props', { default_generation_settings: { n_ctx: 4096 } });
    fake.reply(say('First answer.', 3800), say('SUMMARY: one question so far.', 3800), say('Second answer.', 200));
    const { c, id, prompt } = await session();
    expect(await prompt('one')).toBe('end_turn');
    const usage = c.of(id).filter((u) => u.sessionUpdate === 'usage_update');
    expect(usage.at(-1)).toMatchObject({ size: 4096, used: 3805 });
    expect(await prompt('two')).toBe('end_turn');
    // 3,805 of 4,096 tokens: the second turn first summarises the first.
    expect(fake.requests).toHaveLength(3);
    expect(JSON.stringify(fake.requests[1]!.body.messages[0])).toContain('You compact a coding session');
    expect(JSON.stringify(fake.requests[2]!.body.messages)).toContain('SUMMARY: one question so far.');
    expect(fake.probes.filter((p) => p.path === '/props')).toHaveLength(1); // asked once per process
  });

  it('a server that does not say: no usage_update claims a size, and no compaction by size', async () => {
    fake.reply(say('First answer.', 3800), say('Second answer.', 3900));
    const { c, id, prompt } = await session();
    expect(await prompt('one')).toBe('end_turn');
    expect(await prompt('two')).toBe('end_turn');
    expect(c.of(id).filter((u) => u.sessionUpdate === 'usage_update')).toEqual([]);
    expect(fake.requests).toHaveLength(2);
  });
});
