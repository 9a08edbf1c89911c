import { z } from 'zod';
import type { FileAccess, Image, PlanEntry, SandboxMode, ToolEffect, ToolJudgement, ToolKind } from '../protocol/index.js';
import type { HostFacts, RuleSet, WorkspaceFacts } from '../sandbox/index.js';
import type { ProcessTable } from './processes/process-table.js';

export type { FileAccess, ToolEffect, ToolJudgement, ToolKind } from '../protocol/index.js';

/** What the agent last saw of each file this session (core/tool-call/read-ledger.ts). */
export interface ReadLedger {
  /** The agent read or wrote this content of the file at this (real) path. */
  saw(path: string, content: string): void;
  /** The file is gone or was moved away by the agent. */
  forget(path: string): void;
  /** The file now holds `content`, which is not what the agent last saw of it. */
  stale(path: string, content: string): boolean;
}

export interface ToolContext {
  /** Workspace root, a real path. */
  cwd: string;
  callId: string;
  signal: AbortSignal;
  sandbox: SandboxMode;
  files: FileAccess;
  env: NodeJS.ProcessEnv;
  /** What the sandbox knows of this workspace (and, through `.host`, of this machine): kept by the core. */
  facts: WorkspaceFacts;
  progress(stream: 'stdout' | 'stderr', text: string): void;
  fileEdit(edit: { path: string; diff: string; changeKind: 'add' | 'modify' | 'delete' | 'move'; oldText: string | null; newText: string; movedFrom?: string }): void;
  fileOpen(path: string, line?: number): void;
  violation(reason: string, path?: string): void;
  /** Records the model's plan, whole (update_plan); absent where nothing keeps one (a bare test context). */
  plan?(entries: PlanEntry[]): void;
  /** The session's memory of what the agent saw of each file (absent outside a session: a warm-up run). */
  ledger?: ReadLedger;
  /**
   * The checked real path of each path a tool's `paths()` named, by the text the call gave: the
   * runner judged exactly these, so the tool writes there and nowhere else.
   */
  placed?: ReadonlyMap<string, string>;
  /** The session's background processes (bash `background: true`, process_*); absent outside a session. */
  processes?: ProcessTable;
  /** The session's extra workspace roots (real paths, ACP `additionalDirectories`): a search there stays inside the one it starts in. */
  roots?: readonly string[];
  /**
   * Runs a subagent for this call (the task tool) and answers with its final text; absent where
   * none may run (inside a subagent, a bare test context).
   */
  subagent?(req: SubagentRequest): Promise<ToolOutcome>;
  /**
   * A person allowed this call (answered now, or their remembered "always" for it), and its
   * approval said it is an everyday write of the repository's metadata (`repoMetadata: ordinary`):
   * the command sandbox leaves `.git` writable for it, all but the paths that carry code.
   */
  repoMetadataWritable?: boolean;
}

/** What the task tool asks of the core: a child loop on one sub-question. */
export interface SubagentRequest {
  description: string;
  prompt: string;
  /** A named agent definition (.ferret/agents/NAME.md). */
  agent?: string;
}

export interface ToolOutcome {
  status: 'completed' | 'failed';
  output: string;
  exitCode?: number | null;
  capReached?: boolean;
  /** Images for the model (read_file of a picture): kept once in the history, never in the output text. */
  images?: Image[];
}

/** What a tool knows about approving one call, worked out once per call. */
export interface ToolApproval {
  /** The key a person's "always"/"never" persists under: equal keys mean the same request. */
  key: string;
  /** The tool's own judgement; without one, the policy decides on the tool's effect. */
  judgement?: ToolJudgement;
  /**
   * The call writes the workspace repository's metadata (bash: git-metadata.ts): `ordinary` may
   * when a person allows it; `kept-read-only` may not (the prompt says so).
   */
  repoMetadata?: 'ordinary' | 'kept-read-only';
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  id: string;
  description: string;
  schema: S;
  kind: ToolKind;
  effect: ToolEffect;
  /** Its run may change files although its kind does not say so (task: a subagent may write). */
  delegatesWrites?: true;
  /**
   * Names of the arguments that are file paths. Each one given is resolved once, checked by the
   * sandbox before any approval is asked, and replaced by its checked real path before `run`.
   */
  pathArgs?: readonly string[];
  /**
   * Paths a call touches that are not plain arguments (the files a patch names), as the call gives
   * them: each is resolved, checked and judged like a path argument; the tool finds the checked
   * real path in `ctx.placed`.
   */
  paths?(args: z.infer<S>): string[];
  title(args: z.infer<S>): string;
  /** The shell text a call runs (bash): judged for the paths it may read (sandbox policy/read-guard.ts). */
  commandText?(args: z.infer<S>): string;
  /**
   * Approval knowledge of its own (bash: the classifier and a canonical key from one parse, which
   * depends on the sandbox mode; web_fetch: its host against config.json's webFetch, which `host` carries).
   */
  approval?(args: z.infer<S>, rules: RuleSet, sandbox?: SandboxMode, host?: HostFacts): Promise<ToolApproval>;
  /** Finishes "the output was cut; …": how the model reads the rest (when it is not kept in a file). */
  readMore?: string;
  /**
   * False: a result longer than the output cap is not kept in a file for the model to page
   * through, because what it shows already is a file, paged with the tool's own arguments (read_file).
   */
  keepCutOutput?: false;
  /**
   * May read the calling session's kept tool output (core/tool-call/kept-output.ts), the one part
   * of ferret's state a tool may read, read-only: read_file, which pages through it.
   */
  readsKeptOutput?: true;
  /**
   * The tool says it only reads (an MCP tool's `readOnlyHint`). Only the scheduler trusts it: an
   * allowed call runs beside the reply's other reads. The approval policy still goes by `effect`.
   */
  declaresReadOnly?: true;
  /**
   * Starts what `run` will wait for (a helper process, a probe: cached, started once) as soon
   * as a call is known, so that it overlaps with the call's approval instead of following it.
   * `env` is the server's environment (as ToolContext's).
   */
  prepare?(sandbox: SandboxMode, env: NodeJS.ProcessEnv, host: HostFacts): void;
  /**
   * The change a call would make, worked out without making it, so a person asked to approve an
   * edit sees its diff (ACP clients show it in the permission card). Undefined: nothing to show
   * (the call would fail, or the tool cannot tell ahead).
   */
  preview?(args: z.infer<S>, ctx: PreviewContext): Promise<ProposedEdit | undefined>;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** What a preview may use: the workspace and the turn's file seam, nothing that writes. */
export type PreviewContext = Pick<ToolContext, 'cwd' | 'files' | 'signal'>;

/** One file's proposed change: `oldText` null for a new file. */
export interface ProposedEdit {
  path: string;
  oldText: string | null;
  newText: string;
}

/** The one place a tool is declared; the tool runner validates arguments against `schema`. */
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
