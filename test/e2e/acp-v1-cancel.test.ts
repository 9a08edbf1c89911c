import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

describe('ACP v1: Stop, close and permission prompts with other clients on the session', () => {
  const { env, start } = v1PerTest();

  it('Stop while the prompt still waits (an MCP server that never answers) answers cancelled and runs nothing', async () => {
    const model = writeScript(env.ws, 'm.json', { responses: [{ chunks: ['should not run'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const silent: { name: string; command: string; args: string[]; env: { name: string; value: string }[] } = {
      name: 'silent',
      command: process.execPath,
      args: ['-e', 'setTimeout(() => {}, 60000)'],
      env: [],
    };
    const { sessionId } = await c.agent.request<{ sessionId: string }>('session/new', { cwd: env.ws, mcpServers: [silent] });
    const prompt = c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    await c.agent.notify('session/cancel', { sessionId });
    expect(((await prompt) as { stopReason: string }).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(c.of(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(false);
  });

  it('a permission another client settles is withdrawn from this client with $/cancel_request', async () => {
    const model = writeScript(env.ws, 'm.json', {
      responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'p.txt', content: 'p' } }] }, { chunks: ['done'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest', '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    c.permissionPolicy = () => 'hold';
    const url = await c.httpUrl();
    await c.initialize({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const sse = new SseClient(url, `/session/${sessionId}/events`);
    await sse.opened;
    const prompt = c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
    await sse.waitFor((frames) => frames.some((f) => f.event === 'loop_event' && f.data['kind'] === 'permission_request'));
    const req = sse.frames.find((f) => f.data['kind'] === 'permission_request')!.data;
    expect((await api(url, 'POST', `/session/${sessionId}/permission`, { id: req['id'], decision: 'allow' })).status).toBe(200);
    expect((await prompt).stopReason).toBe('end_turn');
    await c.waitFor((m) => m['method'] === '$/cancel_request');
    expect(c.permissions).toHaveLength(1);
    sse.close();
  });

  it('closing this thread does not stop a turn another client is running', async () => {
    const model = writeScript(env.ws, 'm.json', { responses: [{ chunks: ['a', 'b', 'c', 'd', 'e', 'f'], delayMs: 100 }] });
    const c = start(['--model', `scripted:${model}`, '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const http = api(url, 'POST', `/session/${sessionId}/message`, { text: 'slow' });
    await c.waitFor((m) => m['method'] === 'session/update' && m['params']?.update?.sessionUpdate === 'agent_message_chunk');
    await c.agent.request('session/close', { sessionId });
    expect((await http).body).toMatchObject({ stopReason: 'end_turn', message: { text: 'abcdef' } });
  });
});
