import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';
import { PlanEntrySchema } from './plan.js';
import { ApprovalPresetSchema, DecisionSchema, RiskSchema, SandboxModeSchema, StopReasonSchema, ToolStatusSchema } from './types.js';

// The ferret dialect's `session/update` params (ide.md's kinds, flattened), which are also the
// data of the SSE `loop_event` frame. One schema per kind; the union is what a client parses.

const base = <K extends string, S extends z.ZodRawShape>(kind: K, shape: S) =>
  z.object({ sessionId: z.string(), seq: z.number().int().positive(), kind: z.literal(kind), ...shape });

export const FerretUpdateSchemas = lazySchema(() =>
  ({
    agent_message_chunk: base('agent_message_chunk', { text: z.string() }),
    /** The model's reasoning as it streams (a summary or its thinking), apart from the answer. */
    agent_thought_chunk: base('agent_thought_chunk', { text: z.string() }),
    user_message_chunk: base('user_message_chunk', { text: z.string() }),
    /** `parent_id`: the `task` call whose subagent made this call (docs/tools.md#subagents). */
    tool_call_start: base('tool_call_start', { id: z.string(), tool: z.string(), args: z.unknown(), parent_id: z.string().optional() }),
    tool_call_progress: base('tool_call_progress', { id: z.string(), stdout: z.string().optional(), stderr: z.string().optional(), parent_id: z.string().optional() }),
    tool_call_end: base('tool_call_end', {
      id: z.string(),
      result: z.object({
        status: ToolStatusSchema,
        output: z.string(),
        exitCode: z.number().int().nullable().optional(),
        capReached: z.boolean().optional(),
      }),
      duration_ms: z.number(),
      parent_id: z.string().optional(),
    }),
    permission_request: base('permission_request', {
      id: z.string(),
      tool: z.string(),
      args: z.unknown(),
      risk: RiskSchema,
      reason: z.string(),
      rule: z.string().optional(),
      parent_id: z.string().optional(),
    }),
    permission_resolved: base('permission_resolved', { id: z.string(), decision: DecisionSchema, by: z.string() }),
    sandbox_violation: base('sandbox_violation', { tool: z.string(), path: z.string().nullable(), mode: SandboxModeSchema, reason: z.string() }),
    approval_changed: base('approval_changed', { old: ApprovalPresetSchema, new: ApprovalPresetSchema }),
    cost_update: base('cost_update', {
      input: z.number(),
      output: z.number(),
      cache: z.number(),
      reasoning: z.number(),
      total_usd: z.number(),
      context_window: z.number().int().positive().optional(),
      /** A side call (the session's title): its cost counts, but it says nothing of the conversation's size. */
      side: z.boolean().optional(),
      /** A subagent's call under this `task` call: its cost counts, but it says nothing of this conversation's size. */
      parent_id: z.string().optional(),
    }),
    file_edit: base('file_edit', {
      path: z.string(),
      diff: z.string(),
      /** Absent from older servers (read it as `modify`/`add`); `move`: `moved_from` is where the file was. */
      change_kind: z.enum(['add', 'modify', 'delete', 'move']).optional(),
      moved_from: z.string().optional(),
      parent_id: z.string().optional(),
    }),
    file_open: base('file_open', { path: z.string(), line: z.number().int().optional() }),
    /** The conversation was made smaller to fit the model's window: old tool output cleared, or older steps summarised. */
    history_compacted: base('history_compacted', {
      summary: z.string().optional(),
      /** Tool results whose output was cleared. */
      cleared: z.number().int().nonnegative().optional(),
      tokens_before: z.number().int().nonnegative().optional(),
      tokens_after: z.number().int().nonnegative().optional(),
      /** Estimated tokens the compaction freed. */
      freed_tokens: z.number().int().nonnegative().optional(),
    }),
    notice: base('notice', { level: z.enum(['info', 'warning', 'error']), text: z.string() }),
    /** The turn's last event, and its summary: duration, tokens and USD of the turn, USD of the session. */
    turn_end: base('turn_end', {
      id: z.string(),
      stop_reason: StopReasonSchema,
      error: z.string().optional(),
      duration_ms: z.number().nonnegative().optional(),
      tokens: z.object({ input: z.number(), output: z.number(), cache: z.number(), reasoning: z.number() }).optional(),
      cost_usd: z.number().nonnegative().optional(),
      total_usd: z.number().nonnegative().optional(),
    }),
    /** The model's plan, the whole list each time it changes (a client replaces the one it shows). */
    plan: base('plan', { entries: z.array(PlanEntrySchema) }),
    /** The session's title changed (set from the first request). */
    session_info: base('session_info', { title: z.string() }),
    /** A subagent's text as it works, under its `task` call (`thought`: its reasoning). */
    subagent_chunk: base('subagent_chunk', { parent_id: z.string(), text: z.string(), thought: z.boolean().optional() }),
    /** A background process started by a bash call (`id` is what process_output/process_kill take). */
    process_started: base('process_started', { id: z.string(), command: z.string(), call_id: z.string().optional() }),
    /** New output of a background process (batched). */
    process_output: base('process_output', { id: z.string(), stdout: z.string().optional(), stderr: z.string().optional() }),
    /** A background process ended; `reason`: exited, killed, lifetime (its limit), session_end. */
    process_exited: base('process_exited', {
      id: z.string(),
      exit_code: z.number().int().nullable(),
      signal: z.string().optional(),
      reason: z.enum(['exited', 'killed', 'lifetime', 'session_end']),
    }),
    /** The workspace was recorded before a turn's first change (`before`) or at its end (`after`): the turn can be undone. */
    /** `id` is the turn's, as on turn_end; `turnId` repeats it under the name contract §10 gives. */
    checkpoint: base('checkpoint', { id: z.string(), turnId: z.string(), stage: z.enum(['before', 'after']) }),
    /** /undo, /redo or /rewind ran: what it took back or put back, and the files it wrote. */
    rewound: base('rewound', {
      op: z.enum(['undo', 'rewind', 'redo']),
      mode: z.enum(['code', 'conversation', 'both']),
      /** The first turn taken back (or put back). */
      id: z.string(),
      turns: z.number().int().nonnegative(),
      files: z.array(z.string()),
    }),
  }) as const,
);

export const FerretUpdateSchema = lazySchema(() =>
  z.discriminatedUnion('kind', [
    FerretUpdateSchemas.agent_message_chunk,
    FerretUpdateSchemas.agent_thought_chunk,
    FerretUpdateSchemas.user_message_chunk,
    FerretUpdateSchemas.tool_call_start,
    FerretUpdateSchemas.tool_call_progress,
    FerretUpdateSchemas.tool_call_end,
    FerretUpdateSchemas.permission_request,
    FerretUpdateSchemas.permission_resolved,
    FerretUpdateSchemas.sandbox_violation,
    FerretUpdateSchemas.approval_changed,
    FerretUpdateSchemas.cost_update,
    FerretUpdateSchemas.file_edit,
    FerretUpdateSchemas.file_open,
    FerretUpdateSchemas.history_compacted,
    FerretUpdateSchemas.notice,
    FerretUpdateSchemas.turn_end,
    FerretUpdateSchemas.plan,
    FerretUpdateSchemas.session_info,
    FerretUpdateSchemas.subagent_chunk,
    FerretUpdateSchemas.process_started,
    FerretUpdateSchemas.process_output,
    FerretUpdateSchemas.process_exited,
    FerretUpdateSchemas.checkpoint,
    FerretUpdateSchemas.rewound,
  ]),
);
export type FerretUpdate = z.infer<typeof FerretUpdateSchema>;
