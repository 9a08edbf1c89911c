// Found by driving CodeCompanion.nvim against ferret (scripts/check-editor-recipes.sh): its
// permission prompt takes the file from the question's `toolCall.locations` and, without them,
// joins the diff's absolute path to its cwd ("Proposed edits for `tmp/ws/hello.txt`").
// The question now names the files its card announced.
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

const prompt = (text: string): acp.ContentBlock[] => [{ type: 'text', text }];

describe('ACP v1 permission question locations', () => {
  const { env, start } = v1PerTest();

  it('a write asked about under suggest names its file in toolCall.locations, as its card did', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' } }] }, { chunks: ['Done.'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    c.permissionPolicy = () => 'allow_once';
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('write hello') });
    expect(r.stopReason).toBe('end_turn');
    const file = join(env.ws, 'hello.txt');
    const card = c.of(sessionId).find((u) => u.sessionUpdate === 'tool_call');
    expect(card).toMatchObject({ locations: [{ path: file }] });
    expect(c.permissions[0]!.toolCall.locations).toEqual([{ path: file }]);
  });

  it('a command, which names no file, is asked about without locations', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'git push origin main' } }] }, { chunks: ['Not pushed.'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    c.permissionPolicy = () => 'reject_once';
    await c.agent.request('session/prompt', { sessionId, prompt: prompt('push') });
    expect(c.permissions).toHaveLength(1);
    expect(c.permissions[0]!.toolCall).not.toHaveProperty('locations');
  });
});
