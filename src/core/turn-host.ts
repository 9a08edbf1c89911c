import type { Logger } from 'pino';
import type { Credential, ModelChoice } from '../providers/catalog.js';
import type { ModelResolver } from '../providers/resolve.js';
import type { ToolSpec } from '../providers/provider.js';
import type { AgentMode, ApprovalPreset, Decision, EventDraft, EventOf, FileAccess, ReasoningEffort, SessionEvent } from '../protocol/index.js';
import type { HostFacts, RuleSet } from '../sandbox/index.js';
import type { AuditStore } from '../store/audit-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { ReadLedger, SubagentRequest, Tool, ToolOutcome } from '../tools/define.js';
import type { McpPool } from '../tools/mcp-pool.js';
import type { ProcessTable } from '../tools/processes/process-table.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { SessionFold } from './folds.js';
import type { EditToolChoice } from './edit-tools.js';
import type { PromptMemo } from './prompt/system-prompt.js';
import type { SessionState } from './session-state.js';

// What the loop, the tool runner and compaction need of a session. They depend on this, not on
// the Session class, so the core's files form no cycle and each part can be tested alone.

/** What every session shares: the server's wiring, built once by createCore. */
export interface SessionDeps {
  home: string;
  /** Where sessions are kept: logs, snapshots, metas and the session index. */
  store: SessionStore;
  /** Folds the core keeps at every seq for the transports (the SSE IDE-frame counters). */
  folds?: readonly SessionFold[];
  /** Told of every event a session of this server writes, live (never a replay): Web Push and the like. */
  observers?: Set<(event: SessionEvent) => void>;
  resolver: ModelResolver;
  /** The built-in tools (after loadTools, when given: a turn awaits it first). */
  tools: ToolRegistry;
  /** Loads the built-in tools when they are not loaded yet (createCore loads them on first use). */
  loadTools?: () => Promise<unknown>;
  rules: RuleSet;
  /** Permission decisions: the file log, or the fleet's in Redis. */
  audit: AuditStore;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** What the sandbox knows of this machine and each workspace (state roots, found programs, scans). */
  sandbox: HostFacts;
  maxSteps: number;
  /** config.json's editTools: which edit tools each model family is offered (edit-tools.ts). */
  editTools?: EditToolChoice;
  /** Bytes of a tool result the model, the clients and the log receive; the rest is cut with a note. */
  toolOutputCap: number;
  /**
   * Where the whole text of a session's cut tool results is kept (tool-call/kept-output.ts): its
   * session folder's `tool-output/` (file store), else `$CHIMERA_HOME/ferret/tool-output/<id>/`.
   * The one part of ferret's state tools that only read may read, for that session alone.
   */
  keptOutputDir(sessionId: string): string;
  /**
   * Where a session's shadow repository of workspace snapshots lives (/undo, core/checkpoints/):
   * beside its log (file store), else under CHIMERA_HOME/ferret/undo/<id>. Absent: no checkpoints.
   */
  checkpointDir?(sessionId: string): string;
  /** Where the workspace repositories' packs, verified once, are kept for every session's shadow repository to borrow. */
  checkpointPacks?: string;
  /** MCP servers from config.json, shared by all sessions; connected on first use. */
  mcp?: McpPool;
  /** The models a person can pick now, and where the built-in providers read their keys. */
  catalog: { models(): ModelChoice[]; credentials(): Credential[] };
  /** When set, a permission question nobody answers in this time is denied, with a notice. */
  permissionTimeoutMs?: number;
  /** config.json's instructionFiles: read where a folder has no AGENTS.md (default CLAUDE.md, GEMINI.md). */
  instructionFiles?: readonly string[];
}

/** A tool as offered to the model in one step. */
export interface OfferedTool {
  tool: Tool;
  spec: ToolSpec;
}

export interface TurnHost {
  readonly id: string;
  /** Resolves when the whole state (a loaded session's history) is in memory; a turn waits for it. */
  ready?(): Promise<void>;
  readonly state: Readonly<SessionState>;
  readonly deps: SessionDeps;
  /** The session's system prompt, kept between calls so it stays the same bytes (system-prompt.ts). */
  readonly promptMemo: PromptMemo;
  /** What the agent last saw of each file, for the stale-edit guard (tool-call/read-ledger.ts). */
  readonly readLedger: ReadLedger;
  /** The session's background processes (absent where nothing owns them: a bare test host). */
  readonly processes?: ProcessTable;
  emit<E extends EventDraft>(draft: E): EventOf<E['type']>;
  /** Waits for a person's answer to a permission request, from any client. */
  askPermission(requestId: string, signal: AbortSignal): Promise<{ decision: Decision; by: string } | 'cancelled'>;
  /** Built-ins, config.json's MCP tools and every attached client's MCP tools. */
  tools(): ToolRegistry;
  /** The file seam of a turn: its origin's editor buffers, else the latest attached editor's, else disk. */
  filesFor(origin: string | undefined): FileAccess;
  /** Connects config.json's MCP servers on first use; failures become notices. */
  loadConfigTools(): Promise<void>;
  /** The knobs slash commands turn (each emits its event). */
  setApproval(preset: ApprovalPreset): unknown;
  setMode(mode: AgentMode): unknown;
  setModel(model: string): unknown;
  setReasoning(effort: ReasoningEffort): unknown;
  /**
   * Runs a subagent for a `task` call (core/subagent/): absent on a subagent's own host, so a
   * child never starts children.
   */
  runSubagent?(req: SubagentRequest & { parentCallId: string; turnId: string; signal: AbortSignal; files: FileAccess }): Promise<ToolOutcome>;
}
