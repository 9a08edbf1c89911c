import { commandWord, parseSlashCommand, ZERO_USAGE, type PlanEntry, type SessionEvent, type AgentMode, type ApprovalPreset, type Message, type ReasoningEffort, type SandboxMode, type Usage } from '../protocol/index.js';
import { applyPrune } from './compaction/prune.js';
import { foldCheckpoint, foldCompacted, foldRewound, foldTurnStart, type TurnMark, type UndoneStep } from './checkpoints/marks.js';

/** Everything about a session that its event log determines; a load is a fold of this. */
export interface SessionState {
  cwd: string;
  model: string;
  mode: AgentMode;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
  /** How hard a reasoning model thinks (sent only to models that take it: providers/reasoning.ts). */
  reasoning: ReasoningEffort;
  history: Message[];
  usage: Usage;
  costUsd: number;
  title: string | undefined;
  /** Extra workspace roots (real paths) besides cwd, from session_created; absent: none. */
  additionalDirectories?: string[];
  createdAt: number;
  updatedAt: number;
  turns: number;
  /** Model calls made so far (replies, failed calls and summaries: one cost_update each). */
  modelCalls: number;
  /** modelCalls when the current model was set: a replayable model's position is the difference. */
  modelCallBase: number;
  /** Tokens of the last model call (prompt and reply): the next prompt is at least this big. */
  lastCallTokens: number;
  /** Files the agent's tools pointed at: their folders' instruction files reach the model as context messages. */
  touched: Set<string>;
  /**
   * The turn the log says is running (a turn_start with no turn_end yet), its unfinished tool
   * calls and unanswered permission questions: what a process that finds the log this way (its
   * writer died) ends as interrupted.
   */
  openTurn: OpenTurn | undefined;
  /** The model's plan as its last update_plan call left it (empty: none yet). */
  plan: PlanEntry[];
  /** The conversation's turns (slash commands aside): where each begins in the history, its snapshots. */
  turnMarks: TurnMark[];
  /** The snapshot ferret last left the workspace at (a turn's end, an undo, a redo). */
  codeHead: string | undefined;
  /** What /undo and /rewind took back, newest last: what /redo puts back (a new turn forgets it). */
  undone: UndoneStep[];
}

export interface OpenTurn {
  turnId: string;
  /** callId → tool */
  calls: Record<string, string>;
  /** requestId → callId */
  asks: Record<string, string>;
  /** A model call answered (its message logged) whose cost_update (written after its tools ran) is not in the log yet. */
  uncosted?: boolean;
  /** The turn sent the model a prompt (it counts in `turns`); a command answered locally (/status) does not. */
  prompted?: boolean;
  /** What the person typed (first line, shortened): how /rewind lists the turn. */
  text?: string;
}

/** A session whose log names no effort (created before the setting existed, or with none configured). */
export const DEFAULT_REASONING: ReasoningEffort = 'medium';

export const SUMMARY_PREFIX = 'Summary of the earlier conversation (older turns were compacted to fit the context window):\n';

export function emptyState(): SessionState {
  return {
    cwd: '',
    model: '',
    mode: 'code',
    sandbox: 'workspace-write',
    approval: 'auto',
    reasoning: DEFAULT_REASONING,
    history: [],
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    title: undefined,
    createdAt: 0,
    updatedAt: 0,
    turns: 0,
    modelCalls: 0,
    modelCallBase: 0,
    lastCallTokens: 0,
    touched: new Set(),
    openTurn: undefined,
    plan: [],
    turnMarks: [],
    codeHead: undefined,
    undone: [],
  };
}

