import type { Logger } from 'pino';
import type { Tool } from './define.js';
import type { McpServerSpec } from '../protocol/index.js';

export interface McpPoolResult {
  tools: Tool[];
  /** Servers that failed, said once: on the call that first connected. */
  failures: string[];
}

/** MCP servers from config.json, shared by every session of the server. */
export interface McpPool {
  tools(): Promise<McpPoolResult>;
  close(): Promise<void>;
}

/**
 * Connects the configured servers on the first turn that needs tools (never at start-up: the
 * MCP SDK and the servers' own start cost an editor nothing until the agent works), once.
 */
export function createMcpPool(specs: McpServerSpec[], logger: Logger, source = 'config.json'): McpPool {
  let connecting: Promise<{ tools: Tool[]; close: () => Promise<void> }> | undefined;
  let failures: string[] = [];
  const connect = async () => {
    const { connectMcpServer } = await import('./mcp-tool.js');
    const results = await Promise.allSettled(
      specs.map((spec) => connectMcpServer(spec, { onStderr: (line) => logger.debug({ mcpServer: spec.name, line }, 'mcp server stderr') })),
    );
    const conns = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    failures = results.flatMap((r, i) =>
      r.status === 'rejected' ? [`MCP server "${specs[i]!.name}" (${source}) could not be connected: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`] : [],
    );
    for (const f of failures) logger.warn(f);
    for (const c of conns) logger.info({ mcpServer: c.name, tools: c.tools.map((t) => t.id) }, 'mcp server connected');
    return { tools: conns.flatMap((c) => c.tools), close: async () => void (await Promise.allSettled(conns.map((c) => c.close()))) };
  };
  return {
    async tools() {
      if (specs.length === 0) return { tools: [], failures: [] };
      const first = !connecting;
      connecting ??= connect();
      const { tools } = await connecting;
      return { tools, failures: first ? failures : [] };
    },
    async close() {
      if (connecting) await (await connecting).close();
    },
  };
}
