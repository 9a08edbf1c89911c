import { resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { FerretClient } from '../support/ferret-client.mjs';
import { writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);

describe('ACP v1 beside the ferret dialect, MCP servers and raw clients', () => {
  const { env, start, adopt } = v1PerTest();
  const startRaw = (args: string[]) => adopt(new FerretClient(['--cwd', env.ws, ...args], { CHIMERA_HOME: env.home }));

  it('a v1 client loads a session a ferret-dialect client made and sees its turn', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ chunks: ['Reading.'], toolCalls: [{ name: 'read_file', arguments: { path: 'model.json' } }] }, { chunks: ['All read.'] }],
    });
    const raw = startRaw(['--model', `scripted:${model}`]);
    await raw.call('initialize', {});
    const s = await raw.call('session/new', {});
    const reply = await raw.call('session/message', { sessionId: s['sessionId'], text: 'read the model' });
    expect(reply['stopReason']).toBe('end_turn');
    await raw.close();

    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    await c.agent.request('session/load', { sessionId: s['sessionId'] as string, cwd: env.ws, mcpServers: [] });
    const ups = c.of(s['sessionId'] as string);
    expect(tag(ups, 'user_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : ''))).toEqual(['read the model']);
    expect(tag(ups, 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('')).toBe('Reading.All read.');
    const call = tag(ups, 'tool_call')[0]!;
    expect(call).toMatchObject({ _meta: { 'ferret.dev': { tool: 'read_file' } }, kind: 'read', locations: [{ path: resolve(env.ws, 'model.json') }] });
    expect(tag(ups, 'tool_call_update').find((u) => u.toolCallId === call.toolCallId && u.status === 'completed')).toBeDefined();
  });

  it('an MCP server from session/new contributes a tool; the call asks, runs, and its result reaches the client', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'ping' } }] }, { chunks: ['echoed'] }],
    });
    const c = start(['--model', `scripted:${model}`]); // approval `auto`: an MCP tool is not known to be safe
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', {
      cwd: env.ws,
      mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE], env: [] }],
    });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo ping' }] });
    expect(r.stopReason).toBe('end_turn');
    const ups = c.of(sessionId);
    const call = tag(ups, 'tool_call')[0]!;
    expect(call._meta?.['ferret.dev']).toMatchObject({ tool: 'mcp__fixture__echo' });
    expect(c.permissions.map((p) => p.toolCall.toolCallId)).toEqual([call.toolCallId]);
    const done = tag(ups, 'tool_call_update').find((u) => u.toolCallId === call.toolCallId && u.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain('echo: ping');
  });

  it('accepts string ids, ignores stray responses, and refuses unknown sessions with -32002', async () => {
    const raw = startRaw([]);
    raw.sendRaw('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    raw.sendRaw('{"jsonrpc":"2.0","id":"never-asked","result":{}}');
    const init = await raw.request('initialize', { protocolVersion: 1 }, 'uuid-1');
    expect(init['result']['protocolVersion']).toBe(1);
    const load = await raw.request('session/load', { sessionId: 'no-such', cwd: env.ws, mcpServers: [] }, 'uuid-2');
    expect(load['error']).toMatchObject({ code: -32002, data: { sessionId: 'no-such' } });
    const bad = await raw.request('session/new', { mcpServers: [] }, 'uuid-3');
    expect(bad['error']).toMatchObject({ code: -32602 });
    expect(bad['error'].message).toContain('cwd');
    const unknown = await raw.request('_ferret/nope', {}, 'uuid-4');
    expect(unknown['error']['code']).toBe(-32601);
  });
});
