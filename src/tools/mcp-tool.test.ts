import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf, type ToolContext } from './define.js';
import { createHostFacts } from '../sandbox/index.js';
import { connectMcpServer, mcpToolId, type McpConnection } from './mcp-tool.js';

const FIXTURE = resolve(import.meta.dirname, '../../test/fixtures/mcp-server.mjs');

function ctx(): ToolContext {
  return {
    cwd: process.cwd(),
    callId: 'c1',
    signal: new AbortController().signal,
    sandbox: 'workspace-write',
    files: { readText: () => Promise.reject(new Error('unused')), writeText: () => Promise.reject(new Error('unused')) },
    env: process.env,
    facts: createHostFacts({ env: {} }).workspace(process.cwd()),
    progress: () => {},
    fileEdit: () => {},
    fileOpen: () => {},
    violation: () => {},
  };
}

describe('MCP tools', () => {
  let conn: McpConnection;
  beforeAll(async () => {
    conn = await connectMcpServer({ name: 'test srv', transport: 'stdio', command: process.execPath, args: [FIXTURE], env: {} });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('names tools mcp__<server>__<tool>, with unsafe characters made _', () => {
    expect(mcpToolId('test srv', 'echo')).toBe('mcp__test_srv__echo');
    expect(conn.tools.map((t) => t.id).sort()).toEqual(['mcp__test_srv__boom', 'mcp__test_srv__echo']);
  });

  it('offers the server schema to the model and validates arguments with it', () => {
    const echo = conn.tools.find((t) => t.id.endsWith('__echo'))!;
    expect(echo.effect).toBe('execute');
    expect(jsonSchemaOf(echo)).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(echo.schema.safeParse({ text: 1 }).success).toBe(false);
    expect(echo.schema.safeParse({ text: 'hi' }).success).toBe(true);
    expect(echo.title({ text: 'hi' })).toBe('test srv: Echo');
  });

  it('a server tool that declares readOnlyHint says so to the scheduler, and stays an execute for the approval policy', () => {
    const echo = conn.tools.find((t) => t.id.endsWith('__echo'))!;
    const boom = conn.tools.find((t) => t.id.endsWith('__boom'))!;
    expect([echo.effect, echo.declaresReadOnly]).toEqual(['execute', true]);
    expect([boom.effect, boom.declaresReadOnly]).toEqual(['execute', undefined]);
  });

  it('runs a call and reports a tool error as a failed result', async () => {
    const echo = conn.tools.find((t) => t.id.endsWith('__echo'))!;
    const ok = await echo.run({ text: 'hi' }, ctx());
    expect(ok.status).toBe('completed');
    expect(ok.output).toMatch(/^echo: hi/);
    const boom = conn.tools.find((t) => t.id.endsWith('__boom'))!;
    const bad = await boom.run({}, ctx());
    expect(bad).toMatchObject({ status: 'failed', output: 'boom: it failed on purpose' });
  });

  it('fails to connect to a server that is not there, without hanging', async () => {
    await expect(connectMcpServer({ name: 'x', transport: 'stdio', command: '/nonexistent/mcp', args: [], env: {} }, { timeoutMs: 3000 })).rejects.toThrow();
  });
});
