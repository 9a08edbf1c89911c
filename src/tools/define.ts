import { z } from 'zod';
import type { SandboxMode } from '../core/types.js';

export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';

/** How a tool touches the world; the approval policy and the plan mode decide on this. */
export type ToolEffect = 'read' | 'write' | 'execute';

/** File access seam: the node file system by default, an editor's buffers for ACP v1 clients. */
export interface FileAccess {
  /** `signal` lets a cancelled turn stop waiting on a slow editor. */
  readText(absPath: string, signal?: AbortSignal): Promise<string>;
  writeText(absPath: string, content: string, signal?: AbortSignal): Promise<void>;
}

export interface ToolContext {
  /** Workspace root, a real path. */
  cwd: string;
  callId: string;
  signal: AbortSignal;
  sandbox: SandboxMode;
  files: FileAccess;
  env: NodeJS.ProcessEnv;
  progress(stream: 'stdout' | 'stderr', text: string): void;
  fileEdit(edit: { path: string; diff: string; changeKind: 'add' | 'modify'; oldText: string | null; newText: string }): void;
  fileOpen(path: string, line?: number): void;
  violation(reason: string, path?: string): void;
}

export interface ToolOutcome {
  status: 'completed' | 'failed';
  output: string;
  exitCode?: number | null;
  capReached?: boolean;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  id: string;
  description: string;
  schema: S;
  kind: ToolKind;
  effect: ToolEffect;
  /** Workspace paths the call touches, for the sandbox check before any approval is asked. */
  paths(args: z.infer<S>): string[];
  title(args: z.infer<S>): string;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** The one place a tool is declared; the registry validates arguments against `schema`. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool {
  return tool;
}

export function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  const s = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  delete s['$schema'];
  return s;
}

export function ok(output: string): ToolOutcome {
  return { status: 'completed', output };
}

export function fail(output: string): ToolOutcome {
  return { status: 'failed', output };
}
