import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);
const textOf = (ups: Update[], t: 'agent_message_chunk' | 'user_message_chunk') =>
  tag(ups, t).map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');

const EDIT_AND_RUN = {
  contextWindow: 128_000,
  responses: [
    {
      chunks: ["I'll create ", 'hello.py.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'hello.py', content: "print('hi')\n" } },
        { name: 'bash', arguments: { command: 'ls' } },
      ],
      usage: { input: 1200, output: 40 },
    },
    { chunks: ['Done.'], usage: { input: 1300, output: 5 } },
    { chunks: ['Second turn.'] },
  ],
  pricing: { input: 1.25, output: 10 },
};

describe('ACP v1 on stdio, driven by the official SDK client', () => {
  const { env, start } = v1PerTest();

  it('initializes, edits a file through the editor, runs a command, and loads it all in a new process', async () => {
    const model = writeScript(env.ws, 'model.json', EDIT_AND_RUN);
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto']);
    const init = await c.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {} } });
    // Where each built-in provider's key goes (issue 12): one env_var method per key variable.
    expect(init.authMethods).toEqual([
      expect.objectContaining({ id: 'env:OPENAI_API_KEY', type: 'env_var', vars: [{ name: 'OPENAI_API_KEY' }] }),
      expect.objectContaining({ id: 'env:ANTHROPIC_API_KEY', type: 'env_var', vars: [{ name: 'ANTHROPIC_API_KEY' }] }),
    ]);

    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    expect(s.configOptions?.find((o) => o.category === 'model')).toMatchObject({ type: 'select', currentValue: `scripted:${model}` });
    expect(s.modes?.currentModeId).toBe('code');
    const answeredAt = c.inbound.findIndex((m) => m['result']?.sessionId === s.sessionId);
    const firstUpdate = c.inbound.findIndex((m) => m['method'] === 'session/update' && m['params'].sessionId === s.sessionId);
    expect(firstUpdate === -1 || firstUpdate > answeredAt).toBe(true);

    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'make hello.py and list' }] });
    expect(r.stopReason).toBe('end_turn');
    const ups = c.of(s.sessionId);
    expect(textOf(ups, 'agent_message_chunk')).toBe("I'll create hello.py.Done.");

    const calls = tag(ups, 'tool_call');
    expect(calls.map((t) => [((t._meta?.['ferret.dev'] as { tool?: string } | undefined)?.tool), t.kind])).toEqual([['write_file', 'edit'], ['bash', 'execute']]);
    expect(new Set(calls.map((t) => t.toolCallId)).size).toBe(2); // tool_call once per id
    const file = join(env.ws, 'hello.py');
    expect(calls[0]!.locations).toEqual([{ path: file }]);
    const edits = tag(ups, 'tool_call_update').filter((u) => u.toolCallId === calls[0]!.toolCallId);
    expect(edits.flatMap((u) => u.content ?? [])).toContainEqual({ type: 'diff', path: file, oldText: null, newText: "print('hi')\n" });
    expect(edits.at(-1)!.status).toBe('completed');
    expect(c.fsWrites).toEqual([file]); // the edit went through the editor
    expect(readFileSync(file, 'utf8')).toBe("print('hi')\n");
    const run = tag(ups, 'tool_call_update').filter((u) => u.toolCallId === calls[1]!.toolCallId);
    expect(run.at(-1)!.status).toBe('completed');
    expect(JSON.stringify(run.at(-1)!.content)).toContain('hello.py');
    const usage = tag(ups, 'usage_update').at(-1)!;
    expect(usage.cost?.currency).toBe('USD');
    expect(usage.cost?.amount).toBeCloseTo((2500 * 1.25 + 45 * 10) / 1e6, 9);
    await c.close();

    // A new process: the session is listed, and load replays it (final statuses) before answering.
    const d = start(['--model', `scripted:${model}`, '--approval', 'full-auto']);
    await d.initialize();
    const list = await d.agent.request('session/list', {});
    expect(list.sessions.map((x) => x.sessionId)).toContain(s.sessionId);
    const loaded = await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    expect(loaded).toMatchObject({ modes: { currentModeId: 'code' } });
    const replay = d.of(s.sessionId);
    expect(textOf(replay, 'user_message_chunk')).toBe('make hello.py and list');
    expect(textOf(replay, 'agent_message_chunk')).toBe("I'll create hello.py.Done.");
    expect(tag(replay, 'tool_call').map((t) => (t._meta?.['ferret.dev'] as { tool?: string } | undefined)?.tool)).toEqual(['write_file', 'bash']);
    expect(tag(replay, 'tool_call_update').filter((u) => u.status).map((u) => u.status).at(-1)).toBe('completed');
    const loadAnswer = d.inbound.findIndex((m) => 'result' in m && m['result']?.modes);
    expect(d.inbound.slice(loadAnswer + 1).some((m) => m['method'] === 'session/update' && m['params'].update.sessionUpdate === 'tool_call')).toBe(false);
    const again = await d.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'more' }] });
    expect(again.stopReason).toBe('end_turn');
    expect(textOf(d.of(s.sessionId), 'agent_message_chunk')).toContain('Second turn.');
  });

  it('asks permission with the four ACP options and honours allow and reject', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'B' } }] },
        { chunks: ['ok'] },
      ],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    await c.initialize({}); // no fs capability: ferret writes itself
    c.permissionPolicy = (p) => (c.permissions.indexOf(p) === 0 ? 'allow_once' : 'reject_once');
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write two files' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(c.permissions).toHaveLength(2);
    expect(c.permissions[0]!.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    expect(readFileSync(join(env.ws, 'a.txt'), 'utf8')).toBe('A');
    expect(existsSync(join(env.ws, 'b.txt'))).toBe(false);
    const finals = tag(c.of(sessionId), 'tool_call_update').filter((u) => u.status === 'completed' || u.status === 'failed');
    expect(finals.map((u) => [u.toolCallId, u.status])).toEqual([
      [c.permissions[0]!.toolCall.toolCallId, 'completed'],
      [c.permissions[1]!.toolCall.toolCallId, 'failed'],
    ]);
    expect(c.fsWrites).toEqual([]);
  });

  it('cancel answers the prompt with cancelled, and a prompt sent right after runs next', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ chunks: Array.from({ length: 40 }, (_, i) => `chunk${i} `), delayMs: 100 }, { chunks: ['after cancel'] }],
    });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const first = c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'long' }] });
    await c.waitFor((m) => m['params']?.update?.sessionUpdate === 'agent_message_chunk');
    await c.agent.notify('session/cancel', { sessionId });
    const second = c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'next' }] });
    expect((await first).stopReason).toBe('cancelled');
    expect((await second).stopReason).toBe('end_turn');
    expect(textOf(c.of(sessionId), 'agent_message_chunk')).toMatch(/after cancel$/);
  });

  it('switches mode and model through set_mode and set_config_option, answering the complete list', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [] });
    const other = writeScript(env.ws, 'other.json', { responses: [] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    expect(await c.agent.request('session/set_mode', { sessionId, modeId: 'plan' })).toEqual({});
    await c.waitFor((m) => m['params']?.update?.sessionUpdate === 'current_mode_update');
    expect(tag(c.of(sessionId), 'current_mode_update')[0]!.currentModeId).toBe('plan');
    const r = await c.agent.request('session/set_config_option', { sessionId, configId: 'model', value: `scripted:${other}` });
    expect(r.configOptions.map((o) => o.id)).toEqual(['mode', 'model', 'reasoning', 'approval']);
    expect(r.configOptions.find((o) => o.id === 'model')!.currentValue).toBe(`scripted:${other}`);
    expect(r.configOptions.find((o) => o.id === 'mode')!.currentValue).toBe('plan');
    await expect(c.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({ code: -32002 });
    // An exhausted script is a turn error: a JSON-RPC error the editor shows, never stopReason "error".
    await expect(c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({ code: -32603 });

    // The schema check itself catches what real clients trip over.
    const n = c.inbound.length;
    c.inbound.push(
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: '_ferret/custom' } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: 'x' } } },
    );
    expect(c.schemaErrors()).toHaveLength(2);
    c.inbound.splice(n);
  });
});
