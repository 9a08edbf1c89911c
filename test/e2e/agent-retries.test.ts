import * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import { chatDone, chatFinish, chatText, chatToolStart, chatUsage } from '../fakes/openai-chat.js';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

// Patient retries and the provider's own ends of a reply, as a real ACP client, the ferret
// dialect and HTTP see them. The fake speaks chat completions on loopback; waits are scaled
// (FERRET_RETRY_TIME_SCALE) so a provider's "retry-after: 20" costs the test 200 ms while every
// notice still says 20 s.

const text = (c: V1Client, id: string) =>
  c.of(id).flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');

/** Notices as a client that takes them sees them (initialized with `session.notices`). */
const notices = (c: V1Client) => c.updates.flatMap((n) => (n.update.sessionUpdate === 'notice' ? [String((n.update as { title?: unknown }).title)] : []));
const TAKES_NOTICES: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false, session: { notices: {} } };

describe('ACP v1 against a rate-limited, flaky OpenAI-compatible server', () => {
  const t = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(t.env.home, 'ferret'), { recursive: true });
    writeFileSync(join(t.env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(() => fake.close());

  async function prompt(c: V1Client) {
    await c.initialize(TAKES_NOTICES);
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    const started = Date.now();
    const r = await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    return { id: s.sessionId, stopReason: r.stopReason, ms: Date.now() - started };
  }

  it('two 429s with retry-after: 20, then success: the turn ends end_turn and the client was told each wait', async () => {
    const limited = { status: 429, headers: { 'retry-after': '20' }, json: { error: { message: 'Rate limit reached', type: 'rate_limit' } } };
    fake.reply(limited, limited, { steps: [chatText('done'), chatFinish('stop'), chatUsage({ prompt: 5, completion: 1 }), chatDone] });
    const c = t.start(['--model', 'local/m'], { FERRET_RETRY_TIME_SCALE: '0.01' });
    const r = await prompt(c);
    expect(r.stopReason).toBe('end_turn');
    expect(text(c, r.id)).toBe('done');
    const waits = notices(c).filter((n) => n.includes('retrying in 20 s'));
    expect(waits).toEqual([
      'local/m: HTTP 429 (rate limited); retrying in 20 s (attempt 2 of 10)',
      'local/m: HTTP 429 (rate limited); retrying in 20 s (attempt 3 of 10)',
    ]);
    expect(r.ms).toBeGreaterThanOrEqual(400); // it did wait (20 s × 2, scaled)
    expect(fake.requests).toHaveLength(3);
  });

  it('a stream cut after three chunks is retried, and the reply holds each chunk once', async () => {
    fake.reply(
      { steps: [chatText('one '), chatText('two '), chatText('three '), chatToolStart(0, 'call_a', 'bash', '{"comm'), { delayMs: 50 }, { destroy: true }] },
      { steps: [chatText('one two three '), chatText('four'), chatFinish('stop'), chatDone] },
      { steps: [chatText('second turn'), chatFinish('stop'), chatDone] },
    );
    const c = t.start(['--model', 'local/m'], { FERRET_RETRY_TIME_SCALE: '0.01' });
    const r = await prompt(c);
    expect(r.stopReason).toBe('end_turn');
    expect(text(c, r.id)).toBe('one two three four');
    expect(c.of(r.id).some((u) => u.sessionUpdate === 'tool_call')).toBe(false); // the half-made call never ran
    expect(notices(c).some((n) => /stream cut.*retrying/.test(n))).toBe(true);
    // What the model is shown of its own reply next time: each chunk once.
    await c.agent.request(acp.methods.agent.session.prompt, { sessionId: r.id, prompt: [{ type: 'text', text: 'and?' }] });
    const history = fake.requests[2]!.body.messages as { role: string; content: unknown }[];
    expect(history.find((m) => m.role === 'assistant')?.content).toBe('one two three four');
  });
});

describe('a reply the provider ends itself: the output limit and a refusal, on every surface', () => {
  const v1 = v1PerTest();
  const f = ferretPerTest();
  const script = {
    responses: [
      { chunks: ['a long answer that'], finish: 'length', toolCalls: [{ name: 'bash', arguments: { command: 'touch never-ran' } }] },
      { chunks: ['I cannot help with that.'], finish: 'refusal' },
    ],
  };

  it('ACP v1: stopReason max_tokens, then refusal; the cut reply\'s tool call is not run', async () => {
    const model = writeScript(v1.env.ws, 'ends.json', script);
    const c = v1.start(['--model', `scripted:${model}`]);
    await c.initialize(TAKES_NOTICES);
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: v1.env.ws, mcpServers: [] });
    const cut = await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'explain' }] });
    expect(cut.stopReason).toBe('max_tokens');
    expect(c.of(s.sessionId).some((u) => u.sessionUpdate === 'tool_call')).toBe(false);
    expect(notices(c).some((n) => /output-token limit.*max_tokens/.test(n))).toBe(true);
    const refused = await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(refused.stopReason).toBe('refusal');
  });

  it('ferret dialect and HTTP: the turn result says max_tokens, then refusal', async () => {
    const model = writeScript(f.env.ws, 'ends.json', script);
    const { proc, url } = await f.startHttp(['--model', `scripted:${model}`]);
    await proc.call('initialize', {});
    const { sessionId } = await proc.call('session/new', {});
    expect(await proc.call('session/message', { sessionId, text: 'explain' })).toMatchObject({ stopReason: 'max_tokens', message: { text: 'a long answer that' } });
    const end = proc.updates(sessionId).find((u) => u['kind'] === 'turn_end');
    expect(end).toMatchObject({ stop_reason: 'max_tokens' });
    const http = await api(url, 'POST', `/session/${sessionId}/message`, { text: 'again' });
    expect(http.status).toBe(200);
    expect(http.body).toMatchObject({ stopReason: 'refusal', message: { text: 'I cannot help with that.' } });
  });
});
