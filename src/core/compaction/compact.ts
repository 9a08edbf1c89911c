import { ContextOverflowError, type ModelProvider } from '../../providers/provider.js';
import { SUMMARY_PREFIX } from '../session-state.js';
import type { Message, Usage } from '../../protocol/index.js';
import type { TurnHost } from '../turn-host.js';
import { chooseCut, turnStartOf } from './cut.js';
import { historyTokens, nextPromptTokens, tokensOf } from './estimate.js';
import { planPrune } from './prune.js';

/** Compact when the last call (its prompt and its reply) filled this much of the context window. */
export const COMPACT_AT = 0.9;
/** ...or when the estimate of the next prompt (the last call plus what joined since) fills this much. */
const FULL_AT = 0.95;
/** Newest tool output never cleared, and the least a clearing must free (opencode's figures, scaled to small windows). */
const PRUNE_PROTECT = 40_000;
const PRUNE_MINIMUM = 20_000;
/** The verbatim tail kept inside a turn: newest steps up to this share of the window. */
const KEEP_SHARE = 0.2;
/** The longest request carried verbatim into a summary. */
const REQUEST_CHARS = 16_000;

const SUMMARY_SYSTEM =
  'You compact a coding session so that the agent can carry on from your summary alone. Write down: ' +
  "the person's goals and constraints, decisions made and why, the files read and changed (with paths), " +
  'commands run and what they showed, errors met and how they were handled, the state of the work right ' +
  'now, and the next steps. Keep exact names, paths and numbers. Be specific and brief. Do not call tools.';
const SUMMARY_ASK = 'Summarise the conversation so far as instructed.';

/** Why compaction runs: the window is filling, the provider refused the prompt as too long, or /compact. */
export type CompactReason = 'threshold' | 'overflow' | 'command';

export interface CompactOptions {
  reason: CompactReason;
  /** Estimated tokens of the system prompt and tool schemas, for when no call has reported a size yet. */
  fixedTokens?: number;
  /** Bills one summary call (its usage, or none when it failed): it counts, but is not the conversation's size. */
  bill: (usage: Usage | undefined) => void;
}

export interface CompactOutcome {
  /** Whether the history got smaller. */
  freed: boolean;
  /** Whether a summary call was made. */
  called: boolean;
}

const NOTHING: CompactOutcome = { freed: false, called: false };
/** A summary call refused as too long is tried again on the newer half of what it summarises, this often. */
const SUMMARY_ATTEMPTS = 3;

/**
 * Keeps a conversation inside the model's context window, before any call of a turn: first the
 * output of old tool calls is cleared (free, and often enough), then older steps are summarised
 * by the model itself, keeping the newest steps verbatim.
 */
export async function compactIfNeeded(session: TurnHost, model: ModelProvider, turnId: string, signal: AbortSignal, opts: CompactOptions): Promise<CompactOutcome> {
  const { reason, fixedTokens = 0 } = opts;
  const window = model.contextWindow;
  const reported = session.state.lastCallTokens;
  let before = nextPromptTokens(session.state.history, reported, fixedTokens);
  if (reason === 'threshold' && (!window || (reported < window * COMPACT_AT && before < window * FULL_AT))) return NOTHING;
  const started = before;
  let freed = false;
  if (reason !== 'command') {
    const cleared = prune(session, turnId, reason, before, window);
    if (cleared > 0) {
      freed = true;
      before -= cleared;
      if (reason === 'threshold' && window && before < window * COMPACT_AT) return { freed, called: false };
    }
  }
  const history = session.state.history;
  const cut = reason === 'command' ? history.length : chooseCut(history, window ? window * KEEP_SHARE : Infinity);
  if (cut === undefined || cut === 0 || onlySummary(history, cut)) return { freed, called: false };
  const result = await summarise(session, model, history.slice(0, cut), signal, opts.bill);
  if (result.summary === undefined) return { freed, called: true };
  const summary = result.summary + (reason === 'command' ? '' : requestOf(history, cut));
  // Relative to the estimate before (which rests on the provider's own count where there is one).
  const after = Math.max(0, before - historyTokens(history, 0, cut) + tokensOf(SUMMARY_PREFIX + summary));
  session.emit({ type: 'history_compacted', data: { turnId, summary, keptFrom: cut, tokensBefore: Math.round(before), tokensAfter: Math.round(Math.min(after, before)) } });
  session.emit({ type: 'notice', data: { level: 'info', text: told(reason, model, reported, window, cut, started - after) } });
  return { freed: true, called: true };
}

