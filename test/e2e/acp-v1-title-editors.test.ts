// Found by driving avante.nvim against ferret (scripts/check-editor-recipes.sh): avante, picking up
// a chat from its history, sends the person's words wrapped in tags with a system note after
// them, and ferret titled the session "<previoususermessageCreate hello.txt saying…" (its
// Markdown clean-up also took the underscores out of identifiers). Over ACP stdio, as avante sends it.
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

const titles = (ups: acp.SessionUpdate[]) =>
  ups.flatMap((u) => (u.sessionUpdate === 'session_info_update' && typeof u.title === 'string' ? [u.title] : []));

describe('ACP v1 session titles from what editors send', () => {
  const { env, start } = v1PerTest();

  it("avante's continuing prompt is titled by the person's words; an identifier keeps its underscores", async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['Hi.'] }, { chunks: ['Ok.'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const avante =
      '<previous_user_message>Create hello.txt saying hi</previous_user_message>\n<system_context>Continuing from previous session with 1 recent user messages</system_context>';
    const a = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: a.sessionId, prompt: [{ type: 'text', text: avante }] });
    expect(titles(c.of(a.sessionId))).toEqual(['Create hello.txt saying hi']);

    const b = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: b.sessionId, prompt: [{ type: 'text', text: 'Fix parse_line in foo_bar.ts' }] });
    expect(titles(c.of(b.sessionId))).toEqual(['Fix parse_line in foo_bar.ts']);
    const list = await c.agent.request('session/list', { cwd: env.ws });
    expect(list.sessions.map((s) => s.title).sort()).toEqual(['Create hello.txt saying hi', 'Fix parse_line in foo_bar.ts']);
  });
});
