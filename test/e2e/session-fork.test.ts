import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

// session/fork (the SDK's unstable method) from the built CLI with the official client: a new
// session holding the source's history, usable at once, loadable in a new process, the source
// unchanged; the model of the fork sees the earlier conversation. HTTP POST /session/:id/fork too.

const userTexts = (ups: acp.SessionUpdate[]) => ups.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));

describe('session/fork over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('a fork has the history, goes its own way, and loads in a new process', async () => {
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['First answer.'] }, { chunks: ['Fork answer.'] }, { chunks: ['Source answer.'] }] });
    const c = start(['--model', `scripted:${model}`]);
    const init = await c.initialize();
    expect((init.agentCapabilities?.sessionCapabilities as Record<string, unknown> | undefined)?.['fork']).toEqual({});
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'first question' }] });

    const f = (await c.agent.request('session/fork' as 'session/new', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] } as never)) as { sessionId: string };
    expect(f.sessionId).not.toBe(s.sessionId);
    await c.agent.request('session/prompt', { sessionId: f.sessionId, prompt: [{ type: 'text', text: 'fork question' }] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'source question' }] });
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    await d.agent.request('session/load', { sessionId: f.sessionId, cwd: env.ws, mcpServers: [] });
    expect(userTexts(d.of(f.sessionId))).toEqual(['first question', 'fork question']);
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    expect(userTexts(d.of(s.sessionId))).toEqual(['first question', 'source question']);
  });
});

describe('POST /session/:id/fork', () => {
  const { env, startHttp } = ferretPerTest();
  it('answers 201 with a new session whose history the source gave', async () => {
    const TOKEN = 'tok-fork-0123456789abcdef';
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['One.'] }] });
    const { url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN });
    const s = await api(url, 'POST', '/session', {}, TOKEN);
    const id = s.body['sessionId'] as string;
    await api(url, 'POST', `/session/${id}/message`, { text: 'remember this' }, TOKEN);
    const f = await api(url, 'POST', `/session/${id}/fork`, undefined, TOKEN);
    expect(f.status).toBe(201);
    const fid = f.body['sessionId'] as string;
    expect(fid).not.toBe(id);
    const prompts = await api(url, 'GET', `/session/${fid}/prompts`, undefined, TOKEN);
    expect(JSON.stringify(prompts.body)).toContain('remember this');
    expect((await api(url, 'POST', `/session/nope-${'x'.repeat(8)}/fork`, undefined, TOKEN)).status).toBe(404);
  });
});
