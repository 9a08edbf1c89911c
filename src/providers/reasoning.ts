import type { ProviderMetadata } from 'ai';
import type { ReasoningEffort, ReasoningPart } from '../protocol/index.js';
import type { ProviderType } from './provider-types.js';

// Which models take a reasoning effort, and what each family is sent for it: the one rule.
// A model outside it keeps the session's setting (a switch back finds it) but is sent nothing.

/** The families whose reasoning ferret requests, keeps and hands back (the key of their provider metadata). */
export type ReasoningFamily = 'openai' | 'anthropic';

/** OpenAI reasoning models: the gpt-5 line (not its chat variants), the o-series, codex. */
const OPENAI_REASONING = /^(gpt-[5-9](?!(?:\.\d+)?-chat)|o[1-9](?:-|$)|codex)|-codex/;
/** Claude models with extended thinking: 3.7 Sonnet, and every Claude from the 4 line on. */
const CLAUDE_THINKING = /claude-(3-7-|(sonnet|opus|haiku)-([4-9]|\d\d)|[4-9]-)/;

/** The family whose reasoning `model` of a provider of `type` takes, or undefined when it takes none. */
export function reasoningFamily(type: ProviderType, model: string): ReasoningFamily | undefined {
  const id = model.toLowerCase();
  if (type === 'openai') return OPENAI_REASONING.test(id) ? 'openai' : undefined;
  if (type === 'anthropic') return CLAUDE_THINKING.test(id) ? 'anthropic' : undefined;
  return undefined;
}

/**
 * Anthropic's thinking budget per effort, in tokens (1,024 is the API's least). The SDK raises
 * max_tokens by the budget, within the model's own output limit, so the answer keeps room.
 */
export const THINKING_BUDGET: Record<ReasoningEffort, number> = { minimal: 1024, low: 4096, medium: 10_000, high: 20_000 };

/** OpenAI models that refuse `minimal` (the codex line, and gpt-5.1 on, which have `none` instead): sent `low`. */
const NO_MINIMAL = /codex|^gpt-(5\.[1-9]|[6-9])/;

/**
 * The AI SDK providerOptions that ask `family` for reasoning at `effort` (none: a call such as a
 * summary that sets no effort; OpenAI still keeps nothing stored, so the items handed back resolve).
 */
export function reasoningOptions(family: ReasoningFamily, effort: ReasoningEffort | undefined, model = ''): ProviderMetadata | undefined {
  if (family === 'openai') {
    if (effort === 'minimal' && NO_MINIMAL.test(model.toLowerCase())) effort = 'low';
    // store:false keeps nothing at OpenAI: the reasoning comes back encrypted, and ferret hands it
    // back on the next call, so the model goes on from its own reasoning between tool calls.
    return {
      openai: {
        ...(effort ? { reasoningEffort: effort } : {}),
        reasoningSummary: 'auto',
        include: ['reasoning.encrypted_content'],
        store: false,
        forceReasoning: true,
      },
    };
  }
  return effort ? { anthropic: { thinking: { type: 'enabled', budgetTokens: THINKING_BUDGET[effort] } } } : undefined;
}

/**
 * The parts of a reply's reasoning handed back to `family`: only those it made (another family's
 * opaque data means nothing to it), and to Anthropic only while thinking is on for the call.
 */
export function reasoningFor(family: ReasoningFamily | undefined, parts: readonly ReasoningPart[] | undefined, effort?: ReasoningEffort): ReasoningPart[] {
  if (!family || !parts || (family === 'anthropic' && !effort)) return [];
  return parts.filter((p) => p.data?.[family] !== undefined);
}
