import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import type { McpServerSpec } from '../protocol/index.js';
import { scrubInitialEnviron } from '../sandbox/index.js';
import { defineTool, type Tool, type ToolOutcome } from './define.js';

export type { McpServerSpec } from '../protocol/index.js';


/** A connected MCP server and the ferret tools it contributes. */
export interface McpConnection {
  name: string;
  tools: Tool[];
  close(): Promise<void>;
}

/** Output kept from one MCP call, as for bash: the model reads a capped result that says so. */
export const MCP_OUTPUT_CAP = 256 * 1024;

/** `mcp__<server>__<tool>`, with anything a provider rejects in a tool name made `_`. */
export function mcpToolId(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  return `mcp__${clean(server)}__${clean(tool)}`;
}

/** Connects, lists the server's tools, and wraps each one; a server that does not answer in time fails. */
export async function connectMcpServer(spec: McpServerSpec, opts: { timeoutMs?: number; onStderr?: (line: string) => void } = {}): Promise<McpConnection> {
  const client = new Client({ name: 'ferret', version: '0.1.0' });
  const transport = makeTransport(spec, opts.onStderr);
  const timeout = opts.timeoutMs ?? 15_000;
  try {
    await client.connect(transport, { timeout });
    const tools = await mcpTools(client, spec.name, timeout);
    return { name: spec.name, tools, close: () => client.close() };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

function makeTransport(spec: McpServerSpec, onStderr?: (line: string) => void): Transport {
  if (spec.transport === 'stdio') {
    // A child can read this process's environ through /proc (spawner.ts).
    scrubInitialEnviron();
    const t = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: { ...getDefaultEnvironment(), ...spec.env },
      stderr: 'pipe', // never inherit: our stdout/stderr belong to the protocol and the logger
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    });
    t.stderr?.on('data', (d: Buffer) => onStderr?.(d.toString('utf8').trimEnd()));
    return t;
  }
  const headers = spec.headers;
  if (spec.transport === 'sse') return new SSEClientTransport(new URL(spec.url), { requestInit: { headers } });
  return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers } });
}

/** The server's tools as ferret tools: effect `execute`, so the approval policy asks like for any command. */
export async function mcpTools(client: Client, server: string, timeoutMs = 15_000): Promise<Tool[]> {
  const out: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const t of page.tools) out.push(wrap(client, server, t));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: { title?: string | undefined; readOnlyHint?: boolean | undefined } | undefined;
}

function wrap(client: Client, server: string, t: McpToolInfo): Tool {
  const label = t.annotations?.title ?? t.title ?? t.name;
  return defineTool({
    id: mcpToolId(server, t.name),
    description: t.description ?? `${t.name} (from the ${server} MCP server)`,
    schema: schemaOf(t.inputSchema),
    kind: 'other',
    effect: 'execute',
    // A server's hint lets an allowed call run beside other reads; it never skips a question.
    ...(t.annotations?.readOnlyHint === true ? { declaresReadOnly: true as const } : {}),
    title: () => `${server}: ${label}`,
    async run(args, ctx): Promise<ToolOutcome> {
      const r = await client.callTool({ name: t.name, arguments: args as Record<string, unknown> }, undefined, { signal: ctx.signal, timeout: 600_000 });
      const output = render(r.content, r.structuredContent);
      const capped = output.length > MCP_OUTPUT_CAP;
      return {
        status: r.isError ? 'failed' : 'completed',
        output: capped ? `${output.slice(0, MCP_OUTPUT_CAP)}\n[output capped at ${MCP_OUTPUT_CAP} characters]` : output,
        ...(capped ? { capReached: true } : {}),
      };
    },
  });
}

/** The server's JSON Schema as zod, so arguments are validated and the model sees the real schema. */
function schemaOf(json: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(json);
  } catch {
    return z.looseObject({});
  }
}

/** MCP content blocks → the text the model reads. */
function render(content: unknown, structured: unknown): string {
  const blocks = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
  const parts = blocks.map((b) => {
    if (b['type'] === 'text') return String(b['text']);
    if (b['type'] === 'resource') return JSON.stringify(b['resource']);
    if (b['type'] === 'resource_link') return `[${String(b['name'])}](${String(b['uri'])})`;
    return `[${String(b['type'])} content omitted]`;
  });
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  return parts.join('\n');
}
