import type * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

type InfoUpdate = Extract<acp.SessionUpdate, { sessionUpdate: 'session_info_update' }>;
const titles = (c: V1Client, id: string) => c.of(id).filter((u): u is InfoUpdate => u.sessionUpdate === 'session_info_update').map((u) => u.title);

/** The model's title arrives after the turn's answer (it never holds the turn up): wait for it. */
async function untilTitles(c: V1Client, id: string, n: number): Promise<void> {
  for (let i = 0; i < 200 && titles(c, id).length < n; i++) await new Promise((r) => setTimeout(r, 25));
}

// A session's title from the built CLI: the first request names it (session_info_update to an
// official ACP v1 client, schema-checked after the test), then the session's model gives it a
// short title after the first turn (a scripted file's `title`, or a real request recorded by a
// fake OpenAI server); session/list shows the latest, and a load in a new process replays both.

describe('the session title over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('the first request becomes the title; later requests do not change it; list and load agree', async () => {
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['On it.'] }, { chunks: ['Again.'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'Fix the **parser** bug in `src/parse.ts`\nIt drops the last token.' }] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'and add a test' }] });
    const infos = c.of(s.sessionId).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'session_info_update' }> => u.sessionUpdate === 'session_info_update');
    expect(infos.map((u) => u.title)).toEqual(['Fix the parser bug in src/parse.ts']);
    expect(typeof infos[0]!.updatedAt).toBe('string');
    const listed = await c.agent.request('session/list', {});
    expect(listed.sessions.find((x) => x.sessionId === s.sessionId)?.title).toBe('Fix the parser bug in src/parse.ts');
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    expect(d.of(s.sessionId).filter((u) => u.sessionUpdate === 'session_info_update').map((u) => (u as { title?: string }).title)).toEqual(['Fix the parser bug in src/parse.ts']);
  });

  it("a scripted file's title: the model's short title follows the first one, list and load show it", async () => {
    const model = writeScript(env.home, 'model.json', { title: 'Parser drops the last token', responses: [{ chunks: ['On it.'] }, { chunks: ['Again.'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'the parser loses a token at the end of input' }] });
    await untilTitles(c, s.sessionId, 2);
    expect(titles(c, s.sessionId)).toEqual(['the parser loses a token at the end of input', 'Parser drops the last token']);
    // The side call did not take the file's second response: the second turn gets it.
    const second = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'and add a test' }] });
    expect(second.stopReason).toBe('end_turn');
    expect(JSON.stringify(c.of(s.sessionId))).toContain('Again.');
    expect(titles(c, s.sessionId)).toHaveLength(2);
    const listed = await c.agent.request('session/list', {});
    expect(listed.sessions.find((x) => x.sessionId === s.sessionId)?.title).toBe('Parser drops the last token');
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    expect(titles(d, s.sessionId)).toEqual(['the parser loses a token at the end of input', 'Parser drops the last token']);
  });
});

describe('the title call to a real vendor API (fake OpenAI server, ACP v1 official client)', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(() => fake.close());

  const answer = (text: string, input: number) => ({
    steps: [R.created, R.messageAdded(0), R.textDelta(0, text), R.messageDone(0, text), R.completed({ input, cached: 0, output: 4, reasoning: 0 })],
  });

  it("after the first turn ferret asks the session's model for a short title (low output limit, no tools) and sends it", async () => {
    fake.reply(answer('I will look at the parser.', 100), answer('Done too.', 120));
    fake.titleReplies.push(answer('Fix parser end-of-input bug', 60));
    const c = start(['--model', 'openai/gpt-5-codex'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'the parser loses a token at the end of input' }] });
    expect(r.stopReason).toBe('end_turn');
    await untilTitles(c, s.sessionId, 2);
    expect(titles(c, s.sessionId)).toEqual(['the parser loses a token at the end of input', 'Fix parser end-of-input bug']);
    expect(fake.titleRequests).toHaveLength(1);
    const body = fake.titleRequests[0]!.body;
    expect(body['model']).toBe('gpt-5-codex');
    expect(body['tools'] ?? []).toEqual([]);
    expect(body['max_output_tokens']).toBeGreaterThan(0);
    expect(JSON.stringify(body['input'])).toContain('the parser loses a token at the end of input');
    expect(JSON.stringify(body['input'])).toContain('I will look at the parser.');
    // The second turn asks for no title; the conversation's requests hold no title call.
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'thanks' }] });
    expect(fake.titleRequests).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    const listed = await c.agent.request('session/list', {});
    expect(listed.sessions.find((x) => x.sessionId === s.sessionId)?.title).toBe('Fix parser end-of-input bug');
  });

  it('a title call the API refuses leaves the first title and the turn as they were', async () => {
    fake.reply(answer('Sure.', 50));
    // No title reply queued: the fake answers the title call 400.
    const c = start(['--model', 'openai/gpt-5-codex'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'rename the helper' }] });
    expect(r.stopReason).toBe('end_turn');
    for (let i = 0; i < 200 && fake.titleRequests.length === 0; i++) await new Promise((res) => setTimeout(res, 25));
    expect(fake.titleRequests).toHaveLength(1);
    await new Promise((res) => setTimeout(res, 200));
    expect(titles(c, s.sessionId)).toEqual(['rename the helper']);
  });
});
