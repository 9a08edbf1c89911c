import type { Message } from '../../protocol/index.js';
import { messageTokens } from './estimate.js';

// Clearing old tool output is the cheap half of compaction (as opencode does it): the calls stay,
// so the model still knows what it did, only the bulky results of long-past reads and commands go.
// Most of a long session's context is such output, so this often frees enough without a summary.

/** What a cleared result says instead of its output. */
export const PRUNED_OUTPUT = '[output cleared to free context; run the tool again if it is needed]';

export interface PrunePlan {
  /** Indices of tool messages whose outputs are cleared. */
  indices: number[];
  /** Estimated tokens that frees. */
  freed: number;
}

/**
 * Picks old tool messages to clear: walking back from the newest, the first `protect` tokens of
 * tool output are kept, and so is everything from `keepFrom` on (the newest step); what is older
 * is cleared, but only if that frees at least `minimum` tokens (a small gain is not worth the lost detail).
 */
export function planPrune(history: readonly Message[], keepFrom: number, protect: number, minimum: number): PrunePlan | undefined {
  const indices: number[] = [];
  let seen = 0;
  let freed = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'tool' || isPruned(m)) continue;
    const n = messageTokens(m);
    if (i >= keepFrom || seen + n <= protect) {
      seen += n;
      continue;
    }
    seen = protect; // past the protected newest part: everything older goes
    const left = m.results.length * (PRUNED_OUTPUT.length / 4 + 8);
    if (n <= left) continue;
    indices.push(i);
    freed += n - left;
  }
  if (indices.length === 0 || freed < minimum) return undefined;
  return { indices: indices.reverse(), freed: Math.round(freed) };
}

function isPruned(m: Extract<Message, { role: 'tool' }>): boolean {
  return m.results.every((r) => r.output === PRUNED_OUTPUT);
}

/** The history with those tool messages' outputs cleared (the fold applies this on replay too). */
export function applyPrune(history: Message[], indices: readonly number[]): Message[] {
  if (indices.length === 0) return history;
  const out = history.slice();
  for (const i of indices) {
    const m = out[i];
    if (m?.role !== 'tool') continue;
    // A cleared result's images go with its text (an image read again is read again).
    out[i] = { role: 'tool', results: m.results.map(({ images: _images, ...r }) => ({ ...r, output: PRUNED_OUTPUT })) };
  }
  return out;
}
