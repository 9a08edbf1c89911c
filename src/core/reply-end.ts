import type { FinishReason } from '../providers/provider.js';

// A reply the provider ended for its own reason, not the model's: cut at the output-token limit,
// or refused. The turn ends there with a stop reason every client shows, never a silent half
// answer. Continuing a cut reply was weighed and left out: the continuation needs a made-up user
// message in the history, and a model that hit its output limit once usually hits it again; the
// person sees max_tokens and can ask for the rest (or a smaller step).

export interface ReplyEnd {
  stop: 'max_tokens' | 'refusal';
  notice: string;
}

/** How the turn ends after a reply with this finish reason, or undefined when it goes on. */
export function endOfReply(finish: FinishReason, calls: number): ReplyEnd | undefined {
  if (finish === 'refusal') return { stop: 'refusal', notice: 'the provider refused to answer (refusal); the turn ends here' };
  if (finish === 'length') {
    const dropped = calls > 0 ? `; its ${calls} tool call${calls === 1 ? ' was' : 's were'} not run` : '';
    return { stop: 'max_tokens', notice: `the reply reached the model's output-token limit and was cut short (max_tokens)${dropped}` };
  }
  return undefined;
}
