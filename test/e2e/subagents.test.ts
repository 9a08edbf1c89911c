import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import { chatDone, chatFinish, chatText, chatToolStart, chatUsage } from '../fakes/openai-chat.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import type { Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

// The task tool from the built CLI: an ACP v1 editor on stdio and an SSE reader on loopback HTTP
// watch one session whose model hands a search to a subagent.

const PRICE = { input: 1, output: 2, cache: 0, reasoning: 0 };
const u = (input: number, output: number) => ({ input, output });

describe('subagents (the task tool) seen by an ACP v1 editor and an SSE reader', () => {
  const { env, start } = v1PerTest();

  it("the child's grep and read reach both clients under the task call, and its cost is in the session's total", async () => {
    writeFileSync(join(env.ws, 'parser.ts'), 'export function parseLine(s: string) {\n  return s.trim();\n}\n');
    const model = writeScript(env.ws, 'model.json', {
      pricing: PRICE,
      contextWindow: 100000,
      responses: [
        { chunks: ['Delegating.'], toolCalls: [{ name: 'task', arguments: { description: 'find parseLine', prompt: 'Where is parseLine defined?' } }], usage: u(100, 10) },
        { chunks: ['It is in parser.ts.'], usage: u(200, 5) },
      ],
      subagents: {
        'find parseLine': [
          { chunks: ['Searching.'], toolCalls: [{ name: 'grep', arguments: { pattern: 'function parseLine' } }], usage: u(1000, 20) },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'parser.ts' } }], usage: u(1500, 10) },
          { chunks: ['parseLine: parser.ts line 1.'], usage: u(2000, 30) },
        ],
      },
    });
    const c = start(['--model', `scripted:${model}`, '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId } = await c.agent.request<{ sessionId: string }>('session/new', { cwd: env.ws, mcpServers: [] });
    const sse = new SseClient(url, `/session/${sessionId}/events`);
    expect(await sse.opened).toBe(200);

    const r = await c.agent.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'where is parseLine?' }] });
    expect(r.stopReason).toBe('end_turn');
    await sse.waitFor((frames) => frames.some((f) => f.event === 'result'));

    // ACP v1: the child's calls are tool calls of their own, naming the task call in _meta.
    const v1 = c.of(sessionId);
    const calls = v1.filter((x) => x.sessionUpdate === 'tool_call');
    expect(calls.map((x) => [x.toolCallId, x.title, (x._meta?.['ferret.dev'] as { parentToolCallId?: string } | undefined)?.parentToolCallId])).toEqual([
      ['call_1_1', 'task: find parseLine', undefined],
      ['call_1_1:call_1_1', expect.stringContaining('function parseLine'), 'call_1_1'],
      ['call_1_1:call_2_1', expect.stringContaining('parser.ts'), 'call_1_1'],
    ]);
    // The task's card shows the child's progress, then its answer.
    const card = v1.filter((x) => x.sessionUpdate === 'tool_call_update' && x.toolCallId === 'call_1_1');
    const shown = card.flatMap((x) => (x.sessionUpdate === 'tool_call_update' ? (x.content ?? []) : [])).map((b) => (b.type === 'content' && b.content.type === 'text' ? b.content.text : ''));
    expect(shown.some((t) => t.startsWith('▸ '))).toBe(true);
    expect(shown.some((t) => t.includes('✓') && t.includes('Searching.'))).toBe(true);
    expect(card.at(-1)).toMatchObject({ status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'parseLine: parser.ts line 1.' } }] });
    // The child's words never join the session's own reply.
    const said = v1.map((x) => (x.sessionUpdate === 'agent_message_chunk' && x.content.type === 'text' ? x.content.text : '')).join('');
    expect(said).toBe('Delegating.It is in parser.ts.');
    // Its cost is in the total the editor shows.
    const total = (100 + 200 + 1000 + 1500 + 2000) * 1 + (10 + 5 + 20 + 10 + 30) * 2;
    const usage = v1.filter((x) => x.sessionUpdate === 'usage_update');
    expect(usage.at(-1)).toMatchObject({ cost: { amount: expect.closeTo(total / 1e6, 12) } });

    // SSE: the same calls with parent_id, the child's text as subagent_chunk, its cost_update frames.
    const loop = sse.frames.filter((f) => f.event === 'loop_event').map((f) => f.data);
    expect(loop.filter((d) => d['kind'] === 'tool_call_start').map((d) => [d['id'], d['tool'], d['parent_id']])).toEqual([
      ['call_1_1', 'task', undefined],
      ['call_1_1:call_1_1', 'grep', 'call_1_1'],
      ['call_1_1:call_2_1', 'read_file', 'call_1_1'],
    ]);
    expect(loop.filter((d) => d['kind'] === 'tool_call_end' && d['parent_id'] === 'call_1_1')).toHaveLength(2);
    expect(loop.filter((d) => d['kind'] === 'subagent_chunk').map((d) => [d['parent_id'], d['text']])).toEqual([
      ['call_1_1', 'Searching.'],
      ['call_1_1', 'parseLine: parser.ts line 1.'],
    ]);
    const costs = loop.filter((d) => d['kind'] === 'cost_update');
    expect(costs.filter((d) => d['parent_id'] === 'call_1_1')).toHaveLength(3);
    expect(costs.at(-1)!['total_usd']).toBeCloseTo(total / 1e6, 12);
    expect(costs.at(-1)).toMatchObject({ input: 4800, output: 75 });
    sse.close();
  });

  it('Stop (ACP session/cancel) ends the child and the parent; HTTP cancel does the same', async () => {
    // Each turn's one model call asks for the same task; each child reads its own list from the top.
    const task = { toolCalls: [{ name: 'task', arguments: { description: 'slow', prompt: 'take your time' } }] };
    const model = writeScript(env.ws, 'slow.json', { responses: [task, task], subagents: { slow: [{ chunks: ['working', ' on', ' it'], delayMs: 20000 }] } });
    const c = start(['--model', `scripted:${model}`, '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId } = await c.agent.request<{ sessionId: string }>('session/new', { cwd: env.ws, mcpServers: [] });
    const sse = new SseClient(url, `/session/${sessionId}/events`);
    await sse.opened;

    // ACP Stop while the child is mid-reply.
    const prompt = c.agent.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await sse.waitFor((frames) => frames.some((f) => f.event === 'loop_event' && f.data['kind'] === 'subagent_chunk'));
    const t0 = Date.now();
    await c.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(3000);
    const end = c.of(sessionId).filter((x) => x.sessionUpdate === 'tool_call_update' && x.toolCallId === 'call_1_1').at(-1);
    expect(end).toMatchObject({ status: 'failed', _meta: { 'ferret.dev': { status: 'cancelled' } } });

    // The same through HTTP.
    const second = c.agent.request<{ stopReason: string }>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    await sse.waitFor((frames) => frames.filter((f) => f.event === 'loop_event' && f.data['kind'] === 'subagent_chunk').length >= 2);
    const t1 = Date.now();
    expect((await api(url, 'POST', `/session/${sessionId}/cancel`, {})).status).toBe(200);
    expect((await second).stopReason).toBe('cancelled');
    expect(Date.now() - t1).toBeLessThan(3000);
    sse.close();
  });
});

