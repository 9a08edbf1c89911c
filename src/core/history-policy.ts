import type { SessionEvent } from '../protocol/index.js';

// What a history replay (session/load in both ACP dialects) leaves out: the one rule, after
// codex's rollout/policy.rs. A client shown a session's history gets each finished reply once
// (its `message`, not the thousand chunks it streamed in) and each command's output once (its
// tool_call_end, not the progress it streamed). Live events are never left out: only those up to
// the seq the session stood at when the replay began.
//
// The bus applies it to what memory holds (bus.ts); the store applies it to what it reads, mostly
// without parsing lines (store/line-scanner.ts, its fast path). core/history-policy.test.ts
// holds the two equal over generated logs.

/** How an event takes part in the rule. */
type Part =
  /** A piece of a reply, repeated by the assistant `message` that ends its run. */
  | 'reply_chunk'
  /** A piece of a command's output, repeated by the call's end when that carries an exit code. */
  | 'call_progress'
  /** Ends a call; with an exit code it carries the whole output. */
  | 'call_end'
  /** Ends a run of reply chunks: an assistant one repeats them. */
  | 'message'
  /** Kept, and ends a run of reply chunks without repeating them. */
  | 'other';

/** Every event type, placed: a new type does not compile until it is. */
const PART: { readonly [T in SessionEvent['type']]: Part } = {
  session_created: 'other',
  turn_start: 'other',
  message_chunk: 'reply_chunk',
  reasoning_chunk: 'other',
  tool_call_start: 'other',
  tool_call_running: 'other',
  tool_call_progress: 'call_progress',
  tool_call_end: 'call_end',
  permission_requested: 'other',
  permission_resolved: 'other',
  sandbox_violation: 'other',
  approval_changed: 'other',
  mode_changed: 'other',
  model_changed: 'other',
  reasoning_changed: 'other',
  cost_update: 'other',
  history_compacted: 'other',
  file_edit: 'other',
  file_open: 'other',
  notice: 'other',
  message: 'message',
  turn_end: 'other',
  plan_updated: 'other',
  session_info: 'other',
  subagent_chunk: 'other',
  process_started: 'other',
  process_output: 'other',
  process_exited: 'other',
  checkpoint: 'other',
  rewound: 'other',
};

/**
 * For each of `events` (in seq order), whether a history replay that began at `upTo` leaves it out:
 * - a message_chunk (seq ≤ upTo) when the next event that is not itself such a chunk is an
 *   assistant `message` (a chunk past upTo is live, and so ends the run without repeating it);
 * - a tool_call_progress (seq ≤ upTo) when the first tool_call_end of its call after it carries
 *   an exit code (a command that ran to its end: the end holds the whole output; an interrupted
 *   call or a failing tool does not).
 * Everything else is kept. What follows `upTo` counts as what follows: a reply whose message came
 * after the replay began still repeats its chunks. `upTo` 0: nothing is left out.
 */
export function historyOmissions(events: readonly SessionEvent[], upTo: number): boolean[] {
  const out = new Array<boolean>(events.length).fill(false);
  if (upTo <= 0) return out;
  /** The event after this point that is not a chunk up to `upTo` is an assistant message. */
  let replyFollows = false;
  /** For each call: whether its first end after this point carries an exit code. */
  const endRepeats = new Map<string, boolean>();
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    const part = PART[e.type];
    switch (part) {
      case 'reply_chunk':
        if (e.seq <= upTo) out[i] = replyFollows;
        else replyFollows = false;
        break;
      case 'call_progress':
        if (e.seq <= upTo && e.type === 'tool_call_progress') out[i] = endRepeats.get(e.data.callId) === true;
        replyFollows = false;
        break;
      case 'call_end':
        if (e.type === 'tool_call_end') endRepeats.set(e.data.callId, typeof e.data.exitCode === 'number');
        replyFollows = false;
        break;
      case 'message':
        replyFollows = e.type === 'message' && e.data.message.role === 'assistant';
        break;
      case 'other':
        replyFollows = false;
        break;
      default:
        return part satisfies never;
    }
  }
  return out;
}

/** The events after `after` that a history replay that began at `upTo` hands out. */
export function historyReplay(events: readonly SessionEvent[], after: number, upTo: number): SessionEvent[] {
  const omit = historyOmissions(events, upTo);
  return events.filter((e, i) => e.seq > after && !omit[i]);
}
