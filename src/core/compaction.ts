import type { ModelProvider } from '../providers/provider.js';
import { SUMMARY_PREFIX } from './session-state.js';
import type { Message, Usage } from '../protocol/index.js';
import type { TurnHost } from './turn-host.js';

/** Compact when the last call's prompt and reply fill this much of the context window. */
export const COMPACT_AT = 0.8;

const SUMMARY_SYSTEM =
  'You compact a coding session. Summarise the conversation so far for the agent that continues it: ' +
  "the user's goals, decisions made, files read and changed (with paths), commands run and their " +
  'outcomes, and what is left to do. Be specific and brief. Do not call tools.';

/** Where the kept tail starts: the current turn's user message, so no tool result loses its call. */
function keptFrom(history: Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.role === 'user') return i;
  return 0;
}

/**
 * When the conversation nears the model's context window, older turns are summarised by the
 * model itself and replaced by that summary, instead of letting the provider fail the turn.
 * Returns the summary call's usage (to be billed), or undefined when no summary call was made.
 */
export async function compactIfNeeded(session: TurnHost, model: ModelProvider, turnId: string, signal: AbortSignal, force = false): Promise<Usage | undefined> {
  const window = model.contextWindow;
  const used = session.state.lastCallTokens;
  if (!force && (!window || used < window * COMPACT_AT)) return undefined;
  const history = session.state.history;
  // Forced (/compact, between turns): everything so far becomes the summary.
  const cut = force ? history.length : keptFrom(history);
  // Nothing older than the current turn but (at most) an earlier summary: summarising it again frees nothing.
  if (cut === 0 || (cut === 1 && history[0]?.role === 'user' && history[0].text.startsWith(SUMMARY_PREFIX))) return undefined;
  let summary = '';
  let usage: Usage = { input: 0, output: 0, cache: 0, reasoning: 0 };
  try {
    const stream = model.stream({
      system: SUMMARY_SYSTEM,
      messages: [...history.slice(0, cut), { role: 'user', text: 'Summarise the conversation so far as instructed.' }],
      tools: [],
      signal,
      callIndex: session.state.modelCalls - session.state.modelCallBase,
    });
    for await (const part of stream) {
      if (part.type === 'text') summary += part.text;
      else if (part.type === 'usage') usage = part.usage;
    }
  } catch (err) {
    if (!signal.aborted) {
      session.emit({ type: 'notice', data: { level: 'warning', text: `could not compact the conversation: ${(err as Error).message}` } });
    }
    return usage; // the call was made: billed and counted, though nothing was compacted
  }
  if (!summary.trim()) return usage;
  session.emit({ type: 'history_compacted', data: { turnId, summary, keptFrom: cut } });
  session.emit({
    type: 'notice',
    data: {
      level: 'info',
      text: force
        ? `${cut} messages were summarised (/compact).`
        : `The conversation reached ${used} of ${window} tokens of ${model.id}'s context window; ${cut} older messages were summarised to make room.`,
    },
  });
  return usage;
}