export function applyEvent(s: SessionState, e: SessionEvent): void {
  s.updatedAt = e.ts;
  switch (e.type) {
    case 'session_created':
      Object.assign(s, e.data);
      s.createdAt = e.ts;
      return;
    case 'turn_start':
      s.openTurn = { turnId: e.data.turnId, calls: {}, asks: {}, text: e.data.text.split('\n')[0]!.slice(0, 80) };
      if (!parseSlashCommand(e.data.text) && !commandWord(e.data.text)) s.title ??= e.data.text.split('\n')[0]!.slice(0, 80);
      return;
    case 'message':
      // A turn counts once the model is given its prompt: /status and other local answers are no
      // turn, and no step /undo or /rewind could take back (its mark is where its prompt goes).
      if (s.openTurn && !s.openTurn.prompted && e.data.message.role === 'user') {
        s.openTurn.prompted = true;
        s.turns++;
        foldTurnStart(s, s.openTurn.turnId, s.openTurn.text ?? e.data.message.text);
      }
      s.history.push(e.data.message);
      if (s.openTurn && e.data.message.role === 'assistant') s.openTurn.uncosted = true;
      return;
    case 'history_compacted': {
      const d = e.data;
      if (d.pruned) s.history = applyPrune(s.history, d.pruned);
      if (d.summary !== undefined) {
        s.history = [{ role: 'user', text: SUMMARY_PREFIX + d.summary }, ...s.history.slice(d.keptFrom)];
        foldCompacted(s, d.keptFrom);
        s.lastCallTokens = 0; // unknown until the next call reports it
      } else if (d.tokensBefore !== undefined && d.tokensAfter !== undefined) {
        s.lastCallTokens = Math.max(0, s.lastCallTokens - (d.tokensBefore - d.tokensAfter));
      }
      return;
    }
    case 'approval_changed':
      s.approval = e.data.new;
      return;
    case 'mode_changed':
      s.mode = e.data.new;
      return;
    case 'reasoning_changed':
      s.reasoning = e.data.new;
      return;
    case 'model_changed':
      s.model = e.data.new;
      s.modelCallBase = s.modelCalls; // a new scripted file starts at its first response
      return;
    case 'cost_update':
      s.usage = { input: e.data.input, output: e.data.output, cache: e.data.cache, reasoning: e.data.reasoning };
      s.costUsd = e.data.totalUsd;
      // A title call or a subagent's call: its cost only, no step of this conversation.
      if (e.data.side || e.data.parentCallId !== undefined) return;
      s.modelCalls++; // one cost_update per model call, failed and summary calls included
      if (e.data.call) s.lastCallTokens = e.data.call.input + e.data.call.cache + e.data.call.output + e.data.call.reasoning;
      if (s.openTurn) s.openTurn.uncosted = false;
      return;
    case 'tool_call_start':
      // A subagent's reads are its own context: their folders' instructions do not reach this one.
      if (e.data.parentCallId === undefined) for (const l of e.data.locations) s.touched.add(l.path);
      if (s.openTurn) s.openTurn.calls[e.data.callId] = e.data.tool;
      return;
    case 'tool_call_end':
      if (s.openTurn) delete s.openTurn.calls[e.data.callId];
      return;
    case 'permission_requested':
      if (s.openTurn) s.openTurn.asks[e.data.requestId] = e.data.callId;
      return;
    case 'permission_resolved':
      if (s.openTurn) delete s.openTurn.asks[e.data.requestId];
      return;
    case 'turn_end':
      s.openTurn = undefined;
      return;
    case 'plan_updated':
      s.plan = e.data.entries;
      return;
    case 'session_info':
      s.title = e.data.title;
      return;
    case 'checkpoint':
      foldCheckpoint(s, e.data);
      return;
    case 'rewound':
      foldRewound(s, e.data);
      return;
    case 'message_chunk':
    case 'reasoning_chunk':
    case 'tool_call_running':
    case 'tool_call_progress':
    case 'sandbox_violation':
    case 'file_edit':
    case 'file_open':
    case 'notice':
    case 'subagent_chunk':
    case 'process_started': // background processes live in the session's process table, not in its state
    case 'process_output':
    case 'process_exited':
      return;
  }
}

/** Bumped when SessionState changes shape: an older snapshot is then folded again from the log. */
const STATE_VERSION = 5;

/** The state as JSON for a snapshot, without its history (kept apart, one message a line). */
export function saveState(s: SessionState): unknown {
  const { history: _history, touched, ...rest } = s;
  return { v: STATE_VERSION, ...rest, touched: [...touched] };
}

/** A snapshot's state (with an empty history, filled in apart), or undefined when it is not one this version wrote. */
export function restoreState(json: unknown): SessionState | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { v, touched, ...rest } = json as Record<string, unknown>;
  if (v !== STATE_VERSION || !Array.isArray(touched) || typeof rest['cwd'] !== 'string') return undefined;
  for (const k of ['model', 'mode', 'sandbox', 'approval', 'reasoning', 'usage', 'turns', 'modelCalls']) if (!(k in rest)) return undefined;
  return { ...emptyState(), ...(rest as Omit<SessionState, 'touched' | 'history'>), history: [], touched: new Set(touched as string[]) };
}
