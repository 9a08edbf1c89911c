import { z } from 'zod';
import { built, lazySchema } from './lazy-schema.js';
import { ERROR_CODES } from './errors.js';
import { PlanEntrySchema } from './plan.js';
import {
  AgentModeSchema,
  ApprovalPresetSchema,
  DecisionSchema,
  MessageSchema,
  ReasoningEffortSchema,
  RiskSchema,
  SandboxModeSchema,
  StopReasonSchema,
  ToolStatusSchema,
  UsageSchema,
} from './types.js';

// The single source of truth for what a session emits. Every adapter maps from this union,
// the store writes it, and a load folds it back into a session.
// Fields are the built schemas, not the proxies: a replay parses every event (lazy-schema.ts).
const ev = <T extends string, S extends z.ZodRawShape>(type: T, data: S) =>
  z.object({
    seq: z.number().int().positive(),
    sessionId: z.string(),
    ts: z.number(),
    type: z.literal(type),
    data: z.object(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, built(v)])) as S),
  });

export const SessionCreatedEvent = lazySchema(() =>
  ev('session_created', {
    cwd: z.string(),
    model: z.string(),
    mode: AgentModeSchema,
    sandbox: SandboxModeSchema,
    approval: ApprovalPresetSchema,
    /** The reasoning effort the session starts with (absent in logs older than the setting: medium). */
    reasoning: ReasoningEffortSchema.optional(),
    /** Extra workspace roots (real paths): file tools reach them under the same sandbox rules as cwd. */
    additionalDirectories: z.array(z.string()).optional(),
  }),
);
export const TurnStartEvent = lazySchema(() =>
  ev('turn_start', {
    turnId: z.string(),
    text: z.string(),
    /** The client that started the turn (its attach clientId, or a transport name). */
    origin: z.string().optional(),
  }),
);
export const MessageChunkEvent = lazySchema(() => ev('message_chunk', { turnId: z.string(), text: z.string() }));
export const ReasoningChunkEvent = lazySchema(() => ev('reasoning_chunk', { turnId: z.string(), text: z.string() }));
export const ToolCallStartEvent = lazySchema(() =>
  ev('tool_call_start', {
    turnId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    kind: z.enum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other']),
    title: z.string(),
    locations: z.array(z.object({ path: z.string(), line: z.number().int().optional() })),
    /** Set on a subagent's events: the `task` call of the parent session it runs under. */
    parentCallId: z.string().optional(),
  }),
);
/** The call passed its checks (and any permission) and is running now: ACP's `in_progress`. */
export const ToolCallRunningEvent = lazySchema(() => ev('tool_call_running', { callId: z.string(), parentCallId: z.string().optional() }));
export const ToolCallProgressEvent = lazySchema(() =>
  ev('tool_call_progress', {
    callId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
    parentCallId: z.string().optional(),
  }),
);
export const ToolCallEndEvent = lazySchema(() =>
  ev('tool_call_end', {
    callId: z.string(),
    tool: z.string(),
    status: ToolStatusSchema,
    output: z.string(),
    durationMs: z.number(),
    exitCode: z.number().int().nullable().optional(),
    capReached: z.boolean().optional(),
    parentCallId: z.string().optional(),
  }),
);
export const PermissionRequestedEvent = lazySchema(() =>
  ev('permission_requested', {
    requestId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    risk: RiskSchema,
    reason: z.string(),
    rule: z.string().optional(),
    parentCallId: z.string().optional(),
    /** The change an edit would make (its tool's preview), so the person decides on the diff. */
    edit: z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string() }).optional(),
  }),
);
export const PermissionResolvedEvent = lazySchema(() =>
  ev('permission_resolved', {
    requestId: z.string(),
    callId: z.string(),
    decision: DecisionSchema,
    by: z.string(),
    parentCallId: z.string().optional(),
  }),
);
export const SandboxViolationEvent = lazySchema(() =>
  ev('sandbox_violation', {
    callId: z.string().optional(),
    tool: z.string(),
    path: z.string().optional(),
    mode: SandboxModeSchema,
    reason: z.string(),
    parentCallId: z.string().optional(),
  }),
);
export const ApprovalChangedEvent = lazySchema(() => ev('approval_changed', { old: ApprovalPresetSchema, new: ApprovalPresetSchema }));
export const ModeChangedEvent = lazySchema(() => ev('mode_changed', { old: AgentModeSchema, new: AgentModeSchema }));
export const ModelChangedEvent = lazySchema(() => ev('model_changed', { old: z.string(), new: z.string() }));
export const ReasoningChangedEvent = lazySchema(() => ev('reasoning_changed', { old: ReasoningEffortSchema, new: ReasoningEffortSchema }));
export const CostUpdateEvent = lazySchema(() =>
  ev('cost_update', {
    input: z.number(),
    output: z.number(),
    cache: z.number(),
    reasoning: z.number(),
    totalUsd: z.number(),
    /** This call's own usage; its size is how close the next prompt is to the context window. */
    call: UsageSchema.optional(),
    /** The model's context window in tokens, when the provider knows it. */
    contextWindow: z.number().int().positive().optional(),
    /** A side call (the session's title): billed, but no step of the conversation (a scripted file's position stays). */
    side: z.boolean().optional(),
    /**
     * A subagent's model call, billed to this session under the `task` call it ran for: the totals
     * include it, but it is no step of this session's conversation (its size and position stay).
     */
    parentCallId: z.string().optional(),
  }),
);
export const HistoryCompactedEvent = lazySchema(() =>
  ev('history_compacted', {
    turnId: z.string(),
    /** What the summarised part became; absent when only old tool output was cleared. */
    summary: z.string().optional(),
    /** With a summary: the history from this index on was kept as it was, what came before became the summary. */
    keptFrom: z.number().int().nonnegative(),
    /** Indices of tool messages (before the summary is applied) whose outputs were cleared to free room. */
    pruned: z.array(z.number().int().nonnegative()).optional(),
    /** The estimated prompt size before and after, in tokens: what the compaction freed. */
    tokensBefore: z.number().int().nonnegative().optional(),
    tokensAfter: z.number().int().nonnegative().optional(),
  }),
);
export const FileEditEvent = lazySchema(() =>
  ev('file_edit', {
    callId: z.string(),
    path: z.string(),
    diff: z.string(),
    /** `delete`: the file was removed (apply_patch; newText is empty). `move` (apply_patch): `path` is the new place, `movedFrom` the old. */
    changeKind: z.enum(['add', 'modify', 'delete', 'move']),
    oldText: z.string().nullable(),
    newText: z.string(),
    movedFrom: z.string().optional(),
    parentCallId: z.string().optional(),
  }),
);
export const FileOpenEvent = lazySchema(() =>
  ev('file_open', {
    callId: z.string().optional(),
    path: z.string(),
    line: z.number().int().optional(),
    parentCallId: z.string().optional(),
  }),
);
export const NoticeEvent = lazySchema(() => ev('notice', { level: z.enum(['info', 'warning', 'error']), text: z.string() }));
export const HistoryMessageEvent = lazySchema(() => ev('message', { turnId: z.string(), message: MessageSchema }));
export const TurnEndEvent = lazySchema(() =>
  ev('turn_end', {
    turnId: z.string(),
    stopReason: StopReasonSchema,
    text: z.string(),
    /** Why the turn ended with stopReason `error`, in one sentence. */
    error: z.string().optional(),
    /** The error's code when it has one (e.g. `auth_required`: the model's provider has no key). */
    errorCode: z.enum(ERROR_CODES).optional(),
    /** The turn's summary for bots (absent in older logs and for a turn a restart interrupted):
     * how long it took, the tokens and USD its model calls used, and the session's USD so far. */
    durationMs: z.number().nonnegative().optional(),
    usage: UsageSchema.optional(),
    costUsd: z.number().nonnegative().optional(),
    totalUsd: z.number().nonnegative().optional(),
  }),
);
/** The model's plan, whole, as it stands after an update_plan call: the last one is the session's plan. */
export const PlanUpdatedEvent = lazySchema(() =>
  ev('plan_updated', {
    entries: z.array(built(PlanEntrySchema)),
    /** The update_plan call that set it. */
    callId: z.string().optional(),
  }),
);

