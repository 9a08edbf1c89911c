import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { APPROVAL_PRESETS, ApprovalPresetSchema, SANDBOX_MODES, SandboxModeSchema, type ApprovalPreset, type SandboxMode, type SessionFold } from '../core/index.js';
import { ideFold } from '../transports/http/sse/ide-frames.js';
import type { Environment } from './environment.js';

/** A flag the person got wrong: the message names it and what it accepts (exit code 2). */
export class FlagError extends Error {}

/** The flags every command that runs the agent takes (serve, exec). */
export const AgentFlagsSchema = z.object({
  cwd: z.string().optional(),
  model: z.string().min(1).optional(),
  sandbox: z.string().default('workspace-write'),
  approval: z.string().default('auto'),
  allowedTools: z.string().optional(),
  permissionTimeout: z.string().optional(),
});

export interface AgentOptions {
  cwd: string;
  model: string | undefined;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
  allowedTools: string[] | undefined;
  /** ms; undefined = wait for a person. */
  permissionTimeoutMs: number | undefined;
}

/**
 * The folds every CLI process keeps in the logs it writes (the IDE frames' translator), so a
 * later --http server starts SSE readers at any seq. serve and exec keep the same ones: a process
 * that keeps fewer leaves them out of the checkpoints and snapshot it writes, and the next
 * process that needs them folds the whole log again.
 */
const CLI_FOLDS: readonly SessionFold[] = [ideFold];

/** The agent flags and the environment as createCore takes them (serve and exec build their core the same way, with the same folds). */
export function coreOptions(o: AgentOptions, env: Environment) {
  return {
    cwd: o.cwd,
    model: o.model,
    sandbox: o.sandbox,
    approval: o.approval,
    allowedTools: o.allowedTools,
    permissionTimeoutMs: o.permissionTimeoutMs,
    folds: [...CLI_FOLDS],
    env: env.vars,
    liveEnviron: env.live,
    home: env.home,
    ...(env.maxOpenLogs !== undefined ? { maxOpenLogs: env.maxOpenLogs } : {}),
  };
}

/** `--flag 30` (seconds, decimals allowed) → ms; a clear error naming the flag otherwise. */
export function seconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n <= 0 || n > 86_400) throw new FlagError(`${flag}: "${v}" is not a duration; expected seconds, e.g. 30 or 0.5`);
  return Math.round(n * 1000);
}

export function parseAgentOptions(raw: unknown, knownTools: readonly string[]): AgentOptions {
  const f = AgentFlagsSchema.parse(raw);
  const sandbox = SandboxModeSchema.safeParse(f.sandbox);
  if (!sandbox.success) throw new FlagError(`--sandbox: unknown mode "${f.sandbox}"; expected one of ${SANDBOX_MODES.join(', ')}`);
  const approval = ApprovalPresetSchema.safeParse(f.approval);
  if (!approval.success) throw new FlagError(`--approval: unknown preset "${f.approval}"; expected one of ${APPROVAL_PRESETS.join(', ')}`);
  const cwd = resolve(f.cwd ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) throw new FlagError(`--cwd: no such directory: ${cwd}`);
  let allowedTools: string[] | undefined;
  if (f.allowedTools !== undefined) {
    allowedTools = f.allowedTools.split(',').map((t) => t.trim()).filter(Boolean);
    const unknown = allowedTools.filter((t) => !t.toLowerCase().startsWith('mcp__') && !knownTools.includes(t.toLowerCase()));
    if (unknown.length) throw new FlagError(`--allowed-tools: unknown tool ${unknown.join(', ')}; expected a comma-separated list of ${knownTools.join(', ')}`);
  }
  return { cwd, model: f.model, sandbox: sandbox.data, approval: approval.data, allowedTools, permissionTimeoutMs: seconds('--permission-timeout', f.permissionTimeout) };
}
