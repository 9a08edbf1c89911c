import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { tempDir, writeScript } from '../support/temp.mjs';

// additionalDirectories and logout from the built CLI, with the official ACP v1 SDK client (every
// message ferret sends schema-checked after each test): extra roots advertised, honoured by the
// file tools under the sandbox's rules, kept across a new process; logout answered with why.

describe('additionalDirectories over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('advertised; a tool writes in an extra root, not outside it; session/list names the roots; a new process loads the session with them', async () => {
    const extra = tempDir('extra-root');
    const outside = tempDir('outside-root');
    writeFileSync(join(extra, 'README.md'), 'the other repository\n');
    const model = writeScript(env.home, 'model.json', {
      responses: [
        {
          toolCalls: [
            { name: 'write_file', arguments: { path: join(extra, 'made.txt'), content: 'from ferret\n' } },
            { name: 'write_file', arguments: { path: join(outside, 'no.txt'), content: 'no\n' } },
          ],
        },
        { chunks: ['Done.'] },
        { toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'README.md') } }] },
        { chunks: ['Read.'] },
      ],
    });
    const c = start(['--model', `scripted:${model}`, '--sandbox', 'workspace-write', '--approval', 'auto']);
    const init = await c.initialize();
    expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
    const s = await c.agent.request('session/new', { cwd: env.ws, additionalDirectories: [extra], mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'write in both' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(extra, 'made.txt'), 'utf8')).toBe('from ferret\n');
    expect(existsSync(join(outside, 'no.txt'))).toBe(false);
    const calls = c.of(s.sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'));
    expect(calls.map((u) => (u as { status: string }).status)).toEqual(['completed', 'failed']);
    const listed = await c.agent.request('session/list', {});
    expect(listed.sessions.find((x) => x.sessionId === s.sessionId)?.additionalDirectories).toEqual([extra]);
    await c.close();

    const d = start(['--model', `scripted:${model}`, '--sandbox', 'workspace-write', '--approval', 'auto']);
    await d.initialize();
    // Other roots than the session's are refused on load, naming the field.
    await expect(d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, additionalDirectories: [outside], mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('additionalDirectories'),
    });
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    const again = await d.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'read the other readme' }] });
    expect(again.stopReason).toBe('end_turn');
    const read = d.of(s.sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed').at(-1);
    expect(JSON.stringify(read)).toContain('the other repository');
  });

  it('a root that is not an absolute existing folder is refused, naming the field', async () => {
    const c = start([]);
    await c.initialize();
    await expect(c.agent.request('session/new', { cwd: env.ws, additionalDirectories: ['relative/dir'], mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('additionalDirectories'),
    });
    await expect(c.agent.request('session/new', { cwd: env.ws, additionalDirectories: [join(env.ws, 'no-such-folder')], mcpServers: [] })).rejects.toMatchObject({
      message: expect.stringMatching(/additionalDirectories\[0\]: no such directory/),
    });
  });
});

describe('logout over ACP v1', () => {
  const { start } = v1PerTest();

  it('is not advertised, and a call says there is no login to end', async () => {
    const c = start([]);
    const init = await c.initialize();
    expect(init.agentCapabilities?.auth?.logout ?? undefined).toBeUndefined();
    await expect(c.agent.request('logout', {})).rejects.toMatchObject({ code: -32601, message: expect.stringContaining('no login to log out of') });
  });
});
