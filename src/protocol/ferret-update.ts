import type { FerretUpdate } from './ferret-wire.js';
import type { SessionEvent } from './events.js';

/**
 * Core event → ferret `session/update` params (pure). Live, the twelve kinds of ide.md flow;
 * a replay on session/load adds `user_message_chunk` so the history shows what the user said.
 */
export function toFerretUpdate(e: SessionEvent, replay = false): FerretUpdate | undefined {
  const base = { sessionId: e.sessionId, seq: e.seq };
  switch (e.type) {
    case 'message_chunk':
      return { ...base, kind: 'agent_message_chunk', text: e.data.text };
    case 'tool_call_start':
      return { ...base, kind: 'tool_call_start', id: e.data.callId, tool: e.data.tool, args: e.data.args };
    case 'tool_call_progress':
      return { ...base, kind: 'tool_call_progress', id: e.data.callId, [e.data.stream]: e.data.text };
    case 'tool_call_end':
      return {
        ...base,
        kind: 'tool_call_end',
        id: e.data.callId,
        result: {
          status: e.data.status,
          output: e.data.output,
          ...(e.data.exitCode !== undefined ? { exitCode: e.data.exitCode } : {}),
          ...(e.data.capReached !== undefined ? { capReached: e.data.capReached } : {}),
        },
        duration_ms: e.data.durationMs,
      };
    case 'permission_requested':
      return {
        ...base,
        kind: 'permission_request',
        id: e.data.requestId,
        tool: e.data.tool,
        args: e.data.args,
        risk: e.data.risk,
        reason: e.data.reason,
        ...(e.data.rule ? { rule: e.data.rule } : {}),
      };
    case 'sandbox_violation':
      return { ...base, kind: 'sandbox_violation', tool: e.data.tool, path: e.data.path ?? null, mode: e.data.mode, reason: e.data.reason };
    case 'approval_changed':
      return { ...base, kind: 'approval_changed', old: e.data.old, new: e.data.new };
    case 'cost_update':
      return {
        ...base,
        kind: 'cost_update',
        input: e.data.input,
        output: e.data.output,
        cache: e.data.cache,
        reasoning: e.data.reasoning,
        total_usd: e.data.totalUsd,
        ...(e.data.contextWindow !== undefined ? { context_window: e.data.contextWindow } : {}),
      };
    case 'file_edit':
      return { ...base, kind: 'file_edit', path: e.data.path, diff: e.data.diff };
    case 'file_open':
      return { ...base, kind: 'file_open', path: e.data.path, ...(e.data.line !== undefined ? { line: e.data.line } : {}) };
    case 'notice':
      return { ...base, kind: 'notice', level: e.data.level, text: e.data.text };
    case 'turn_end':
      return { ...base, kind: 'turn_end', id: e.data.turnId, stop_reason: e.data.stopReason, ...(e.data.error !== undefined ? { error: e.data.error } : {}) };
    case 'permission_resolved':
      return { ...base, kind: 'permission_resolved', id: e.data.requestId, decision: e.data.decision, by: e.data.by };
    case 'turn_start':
      return replay ? { ...base, kind: 'user_message_chunk', text: e.data.text } : undefined;
    case 'session_created':
    case 'tool_call_running':
    case 'reasoning_chunk':
    case 'mode_changed':
    case 'model_changed':
    case 'message':
    case 'history_compacted':
      return undefined;
  }
}
