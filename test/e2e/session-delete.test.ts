import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';
import { until } from '../support/until.js';

// session/delete from the built CLI with the official ACP v1 client (schema-checked after the
// test): advertised; a running session is refused; a deleted one is gone from the list, from disk,
// and cannot be loaded, in this process or a new one. HTTP DELETE /session/:id the same.

describe('session/delete over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('refuses while a turn runs; then removes the log and the list entry for good', async () => {
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['Hi.'] }, { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }, { chunks: ['stopped'] }] });
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--sandbox', 'danger-full-access']);
    const init = await c.initialize();
    expect(init.agentCapabilities?.sessionCapabilities?.delete).toEqual({});
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    const folder = join(env.home, 'eventlog', `ferret-${s.sessionId}`);
    expect(existsSync(folder)).toBe(true);

    const running = c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await until('the command to start', () => c.of(s.sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress'));
    await expect(c.agent.request('session/delete', { sessionId: s.sessionId })).rejects.toMatchObject({ message: expect.stringContaining('running a turn') });
    await c.agent.notify('session/cancel', { sessionId: s.sessionId });
    expect((await running).stopReason).toBe('cancelled');

    expect(await c.agent.request('session/delete', { sessionId: s.sessionId })).toEqual({});
    expect(existsSync(folder)).toBe(false);
    const listed = await c.agent.request('session/list', {});
    expect(listed.sessions.map((x) => x.sessionId)).not.toContain(s.sessionId);
    await expect(c.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    // Deleting it again: ferret answers not found, which the SDK reads as done (its rule for close and delete).
    expect(await c.agent.request('session/delete', { sessionId: s.sessionId })).toEqual({});
    expect(existsSync(folder)).toBe(false);
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    expect((await d.agent.request('session/list', {})).sessions.map((x) => x.sessionId)).not.toContain(s.sessionId);
    await expect(d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] })).rejects.toBeTruthy();
  });
});

describe('DELETE /session/:id', () => {
  const { env, startHttp } = ferretPerTest();
  it('deletes a session: 200 then 404, and it leaves GET /session', async () => {
    const TOKEN = 'tok-delete-0123456789abc';
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['Hi.'] }] });
    const { url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN });
    const s = await api(url, 'POST', '/session', {}, TOKEN);
    const id = s.body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'hi' }, TOKEN)).status).toBe(200);
    expect((await api(url, 'DELETE', `/session/${id}`, undefined, TOKEN)).body).toEqual({ ok: true });
    expect((await api(url, 'GET', `/session/${id}`, undefined, TOKEN)).status).toBe(404);
    expect((await api(url, 'DELETE', `/session/${id}`, undefined, TOKEN)).status).toBe(404);
    const list = await api(url, 'GET', '/session', undefined, TOKEN);
    expect((list.body['sessions'] as { sessionId: string }[]).map((x) => x.sessionId)).not.toContain(id);
  });
});