/** Clears old tool output; returns the tokens freed (0: nothing worth clearing). */
function prune(session: TurnHost, turnId: string, reason: CompactReason, before: number, window: number | undefined): number {
  const history = session.state.history;
  // The newest step's results are what the model is working from: never cleared.
  let keepFrom = history.length;
  for (let i = history.length - 1; i >= Math.max(turnStartOf(history), 0); i--) {
    if (history[i]!.role === 'assistant') {
      keepFrom = i;
      break;
    }
  }
  const scale = window ?? Infinity;
  const plan =
    reason === 'overflow'
      ? planPrune(history, keepFrom, 0, 1)
      : planPrune(history, keepFrom, Math.min(PRUNE_PROTECT, scale * 0.25), Math.min(PRUNE_MINIMUM, scale * 0.1));
  if (!plan) return 0;
  const after = Math.max(0, before - plan.freed);
  session.emit({ type: 'history_compacted', data: { turnId, keptFrom: 0, pruned: plan.indices, tokensBefore: Math.round(before), tokensAfter: Math.round(after) } });
  return plan.freed;
}

const REQUEST_HEAD = '\n\nThe request being worked on, as the person wrote it:\n';

/**
 * Inside a turn the person's request is summarised too, so it goes on verbatim after the summary
 * (the model's north star); a later compaction in the same turn carries it over from the summary before.
 */
function requestOf(history: readonly Message[], cut: number): string {
  const start = turnStartOf(history);
  const asked = history[start];
  if (asked?.role === 'user') return start < cut ? REQUEST_HEAD + asked.text.slice(0, REQUEST_CHARS) : '';
  const first = history[0];
  if (first?.role !== 'user' || !first.text.startsWith(SUMMARY_PREFIX) || cut === 0) return '';
  const at = first.text.lastIndexOf(REQUEST_HEAD);
  return at < 0 ? '' : first.text.slice(at);
}

function onlySummary(history: readonly Message[], cut: number): boolean {
  const first = history[0];
  return cut === 1 && first?.role === 'user' && first.text.startsWith(SUMMARY_PREFIX);
}

/** The summary call; one that is itself too long for the window is tried on the newer half of the prefix. */
async function summarise(session: TurnHost, model: ModelProvider, prefix: Message[], signal: AbortSignal, bill: CompactOptions['bill']): Promise<{ summary?: string }> {
  let dropped = false;
  for (let attempt = 1; ; attempt++) {
    let summary = '';
    let usage: Usage | undefined;
    try {
      const stream = model.stream({
        system: SUMMARY_SYSTEM,
        messages: [...prefix, { role: 'user', text: SUMMARY_ASK }],
        tools: [],
        signal,
        callIndex: session.state.modelCalls - session.state.modelCallBase,
      });
      for await (const part of stream) {
        if (part.type === 'text') summary += part.text;
        else if (part.type === 'usage') usage = part.usage;
        else if (part.type === 'restart') summary = '';
      }
      bill(usage);
    } catch (err) {
      bill(usage); // the call was made: billed and counted, though nothing was compacted
      const newer = err instanceof ContextOverflowError && attempt < SUMMARY_ATTEMPTS && !signal.aborted ? newerHalf(prefix) : undefined;
      if (newer) {
        prefix = newer;
        dropped = true;
        continue;
      }
      if (!signal.aborted) session.emit({ type: 'notice', data: { level: 'warning', text: `could not compact the conversation: ${(err as Error).message}` } });
      return {};
    }
    if (!summary.trim()) return {};
    return { summary: dropped ? `${summary}\n\n(The oldest part of the conversation did not fit in one summary call and was left out.)` : summary };
  }
}

/** The newer half of a prefix, starting at a user or assistant message (never at tool results); undefined when too short to halve. */
function newerHalf(prefix: Message[]): Message[] | undefined {
  for (let i = Math.floor(prefix.length / 2); i < prefix.length; i++) if (prefix[i]!.role !== 'tool') return i > 0 ? prefix.slice(i) : undefined;
  return undefined;
}

function told(reason: CompactReason, model: ModelProvider, reported: number, window: number | undefined, cut: number, freed: number): string {
  const gain = freed > 0 ? ` (about ${Math.round(freed)} tokens freed)` : '';
  if (reason === 'command') return `${cut} messages were summarised (/compact).`;
  if (reason === 'overflow') return `${model.id} refused the prompt as longer than its context window; ${cut} older messages were summarised${gain} and the call is tried again.`;
  return `The last call used ${reported} of ${window} tokens of ${model.id}'s context window; ${cut} older messages were summarised to make room${gain}.`;
}