/** The session's title: the person's first request, shortened; clients show it in their session lists. */
export const SessionInfoEvent = lazySchema(() => ev('session_info', { title: z.string() }));

/**
 * What a subagent (a `task` call) says as it works: its reply text, or its reasoning (`thought`).
 * Kept apart from message_chunk so no client mistakes it for the session's own answer.
 */
export const SubagentChunkEvent = lazySchema(() => ev('subagent_chunk', { parentCallId: z.string(), text: z.string(), thought: z.boolean().optional() }));
/** A background process (bash with `background: true`) started: it runs past its call, owned by the session. */
export const ProcessStartedEvent = lazySchema(() =>
  ev('process_started', {
    processId: z.string(),
    /** The bash call that started it. */
    callId: z.string().optional(),
    command: z.string(),
  }),
);
/** New output of a background process, batched (at most a few a second), as the log and replays keep it. */
export const ProcessOutputEvent = lazySchema(() =>
  ev('process_output', {
    processId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
  }),
);
/** A background process ended: on its own (`exited`), stopped by process_kill (`killed`), at a limit, or with its session. */
export const ProcessExitedEvent = lazySchema(() =>
  ev('process_exited', {
    processId: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().optional(),
    reason: z.enum(['exited', 'killed', 'lifetime', 'session_end']),
  }),
);
/**
 * The workspace recorded in the session's shadow repository (core/checkpoints/): `before` when a
 * turn is about to change its first file (or run its first command), `after` when that turn ends.
 */