describe('what a subagent sends a real provider (recording fake OpenAI-compatible server)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(
      join(env.home, 'ferret', 'config.json'),
      JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: `${fake.url}/v1`, apiKey: 'env:LOCAL_KEY', models: { coder: { contextWindow: 32768, pricing: PRICE } } } } }),
    );
  });
  afterEach(async () => {
    await fake.close();
  });

  it("the child's request holds its own context and tools; the parent's next request holds only the task's result", async () => {
    writeFileSync(join(env.ws, 'parser.ts'), 'export function parseLine(s: string) {\n  return s.trim();\n}\n');
    const args = JSON.stringify({ description: 'find parseLine', prompt: 'Find where parseLine is defined and report the line.' });
    fake.reply(
      // the parent asks for a task
      { steps: [chatText('Delegating.'), chatToolStart(0, 'call_task', 'task', args), chatFinish('tool_calls'), chatUsage({ prompt: 500, completion: 20 }), chatDone] },
      // the child greps (an id a parent's call could have too: a local server's ids are not unique)
      { steps: [chatToolStart(0, 'call_0', 'grep', '{"pattern":"function parseLine"}'), chatFinish('tool_calls'), chatUsage({ prompt: 300, completion: 10 }), chatDone] },
      // the child answers
      { steps: [chatText('parseLine is at parser.ts:1.'), chatFinish('stop'), chatUsage({ prompt: 400, completion: 8 }), chatDone] },
      // the parent answers
      { steps: [chatText('Found: parser.ts:1.'), chatFinish('stop'), chatUsage({ prompt: 600, completion: 6 }), chatDone] },
    );
    const srv = start(['--model', 'local/coder'], { LOCAL_KEY: 'sk-test' });
    const id = (await srv.call('session/new', {}))['sessionId'] as string;
    const r = await srv.call('session/message', { sessionId: id, text: 'where is parseLine?' });
    expect(r).toMatchObject({ stopReason: 'end_turn', message: { text: 'Found: parser.ts:1.' } });
    expect(fake.requests).toHaveLength(4);

    const [parent1, child1, child2, parent2] = fake.requests.map((q) => q.body as Json);
    const toolNames = (b: Json) => (b['tools'] as Json[]).map((t) => t['function'].name as string).sort();
    const system = (b: Json) => (b['messages'] as Json[]).find((m) => m['role'] === 'system')?.['content'] as string;
    const turns = (b: Json) => (b['messages'] as Json[]).filter((m) => m['role'] !== 'system');
    expect(toolNames(parent1!)).toContain('task');
    // The child: its own system prompt, only the task's prompt, the read-only tools.
    expect(system(child1!)).toMatch(/^You are a subagent of ferret/);
    expect(system(child1!)).not.toBe(system(parent1!));
    expect(turns(child1!)).toEqual([{ role: 'user', content: 'Find where parseLine is defined and report the line.' }]);
    expect(toolNames(child1!)).toEqual(['glob', 'grep', 'list_dir', 'read_file']);
    expect(JSON.stringify(child1)).not.toContain('where is parseLine?');
    // Its second call carries its own grep and result.
    expect(turns(child2!).map((m) => m['role'])).toEqual(['user', 'assistant', 'tool']);
    expect(String(turns(child2!)[2]!['content'])).toContain('parser.ts');
    // The parent's next request: its own turn plus the task's result, none of the child's steps.
    const after = turns(parent2!);
    expect(after.map((m) => m['role'])).toEqual(['user', 'assistant', 'tool']);
    expect(after[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_task', content: 'parseLine is at parser.ts:1.' });
    expect(JSON.stringify(parent2)).not.toContain('function parseLine');

    // The child's call ids are its own under the task call, even where the server repeats ids.
    const starts = srv.updates(id).filter((x) => x['kind'] === 'tool_call_start');
    expect(starts.map((x) => [x['id'], x['parent_id']])).toEqual([['call_task', undefined], ['call_task:call_0', 'call_task']]);
    const cost = srv.updates(id).filter((x) => x['kind'] === 'cost_update').at(-1)!;
    expect(cost).toMatchObject({ input: 1800, output: 44 });
  });
});
