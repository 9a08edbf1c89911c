import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

// Facts the core owns, as every surface shows them: the context window, one turn at a time,
// and a model that cannot run refused at once.

const slow = { responses: [{ chunks: ['one', ' two', ' three'], delayMs: 400 }, { chunks: ['second turn'] }] };

describe('ACP v1: usage_update is exact', () => {
  const t = v1PerTest();
  it("usage_update.size is the model's context window and used is the last call's context", async () => {
    const model = writeScript(t.env.ws, 'ctx.json', { contextWindow: 1000, responses: [{ chunks: ['hi'], usage: { input: 700, output: 50, cache: 0, reasoning: 0 } }] });
    const c = t.start(['--model', `scripted:${model}`]);
    await c.initialize();
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    await c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const usage = c.of(s.sessionId).filter((u) => u.sessionUpdate === 'usage_update');
    expect(usage.at(-1)).toMatchObject({ sessionUpdate: 'usage_update', size: 1000, used: 750 });
  });

  it('a second prompt while a turn runs waits for it and then runs (v1 has no busy answer)', async () => {
    const model = writeScript(t.env.ws, 'slow.json', slow);
    const c = t.start(['--model', `scripted:${model}`]);
    await c.initialize();
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    const first = c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'one' }] });
    const second = c.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'two' }] });
    expect((await first).stopReason).toBe('end_turn');
    expect((await second).stopReason).toBe('end_turn');
    const text = c.of(s.sessionId).flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(text).toBe('one two threesecond turn');
  });

  it('set_config_option model refuses an unknown model at once, changing nothing', async () => {
    const model = writeScript(t.env.ws, 'm.json', { responses: [] });
    const c = t.start(['--model', `scripted:${model}`]);
    await c.initialize();
    const s = await c.agent.request(acp.methods.agent.session.new, { cwd: t.env.ws, mcpServers: [] });
    await expect(c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'model', value: 'bogus-model' })).rejects.toMatchObject({ code: -32602 });
    await expect(c.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'model', value: 'openai/gpt-5' })).rejects.toMatchObject({ code: -32000 });
  });
});

describe('ferret dialect and HTTP: one turn at a time, and models that cannot run', () => {
  const t = ferretPerTest();
  it('a second message while a turn runs is refused with session_busy on both surfaces (-32002 / HTTP 409), deterministically', async () => {
    const model = writeScript(t.env.ws, 'slow.json', slow);
    const { proc, url } = await t.startHttp(['--model', `scripted:${model}`]);
    await proc.call('initialize', {});
    const { sessionId } = await proc.call('session/new', {});
    const running = proc.request('session/message', { sessionId, text: 'one' });
    await proc.waitFor((m) => m['params']?.['kind'] === 'agent_message_chunk');
    const busy = await proc.request('session/message', { sessionId, text: 'again' });
    expect(busy['error']).toMatchObject({ code: -32002, data: { code: 'session_busy' } });
    const overHttp = await api(url, 'POST', `/session/${sessionId}/message`, { text: 'again' });
    expect(overHttp.status).toBe(409);
    expect(overHttp.body['error']['code']).toBe('session_busy');
    expect((await running)['result']).toMatchObject({ stopReason: 'end_turn', message: { text: 'one two three' } });
  });

  it('setModel to an unknown model is refused at once over the ferret dialect (-32005) and HTTP (422 model_unavailable); a missing key says what to set', async () => {
    const model = writeScript(t.env.ws, 'm.json', { responses: [] });
    const { proc, url } = await t.startHttp(['--model', `scripted:${model}`], { OPENAI_API_KEY: '' });
    await proc.call('initialize', {});
    const { sessionId } = await proc.call('session/new', {});
    const rpc = await proc.request('session/setModel', { sessionId, model: 'bogus-model' });
    expect(rpc['error']).toMatchObject({ code: -32005, data: { code: 'model_unavailable' } });
    const http = await api(url, 'POST', `/session/${sessionId}/model`, { model: 'nope/none' });
    expect(http.status).toBe(422);
    expect(http.body['error']['code']).toBe('model_unavailable');
    const noKey = await api(url, 'POST', `/session/${sessionId}/model`, { model: 'openai/gpt-5' });
    expect(noKey.status).toBe(422);
    expect(noKey.body['error']).toMatchObject({ code: 'auth_required', message: expect.stringContaining('OPENAI_API_KEY') });
    const created = await api(url, 'POST', '/session', { model: 'nope/none' });
    expect(created.status).toBe(422);
    // Nothing changed: the session still runs its scripted model.
    expect((await api(url, 'GET', `/session/${sessionId}`)).body['model']).toBe(`scripted:${model}`);
  });
});
