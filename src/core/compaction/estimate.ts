import type { Message } from '../../protocol/index.js';

// Rough token counts (about four characters a token) for judging a prompt before it is sent.
// The provider's own count of the last call is exact and is preferred wherever there is one;
// these estimates only fill in what joined the history since that call.

export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * What one image costs, whatever its base64 length: about what Anthropic charges for a picture
 * at its largest size before scaling (1,600) and above OpenAI's high-detail cost of a typical one.
 */
export const IMAGE_TOKENS = 1600;

export function messageTokens(m: Message): number {
  switch (m.role) {
    case 'user':
      return tokensOf(m.text) + 4 + (m.images?.length ?? 0) * IMAGE_TOKENS;
    case 'assistant': {
      let n = tokensOf(m.text) + 4;
      for (const c of m.toolCalls) n += tokensOf(c.name) + tokensOf(JSON.stringify(c.args ?? null)) + 8;
      for (const r of m.reasoning ?? []) n += tokensOf(r.text);
      return n;
    }
    case 'tool': {
      let n = 0;
      for (const r of m.results) n += tokensOf(r.output) + 8 + (r.images?.length ?? 0) * IMAGE_TOKENS;
      return n;
    }
  }
}

export function historyTokens(history: readonly Message[], from = 0, to = history.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += messageTokens(history[i]!);
  return n;
}

/**
 * The next prompt's size: the last call's reported size (its prompt and its reply) plus what
 * joined the history after that reply (tool results, the next user message, context notes).
 * With no reported size (a new session, or just compacted) it is the whole history plus the
 * fixed part (system prompt and tool schemas).
 */
export function nextPromptTokens(history: readonly Message[], lastCallTokens: number, fixedTokens: number): number {
  if (lastCallTokens <= 0) return fixedTokens + historyTokens(history);
  let since = history.length;
  while (since > 0 && history[since - 1]!.role !== 'assistant') since--;
  return lastCallTokens + historyTokens(history, since);
}
