import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

// A session's title from the built CLI: the first request names it (session_info_update to an
// official ACP v1 client, schema-checked after the test), session/list shows it, and a load in a
// new process replays it.

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
});
