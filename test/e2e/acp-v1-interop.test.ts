import { resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { V1Client } from './acp-v1-client.js';
import { AcpProcess, tempEnv, writeScript } from './harness.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);

describe('ACP v1 beside the ferret dialect, MCP servers and raw clients', () => {
  let env: ReturnType<typeof tempEnv>;
  const clients: V1Client[] = [];
  let raw: AcpProcess | undefined;
  const start = (args: string[]) => {
    const c = new V1Client(['--cwd', env.ws, ...args], { CHIMERA_HOME: env.home });
    clients.push(c);
    return c;
  };
  beforeEach(() => {
    env = tempEnv();
  });
  afterEach(async () => {
    await raw?.close();
    raw = undefined;
    for (const c of clients.splice(0)) {
      expect(c.schemaErrors()).toEqual([]);
      await c.close();
    }
    env.cleanup();
  });

  it('a v1 client loads a session a ferret-dialect client made and sees its turn', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ chunks: ['Reading.'], toolCalls: [{ name: 'read_file', arguments: { path: 'model.json' } }] }, { chunks: ['All read.'] }],
    });
    raw = new AcpProcess(['--cwd', env.ws, '--model', `scripted:${model}`], { CHIMERA_HOME: env.home });
    await raw.call('initialize', {});
    const s = await raw.call('session/new', {});
    const reply = await raw.call('session/message', { sessionId: s['sessionId'], text: 'read the model' });
    expect(reply['stopReason']).toBe('end_turn');
    await raw.close();
    raw = undefined;

    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    await c.agent.request('session/load', { sessionId: s['sessionId'] as string, cwd: env.ws, mcpServers: [] });
    const ups = c.of(s['sessionId'] as string);
    expect(tag(ups, 'user_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : ''))).toEqual(['read the model']);
    expect(tag(ups, 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('')).toBe('Reading.All read.');
    const call = tag(ups, 'tool_call')[0]!;
    expect(call).toMatchObject({ name: 'read_file', kind: 'read', locations: [{ path: resolve(env.ws, 'model.json') }] });
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
    expect(call.name).toBe('mcp__fixture__echo');
    expect(c.permissions.map((p) => p.toolCall.toolCallId)).toEqual([call.toolCallId]);
    const done = tag(ups, 'tool_call_update').find((u) => u.toolCallId === call.toolCallId && u.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain('echo: ping');
  });

  it('accepts string ids, ignores stray responses, and refuses unknown sessions with -32002', async () => {
    raw = new AcpProcess(['--cwd', env.ws], { CHIMERA_HOME: env.home });
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