export const CheckpointEvent = lazySchema(() =>
  ev('checkpoint', {
    turnId: z.string(),
    stage: z.enum(['before', 'after']),
    /** The snapshot's id in the shadow repository. */
    commit: z.string(),
    /** Files left out for their size (a restore leaves them as they are). */
    skipped: z.array(z.string()).optional(),
  }),
);

/** What /undo, /redo and /rewind can put back: the files, what the model sees, or both. */
export const RewindModeSchema = lazySchema(() => z.enum(['code', 'conversation', 'both']));

/**
 * /undo, /rewind (back to before `turnId`) or /redo (the last undone step put back). The fold
 * drops (or puts back) the turns' messages; `code` says which files were written from which snapshot.
 */
export const RewoundEvent = lazySchema(() =>
  ev('rewound', {
    op: z.enum(['undo', 'rewind', 'redo']),
    mode: RewindModeSchema,
    /** The first turn taken back (undo, rewind) or the first put back (redo). */
    turnId: z.string(),
    /** How many turns it took back or put back. */
    turns: z.number().int().nonnegative(),
    code: z
      .object({
        /** The snapshot ferret had left the workspace at, and the one it was put to. */
        from: z.string(),
        to: z.string(),
        /** The workspace just before (kept so nothing of it is lost). */
        saved: z.string(),
        files: z.array(z.string()),
      })
      .optional(),
  }),
);

export const SessionEventSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    built(SessionCreatedEvent),
    built(TurnStartEvent),
    built(MessageChunkEvent),
    built(ReasoningChunkEvent),
    built(ToolCallStartEvent),
    built(ToolCallRunningEvent),
    built(ToolCallProgressEvent),
    built(ToolCallEndEvent),
    built(PermissionRequestedEvent),
    built(PermissionResolvedEvent),
    built(SandboxViolationEvent),
    built(ApprovalChangedEvent),
    built(ModeChangedEvent),
    built(ModelChangedEvent),
    built(ReasoningChangedEvent),
    built(CostUpdateEvent),
    built(FileEditEvent),
    built(FileOpenEvent),
    built(NoticeEvent),
    built(HistoryMessageEvent),
    built(HistoryCompactedEvent),
    built(TurnEndEvent),
    built(PlanUpdatedEvent),
    built(SessionInfoEvent),
    built(SubagentChunkEvent),
    built(ProcessStartedEvent),
    built(ProcessOutputEvent),
    built(ProcessExitedEvent),
    built(CheckpointEvent),
    built(RewoundEvent),
  ]),
);

export type SessionEvent = z.infer<typeof SessionEventSchema>;
export type EventType = SessionEvent['type'];
export type EventOf<T extends EventType> = Extract<SessionEvent, { type: T }>;
export type EventData<T extends EventType> = EventOf<T>['data'];
/** What a session hands the store: the store stamps seq, sessionId and ts. */
export type EventDraft = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
export type RewindMode = z.infer<typeof RewindModeSchema>;
