import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { APPROVAL_PRESETS, ApprovalPresetSchema, SANDBOX_MODES, SandboxModeSchema } from '../protocol/index.js';

/** Raw commander values → validated serve options; each failure names the flag and what it accepts. */
export const ServeFlagsSchema = z.object({
  cwd: z.string().optional(),
  model: z.string().min(1).optional(),
  sandbox: z.string().default('workspace-write'),
  approval: z.string().default('auto'),
  allowedTools: z.string().optional(),
  http: z.boolean().default(false),
  port: z.string().default('5173'),
  host: z.string().default('127.0.0.1'),
  ideSchema: z.string().default('true'),
  stdio: z.boolean().default(true),
  permissionTimeout: z.string().optional(),
  clientTimeout: z.string().optional(),
});

export interface ServeOptions {
  cwd: string;
  model: string | undefined;
  sandbox: z.infer<typeof SandboxModeSchema>;
  approval: z.infer<typeof ApprovalPresetSchema>;
  allowedTools: string[] | undefined;
  http: boolean;
  port: number;
  host: string;
  ideSchema: boolean;
  stdio: boolean;
  /** ms; undefined = wait for a person. */
  permissionTimeoutMs: number | undefined;
  /** ms; undefined = config.json's or 30 s. */
  clientTimeoutMs: number | undefined;
}

/** `--flag 30` (seconds, decimals allowed) → ms; a clear error naming the flag otherwise. */
function seconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n <= 0 || n > 86_400) throw new FlagError(`${flag}: "${v}" is not a duration; expected seconds, e.g. 30 or 0.5`);
  return Math.round(n * 1000);
}

export class FlagError extends Error {}

export function parseServeOptions(raw: unknown, knownTools: readonly string[]): ServeOptions {
  const f = ServeFlagsSchema.parse(raw);
  const sandbox = SandboxModeSchema.safeParse(f.sandbox);
  if (!sandbox.success) throw new FlagError(`--sandbox: unknown mode "${f.sandbox}"; expected one of ${SANDBOX_MODES.join(', ')}`);
  const approval = ApprovalPresetSchema.safeParse(f.approval);
  if (!approval.success) throw new FlagError(`--approval: unknown preset "${f.approval}"; expected one of ${APPROVAL_PRESETS.join(', ')}`);
  const port = Number(f.port);
  if (!/^\d+$/.test(f.port) || port > 65535) throw new FlagError(`--port: "${f.port}" is not a port; expected an integer from 0 to 65535`);
  const ide = f.ideSchema.toLowerCase();
  if (ide !== 'true' && ide !== 'false') throw new FlagError(`--ide-schema: "${f.ideSchema}"; expected true or false`);
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
  if (!f.stdio && !f.http) throw new FlagError('--no-stdio: needs --http, or ferret would serve nothing');
  return {
    cwd,
    model: f.model,
    sandbox: sandbox.data,
    approval: approval.data,
    allowedTools,
    http: f.http,
    port,
    host: f.host,
    ideSchema: ide === 'true',
    stdio: f.stdio,
    permissionTimeoutMs: seconds('--permission-timeout', f.permissionTimeout),
    clientTimeoutMs: seconds('--client-timeout', f.clientTimeout),
  };
}
