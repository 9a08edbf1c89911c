import type { Session, Tool } from '../../../core/index.js';
import { connectMcpServer, type McpConnection, type McpServerSpec } from '../../../tools/mcp-tool.js';
import type { DialectContext } from '../dialect.js';
import type { McpServerParam } from './params.js';

/** ACP's `McpServer` (name/value lists) → the tool layer's spec (records). */
export function toSpec(p: McpServerParam, cwd: string): McpServerSpec {
  const rec = (list: { name: string; value: string }[]) => Object.fromEntries(list.map((h) => [h.name, h.value]));
  if (p.type === 'http' || p.type === 'sse') return { name: p.name, transport: p.type, url: p.url, headers: rec(p.headers) };
  return { name: p.name, transport: 'stdio', command: p.command, args: p.args, env: rec(p.env), cwd };
}

/**
 * The MCP servers one client asked for on one session: connected in the background (the
 * session/new answer does not wait), their tools added to `session.extraTools` once ready,
 * and removed and closed when the client detaches. A server that fails is reported, not fatal.
 */
export class McpAttachment {
  private conns: McpConnection[] = [];
  private tools: Tool[] = [];
  private closed = false;
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: DialectContext,
    private readonly session: Session,
  ) {}

  connect(servers: McpServerParam[]): void {
    if (servers.length === 0) return;
    const log = this.ctx.logger;
    const jobs = servers.map(async (p) => {
      const spec = toSpec(p, this.session.state.cwd);
      try {
        const conn = await connectMcpServer(spec, { onStderr: (line) => log.debug({ mcpServer: spec.name, line }, 'mcp server stderr') });
        if (this.closed) return void (await conn.close().catch(() => undefined));
        this.conns.push(conn);
        this.add(conn.tools);
        log.info({ mcpServer: spec.name, tools: conn.tools.map((t) => t.id) }, 'mcp server connected');
      } catch (err) {
        log.warn({ err, mcpServer: spec.name }, 'mcp server failed to connect');
        const text = `MCP server "${spec.name}" could not be connected: ${err instanceof Error ? err.message : String(err)}`;
        this.ctx.notify('_ferret/notice', { sessionId: this.session.id, level: 'warning', text });
      }
    });
    const previous = this.ready;
    this.ready = Promise.all([previous, ...jobs]).then(() => undefined);
  }

  private add(tools: Tool[]): void {
    const taken = new Set(this.session.extraTools.map((t) => t.id));
    const fresh = tools.filter((t) => !taken.has(t.id));
    this.tools.push(...fresh);
    this.session.extraTools = [...this.session.extraTools, ...fresh];
  }

  close(): void {
    this.closed = true;
    const mine = new Set(this.tools);
    this.session.extraTools = this.session.extraTools.filter((t) => !mine.has(t));
    this.tools = [];
    for (const c of this.conns) void c.close().catch(() => undefined);
    this.conns = [];
  }
}
