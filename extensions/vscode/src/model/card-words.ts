import type { ReviewState, ToolCard } from './chat-model.js';

// What a person reads on a card whose tool result was written for the model: an edit they
// rejected here, an edit whose turn ended (a window reload, Stop) before they decided, a call
// denied. The model's own wording ("the person reviewing it…", "the client closed the
// connection", "do not retry it…") stays in its history; the card says what happened to the file.

export interface CardWords {
  text: string;
  /** A file whose edit the card offers to review again (its turn is over; Accept still writes it). */
  offer?: string;
}

const REJECTED = /the person reviewing it in the editor rejected this change, so the file is unchanged(?:\. Their reason: ([\s\S]*))?/;
/** The write never got an answer: the window went away, or Stop withdrew it. */
const UNANSWERED = /the client closed the connection|the edit was withdrawn before the person decided|ACP connection (?:was )?closed|connection closed/i;
const DENIED = /^the user denied this (\S+) call( and asked never to allow it)?; do not retry it/;

const ENDED: ReadonlySet<ToolCard['status']> = new Set(['failed', 'cancelled', 'denied']);

export function personWords(c: ToolCard, reviews: Record<string, ReviewState>, waiting: readonly string[]): CardWords | undefined {
  if (!ENDED.has(c.status)) return undefined;
  const denied = DENIED.exec(c.output);
  if (denied) return { text: denied[2] ? `Denied, and never to be allowed: this ${denied[1]} call did not run.` : `Denied: this ${denied[1]} call did not run.` };
  if (c.kind !== 'edit') return undefined;
  const rejected = REJECTED.exec(c.output);
  if (rejected) return { text: `You rejected this edit; the file is unchanged.${rejected[1] ? ` Your reason: ${rejected[1].trim()}` : ''}` };
  if (!UNANSWERED.test(c.output) && c.status !== 'cancelled') return undefined;
  const path = [...c.diffs.map((d) => d.path), ...c.locations.map((l) => l.path)][0];
  const review = path === undefined ? undefined : reviews[path];
  if (path !== undefined && review === 'pending' && !waiting.includes(path)) {
    return { text: 'Not written yet: the turn ended (the window closed or reloaded) while this edit waited for your review. Review it, then Accept to write it or Reject.', offer: path };
  }
  if (review === 'accepted') return { text: 'The turn ended before you decided; you accepted the edit afterwards, so the file has it.' };
  if (review === 'rejected') return { text: 'The turn ended before you decided; you rejected the edit afterwards, so the file is unchanged.' };
  return { text: 'Not written: the turn ended before you decided on this edit, so the file is unchanged.' };
}

const UNDECIDED: ReadonlySet<ToolCard['status']> = new Set(['pending', 'in_progress']);

/**
 * An edit whose write waits for a person in another window on this session (this window only
 * watches it): without this its card would say "running" with no hint of where the decision is.
 */
export function reviewedElsewhere(c: ToolCard, reviews: Record<string, ReviewState>, elsewhere: readonly string[]): boolean {
  if (c.kind !== 'edit' || !UNDECIDED.has(c.status)) return false;
  const paths = [...c.locations.map((l) => l.path), ...c.diffs.map((d) => d.path)];
  return paths.some((p) => elsewhere.includes(p) && reviews[p] !== 'pending');
}
