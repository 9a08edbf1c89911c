import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

/** ACP's tool kinds: how a client draws a tool call. */
export const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other'] as const;
export const ToolKindSchema = lazySchema(() => z.enum(TOOL_KINDS));
export type ToolKind = z.infer<typeof ToolKindSchema>;

/** How a tool touches the world; the approval policy and the plan mode decide on this. */
export type ToolEffect = 'read' | 'write' | 'execute';

/**
 * The built-in tools' ids, in the order they are offered: what --allowed-tools accepts. The CLI
 * knows them without loading the tools (they load on the first turn); tools/registry.ts holds the
 * tools themselves, and a test keeps the two lists the same.
 */
export const BUILTIN_TOOL_IDS: readonly string[] = ['bash', 'read_file', 'write_file', 'edit_file', 'multi_edit', 'apply_patch', 'list_dir', 'glob', 'grep', 'open_file', 'update_plan', 'task', 'process_output', 'process_input', 'process_kill', 'web_fetch'];

/** File access seam: the node file system by default, an editor's buffers for an attached client. */
export interface FileAccess {
  /** `signal` lets a cancelled turn stop waiting on a slow editor. */
  readText: (absPath: string, signal?: AbortSignal) => Promise<string>;
  writeText: (absPath: string, content: string, signal?: AbortSignal) => Promise<void>;
}

/**
 * An editor's file seam gave up (the editor missed its deadline once): the core does the read or
 * write on disk instead, as it does for an editor that never offered one.
 */
export class EditorUnavailableError extends Error {
  readonly code = 'EDITOR_UNAVAILABLE';
}

/** A file that does not exist, as every FileAccess reports it (Node's own errors carry ENOENT too). */
export class FileNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(readonly path: string) {
    super(`no such file: ${path}`);
  }
}

/** "Does not exist", told apart from every other read failure (a permission, an editor error). */
export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}

/** An MCP server to connect, whoever asked for it (config.json or an attached client). */
export type McpServerSpec =
  | { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { name: string; transport: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** A tool's own judgement of one call (bash: the classifier's verdict); the policy weighs it. */
export interface ToolJudgement {
  /** allow = known safe or allowed by a rule; ask = needs a person; deny = refused by a rule. */
  action: 'allow' | 'ask' | 'deny';
  risk: 'low' | 'medium' | 'high';
  /** One human sentence, shown in the permission request. */
  reason: string;
  /** The rule text that decided, when a rule did. */
  rule?: string;
  /** The call only reads (suggest runs it without asking). */
  readOnly: boolean;
  /** Part of it cannot be seen before it runs: never run unattended, never allowed by a remembered "always". */
  opaque?: true;
}
