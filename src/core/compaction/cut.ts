import type { Message } from '../../protocol/index.js';
import { isContextNote } from '../prompt/context-notes.js';
import { SUMMARY_PREFIX } from '../session-state.js';
import { historyTokens } from './estimate.js';

// Where a summary ends and the verbatim tail begins. The tail always starts at a user or an
// assistant message, never at tool results, so no result is ever separated from its call.

/** The person's message that opened the current turn (not a context note, not a summary). */
export function turnStartOf(history: readonly Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user' && !isContextNote(m) && !m.text.startsWith(SUMMARY_PREFIX)) return i;
  }
  return -1;
}

/**
 * The index the kept tail starts at, or undefined when summarising would free nothing.
 * Between turns (the turn has made no call yet) the current turn is kept whole. Inside a turn the
 * newest step (the last reply and its results) is always kept, older steps of the turn too while
 * the tail stays within `budget` tokens, but at least one step of a turn of several is summarised.
 */
export function chooseCut(history: readonly Message[], budget: number): number | undefined {
  const start = turnStartOf(history);
  const steps: number[] = [];
  for (let i = Math.max(start, 0); i < history.length; i++) if (history[i]!.role === 'assistant') steps.push(i);
  let cut = steps.length > 0 ? steps[steps.length - 1]! : start;
  if (cut < 0) return undefined;
  // Keep more of the turn's steps while they fit, never the first one once there are several.
  for (let k = steps.length - 2; k >= 1; k--) {
    if (historyTokens(history, steps[k]) > budget) break;
    cut = steps[k]!;
  }
  // Nothing before the cut but the person's words, notes and an earlier summary: a summary would free nothing.
  if (!history.slice(0, cut).some((m) => m.role !== 'user')) return undefined;
  return cut;
}
