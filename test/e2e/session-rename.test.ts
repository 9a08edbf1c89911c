import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

// Renaming a session from the built CLI: HTTP PATCH /session/:id {title} and ACP v1's
// `_ferret/session/rename`. The new title is what every list shows (also after a restart), a
// follower hears it (SSE session_info, ACP session_info_update), and a bad title is refused by name.

describe('PATCH /session/:id renames a session', () => {
  const { env, startHttp } = ferretPerTest();

  it('the list and the session show the new title; a reader of the stream gets session_info; bad titles are 400', async () => {
    const TOKEN = 'tok-rename-0123456789abc';
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['Hi.'] }] });
    const { url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'fix the flaky test' }, TOKEN)).status).toBe(200);
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    expect(await sse.opened).toBe(200);

    const renamed = await api(url, 'PATCH', `/session/${id}`, { title: '  Flaky   test in CI \n' }, TOKEN);
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ title: 'Flaky test in CI' });
    await sse.waitFor((frames) => frames.some((f) => JSON.stringify(f.data).includes('Flaky test in CI')));
    expect((await api(url, 'GET', `/session/${id}`, undefined, TOKEN)).body['title']).toBe('Flaky test in CI');
    const list = (await api(url, 'GET', '/session', undefined, TOKEN)).body['sessions'] as { sessionId: string; title?: string }[];
    expect(list.find((s) => s.sessionId === id)?.title).toBe('Flaky test in CI');

    const empty = await api(url, 'PATCH', `/session/${id}`, { title: '   ' }, TOKEN);
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body)).toContain('title');
    expect((await api(url, 'PATCH', `/session/${id}`, { title: 'x'.repeat(201) }, TOKEN)).status).toBe(400);
    expect((await api(url, 'PATCH', `/session/${id}`, {}, TOKEN)).status).toBe(400);
    expect((await api(url, 'PATCH', '/session/no-such-session', { title: 'x' }, TOKEN)).status).toBe(404);
    sse.close();
  });
});

describe('_ferret/session/rename over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('is advertised, sends session_info_update, and a new process lists and loads the new title', async () => {
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['On it.'] }] });
    const c = start(['--model', `scripted:${model}`]);
    const init = await c.initialize();
    expect(JSON.stringify(init.agentCapabilities?._meta)).toContain('_ferret/session/rename');
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'look at the parser' }] });
    const answer = await c.agent.request('_ferret/session/rename', { sessionId: s.sessionId, title: 'Parser review' });
    expect(answer).toEqual({ title: 'Parser review' });
    const titles = () => c.of(s.sessionId).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'session_info_update' }> => u.sessionUpdate === 'session_info_update').map((u) => u.title);
    for (let i = 0; i < 100 && !titles().includes('Parser review'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(titles().at(-1)).toBe('Parser review');
    await expect(c.agent.request('_ferret/session/rename', { sessionId: s.sessionId, title: '' })).rejects.toMatchObject({ message: expect.stringContaining('title') });
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    const listed = await d.agent.request('session/list', {});
    expect(listed.sessions.find((x) => x.sessionId === s.sessionId)?.title).toBe('Parser review');
  });
});
