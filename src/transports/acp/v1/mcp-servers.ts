import type { McpServerSpec } from '../../../core/index.js';
import type { McpServerParam } from './params.js';

/** ACP's `McpServer` (name/value lists) → the core's spec (records); the core connects them. */
export function toSpec(p: McpServerParam, cwd: string): McpServerSpec {
  const rec = (list: { name: string; value: string }[]) => Object.fromEntries(list.map((h) => [h.name, h.value]));
  if (p.type === 'http' || p.type === 'sse') return { name: p.name, transport: p.type, url: p.url, headers: rec(p.headers) };
  return { name: p.name, transport: 'stdio', command: p.command, args: p.args, env: rec(p.env), cwd };
}
