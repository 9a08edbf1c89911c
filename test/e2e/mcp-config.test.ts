import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FerretClient } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');

describe('MCP servers declared in config.json', () => {
  const { env, start } = ferretPerTest();
  let srv: FerretClient;
  beforeEach(() => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
  });

  it('offer their tools to ferret-dialect sessions, under the same approval and event rules', async () => {
    writeFileSync(
      join(env.home, 'ferret', 'config.json'),
      JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE] }, broken: { command: '/nonexistent/mcp-server' } } }),
    );
    const model = writeScript(env.ws, 'm.json', {
      responses: [{ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'from config' } }] }, { chunks: ['echoed'] }],
    });
    srv = start(['--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    const reply = srv.call('session/message', { sessionId: id, text: 'echo it' });
    // Under `auto` an MCP tool is not known to be safe: it asks like a command would.
    const req = (await srv.waitFor((m) => m['params']?.kind === 'permission_request', 20_000))['params'];
    expect(req).toMatchObject({ tool: 'mcp__fixture__echo', args: { text: 'from config' } });
    await srv.call('permission/respond', { sessionId: id, id: req.id, decision: 'allow' });
    expect((await reply)['stopReason']).toBe('end_turn');
    const end = srv.updates(id).find((u) => u['kind'] === 'tool_call_end')!;
    expect(end['result']).toMatchObject({ status: 'completed' });
    expect(end['result'].output).toContain('echo: from config');
    const notice = srv.updates(id).find((u) => u['kind'] === 'notice');
    expect(notice?.['text']).toMatch(/MCP server "broken".*could not be connected/);
  });

  it('a malformed mcpServers entry stops the server at start with the field named', async () => {
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ mcpServers: { 'bad name!': { command: 'x' } } }));
    srv = start([]);
    expect(await srv.exited).not.toBe(0);
    expect(srv.stderr).toMatch(/config\.json: field mcpServers/);
  });
});
