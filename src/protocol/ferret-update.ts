import type { FerretUpdate } from './ferret-wire.js';
import type { SessionEvent } from './events.js';

/**
 * Core event → ferret `session/update` params (pure). Live, the twelve kinds of ide.md flow;
 * a replay on session/load adds `user_message_chunk` so the history shows what the user said.
 */
export function toFerretUpdate(e: SessionEvent, replay = false): FerretUpdate | undefined {
  // Built field by field, never with object spread: a replay maps a million events, and spreading
  // made this the most expensive step of it (the key order is the same either way).
  const sessionId = e.sessionId;
  const seq = e.seq;
  switch (e.type) {
    case 'message_chunk':
      return { sessionId, seq, kind: 'agent_message_chunk', text: e.data.text };
    case 'reasoning_chunk':
      return { sessionId, seq, kind: 'agent_thought_chunk', text: e.data.text };
    case 'tool_call_start': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'tool_call_start', id: e.data.callId, tool: e.data.tool, args: e.data.args };
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'tool_call_progress': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'tool_call_progress', id: e.data.callId };
      u[e.data.stream] = e.data.text;
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'tool_call_end': {
      const result: Record<string, unknown> = { status: e.data.status, output: e.data.output };
      if (e.data.exitCode !== undefined) result['exitCode'] = e.data.exitCode;
      if (e.data.capReached !== undefined) result['capReached'] = e.data.capReached;
      const u: Record<string, unknown> = { sessionId, seq, kind: 'tool_call_end', id: e.data.callId, result, duration_ms: e.data.durationMs };
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'permission_requested': {
      const u: Record<string, unknown> = {
        sessionId,
        seq,
        kind: 'permission_request',
        id: e.data.requestId,
        tool: e.data.tool,
        args: e.data.args,
        risk: e.data.risk,
        reason: e.data.reason,
      };
      if (e.data.rule) u['rule'] = e.data.rule;
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'sandbox_violation':
      return { sessionId, seq, kind: 'sandbox_violation', tool: e.data.tool, path: e.data.path ?? null, mode: e.data.mode, reason: e.data.reason };
    case 'approval_changed':
      return { sessionId, seq, kind: 'approval_changed', old: e.data.old, new: e.data.new };
    case 'cost_update': {
      const u: Record<string, unknown> = {
        sessionId,
        seq,
        kind: 'cost_update',
        input: e.data.input,
        output: e.data.output,
        cache: e.data.cache,
        reasoning: e.data.reasoning,
        total_usd: e.data.totalUsd,
      };
      if (e.data.contextWindow !== undefined) u['context_window'] = e.data.contextWindow;
      if (e.data.side) u['side'] = true;
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'file_edit': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'file_edit', path: e.data.path, diff: e.data.diff, change_kind: e.data.changeKind };
      if (e.data.movedFrom !== undefined) u['moved_from'] = e.data.movedFrom;
      if (e.data.parentCallId !== undefined) u['parent_id'] = e.data.parentCallId;
      return u as FerretUpdate;
    }
    case 'file_open': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'file_open', path: e.data.path };
      if (e.data.line !== undefined) u['line'] = e.data.line;
      return u as FerretUpdate;
    }
    case 'notice':
      return { sessionId, seq, kind: 'notice', level: e.data.level, text: e.data.text };
    case 'turn_end': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'turn_end', id: e.data.turnId, stop_reason: e.data.stopReason };
      if (e.data.error !== undefined) u['error'] = e.data.error;
      if (e.data.durationMs !== undefined) u['duration_ms'] = e.data.durationMs;
      if (e.data.usage !== undefined) u['tokens'] = e.data.usage;
      if (e.data.costUsd !== undefined) u['cost_usd'] = e.data.costUsd;
      if (e.data.totalUsd !== undefined) u['total_usd'] = e.data.totalUsd;
      return u as FerretUpdate;
    }
    case 'permission_resolved':
      return { sessionId, seq, kind: 'permission_resolved', id: e.data.requestId, decision: e.data.decision, by: e.data.by };
    case 'turn_start':
      return replay ? { sessionId, seq, kind: 'user_message_chunk', text: e.data.text } : undefined;
    case 'session_created':
    case 'tool_call_running':
    case 'mode_changed':
    case 'model_changed':
    case 'reasoning_changed':
    case 'message':
      return undefined;
    case 'history_compacted': {
      const d = e.data;
      const u: Record<string, unknown> = { sessionId, seq, kind: 'history_compacted' };
      if (d.summary !== undefined) u['summary'] = d.summary;
      if (d.pruned) u['cleared'] = d.pruned.length;
      if (d.tokensBefore !== undefined) u['tokens_before'] = d.tokensBefore;
      if (d.tokensAfter !== undefined) u['tokens_after'] = d.tokensAfter;
      if (d.tokensBefore !== undefined && d.tokensAfter !== undefined) u['freed_tokens'] = Math.max(0, d.tokensBefore - d.tokensAfter);
      return u as FerretUpdate;
    }
    case 'plan_updated':
      return { sessionId, seq, kind: 'plan', entries: e.data.entries };
    case 'session_info':
      return { sessionId, seq, kind: 'session_info', title: e.data.title };
    case 'subagent_chunk': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'subagent_chunk', parent_id: e.data.parentCallId, text: e.data.text };
      if (e.data.thought) u['thought'] = true;
      return u as FerretUpdate;
    }
    case 'process_started': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'process_started', id: e.data.processId, command: e.data.command };
      if (e.data.callId !== undefined) u['call_id'] = e.data.callId;
      return u as FerretUpdate;
    }
    case 'process_output': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'process_output', id: e.data.processId };
      u[e.data.stream] = e.data.text;
      return u as FerretUpdate;
    }
    case 'process_exited': {
      const u: Record<string, unknown> = { sessionId, seq, kind: 'process_exited', id: e.data.processId, exit_code: e.data.exitCode, reason: e.data.reason };
      if (e.data.signal !== undefined) u['signal'] = e.data.signal;
      return u as FerretUpdate;
    }
    case 'checkpoint':
      return { sessionId, seq, kind: 'checkpoint', id: e.data.turnId, turnId: e.data.turnId, stage: e.data.stage };
    case 'rewound':
      return { sessionId, seq, kind: 'rewound', op: e.data.op, mode: e.data.mode, id: e.data.turnId, turns: e.data.turns, files: e.data.code?.files ?? [] };
  }
}
