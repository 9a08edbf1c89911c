import type { EventDraft } from '../protocol/index.js';
import type { SessionState } from './session-state.js';

/**
 * A log whose last turn never ended: the process that ran it died (a crash, a kill -9, a fleet
 * instance whose lease expired). Whoever writes the session next ends that turn first, in the
 * log, so every reader sees it end: questions withdrawn, unfinished tool calls failed with the
 * reason, the turn ended `error` with it.
 */
export function interruptedTurnEvents(state: Readonly<SessionState>, reason: string): EventDraft[] {
  const t = state.openTurn;
  if (!t) return [];
  const out: EventDraft[] = [];
  for (const [requestId, callId] of Object.entries(t.asks)) {
    out.push({ type: 'permission_resolved', data: { requestId, callId, decision: 'deny', by: 'interrupted' } });
  }
  for (const [callId, tool] of Object.entries(t.calls)) {
    out.push({ type: 'tool_call_end', data: { callId, tool, status: 'failed', output: `interrupted: ${reason}`, durationMs: 0 } });
  }
  // The model call whose tools were running was made (and billed): it counts, though its usage died with the process.
  if (t.uncosted) out.push({ type: 'cost_update', data: { ...state.usage, totalUsd: state.costUsd } });
  out.push({ type: 'turn_end', data: { turnId: t.turnId, stopReason: 'error', text: '', error: `the turn was interrupted: ${reason}` } });
  return out;
}
