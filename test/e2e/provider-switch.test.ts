import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer, gate } from '../fakes/fake-server.js';
import { chatDone, chatFinish, chatText, chatToolArgs, chatToolStart, chatUsage } from '../fakes/openai-chat.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const PRICE = { input: 0.5, output: 2, cache: 0.05, reasoning: 2 };

describe('real providers from the built CLI (fake OpenAI-compatible server on loopback)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let srv: FerretClient;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(
      join(env.home, 'ferret', 'config.json'),
      JSON.stringify({
        providers: { local: { type: 'openai-compatible', baseURL: `${fake.url}/v1`, apiKey: 'env:LOCAL_KEY', models: { coder: { contextWindow: 32768, pricing: PRICE } } } },
      }),
    );
  });
  afterEach(async () => {
    await fake.close();
  });

  it('switches from the scripted model to a real provider mid-session: history carries over, chunks stream live, parallel tools run, cost adds up', async () => {
    const first = writeScript(env.ws, 'first.json', { responses: [{ chunks: ['First answer.'], usage: { input: 100, output: 10 } }], pricing: PRICE });
    writeFileSync(join(env.ws, 'notes.txt'), 'remember the milk\n');
    srv = start(['--model', `scripted:${first}`], { LOCAL_KEY: 'sk-test' });
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    await srv.call('session/message', { sessionId: id, text: 'question one' });
    expect(await srv.call('session/setModel', { sessionId: id, model: 'local/coder' })).toEqual({ model: 'local/coder' });

    const g = gate();
    fake.reply(
      {
        steps: [
          chatText('Hel'),
          { gate: g },
          chatText('lo. '),
          chatToolStart(0, 'call_a', 'read_file'),
          chatToolStart(1, 'call_b', 'list_dir'),
          chatToolArgs(0, '{"path":"no'),
          chatToolArgs(1, '{"path":"."}'),
          chatToolArgs(0, 'tes.txt"}'),
          chatFinish('tool_calls'),
          chatUsage({ prompt: 1000, completion: 50, cached: 200 }),
          chatDone,
        ],
      },
      { steps: [chatText('Both read.'), chatFinish('stop'), chatUsage({ prompt: 1200, completion: 10 }), chatDone] },
    );
    const reply = srv.call('session/message', { sessionId: id, text: 'question two' });
    const firstChunk = await srv.waitFor((m) => m['params']?.kind === 'agent_message_chunk' && m['params'].text === 'Hel');
    expect(g.opened).toBe(false); // the client saw "Hel" while the server was still holding the rest
    expect(firstChunk['params'].sessionId).toBe(id);
    g.open();
    const r = await reply;
    expect(r).toMatchObject({ stopReason: 'end_turn', message: { text: 'Both read.' } });

    // The provider got the scripted turn's history.
    const sent = fake.requests[0]!.body.messages as Json[];
    expect(sent.map((m) => [m['role'], typeof m['content'] === 'string' ? m['content'] : ''])).toEqual(
      expect.arrayContaining([['user', 'question one'], ['assistant', 'First answer.'], ['user', 'question two']]),
    );
    // Both parallel calls ran and their results went back.
    const ends = srv.updates(id).filter((u) => u['kind'] === 'tool_call_end');
    // Parallel calls end in whichever order they finish; their results go back in call order (below).
    expect(ends.map((u) => [u['id'], u['result'].status]).sort()).toEqual([['call_a', 'completed'], ['call_b', 'completed']]);
    const toolMsgs = (fake.requests[1]!.body.messages as Json[]).filter((m) => m['role'] === 'tool');
    expect(toolMsgs.map((m) => m['tool_call_id'])).toEqual(['call_a', 'call_b']);
    expect(String(toolMsgs[0]!['content'])).toContain('remember the milk');

    // 100/10 on the scripted call, then 800+200 cached / 50, then 1200 / 10.
    const cost = srv.updates(id).filter((u) => u['kind'] === 'cost_update').at(-1)!;
    expect(cost).toMatchObject({ input: 2100, output: 70, cache: 200, reasoning: 0 });
    expect(cost['total_usd']).toBeCloseTo((2100 * 0.5 + 70 * 2 + 200 * 0.05) / 1e6, 12);
  });

  it('retries a 429, and a stream cut mid-way every time ends the turn with error and a notice; the next message works', async () => {
    srv = start(['--model', 'local/coder'], { LOCAL_KEY: 'sk-test', FERRET_RETRY_TIME_SCALE: '0.001' });
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    fake.reply(
      { status: 429, headers: { 'retry-after-ms': '50' }, json: { error: { message: 'slow down' } } },
      { steps: [chatText('after retry'), chatFinish('stop'), chatUsage({ prompt: 10, completion: 2 }), chatDone] },
    );
    expect((await srv.call('session/message', { sessionId: id, text: 'one' }))['message'].text).toBe('after retry');
    expect(srv.updates(id).some((u) => u['kind'] === 'notice' && /429|retry/i.test(String(u['text'])))).toBe(true);

    for (let i = 0; i < 10; i++) fake.reply({ steps: [chatText('partial'), { destroy: true }] });
    const cut = await srv.call('session/message', { sessionId: id, text: 'two' });
    expect(cut['stopReason']).toBe('error');
    const notices = srv.updates(id).filter((u) => u['kind'] === 'notice' && u['level'] === 'error');
    expect(notices.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(12); // the 429, its retry, and ten attempts at the cut reply
    expect(String(notices.at(-1)?.['text'])).toMatch(/gave up after 10 attempts/);

    fake.reply({ steps: [chatText('fine again'), chatFinish('stop'), chatUsage({ prompt: 10, completion: 2 }), chatDone] });
    expect((await srv.call('session/message', { sessionId: id, text: 'three' }))['message'].text).toBe('fine again');
  });

  it('compacts older turns when the conversation nears the context window, and says so', async () => {
    const m = writeScript(env.ws, 'small.json', {
      contextWindow: 1000,
      responses: [
        { chunks: ['Long first answer.'], usage: { input: 850, output: 50 } },
        { chunks: ['SUMMARY: the user asked one thing.'], usage: { input: 900, output: 20 } },
        { chunks: ['Second answer.'], usage: { input: 100, output: 5 } },
        { chunks: ['Third answer, after reload.'] },
      ],
    });
    srv = start(['--model', `scripted:${m}`]);
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    await srv.call('session/message', { sessionId: id, text: 'first' });
    const r = await srv.call('session/message', { sessionId: id, text: 'second' });
    expect(r['message'].text).toBe('Second answer.');
    const notice = srv.updates(id).find((u) => u['kind'] === 'notice' && /summarised/.test(String(u['text'])));
    expect(notice?.['text']).toMatch(/900 of 1000 tokens/);
    // The summary call is billed.
    expect(srv.updates(id).filter((u) => u['kind'] === 'cost_update').at(-1)).toMatchObject({ input: 1850, output: 75 });
    await srv.close();

    srv = start([]);
    await srv.call('session/load', { sessionId: id });
    expect((await srv.call('session/message', { sessionId: id, text: 'third' }))['message'].text).toBe('Third answer, after reload.');
  });
});
