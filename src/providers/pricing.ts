import { PricingSchema, type Pricing } from '../protocol/index.js';

/** Price and context facts of one built-in model; prices are USD per million tokens. */
export interface ModelFacts {
  pricing: Pricing;
  contextWindow: number;
}

// input, output, cached input, reasoning (billed as output by both vendors).
function p(input: number, output: number, cache: number, contextWindow: number): ModelFacts {
  return { pricing: { input, output, cache, reasoning: output }, contextWindow };
}

/**
 * List prices of the built-in models (vendor price pages, late 2025). Anthropic bills cache
 * *writes* at 1.25× input; ferret counts them as plain input, so those calls are under-priced
 * by at most a quarter of their input cost. Override any entry in config.json.
 */
export const BUILTIN_MODELS: Record<'openai' | 'anthropic', Record<string, ModelFacts>> = {
  openai: {
    'gpt-5': p(1.25, 10, 0.125, 400_000),
    'gpt-5-codex': p(1.25, 10, 0.125, 400_000),
    'gpt-5.1': p(1.25, 10, 0.125, 400_000),
    'gpt-5.1-codex': p(1.25, 10, 0.125, 400_000),
    'gpt-5.1-codex-mini': p(0.25, 2, 0.025, 400_000),
    'gpt-5-mini': p(0.25, 2, 0.025, 400_000),
    'gpt-5-nano': p(0.05, 0.4, 0.005, 400_000),
    'gpt-4.1': p(2, 8, 0.5, 1_047_576),
    'gpt-4.1-mini': p(0.4, 1.6, 0.1, 1_047_576),
    'gpt-4.1-nano': p(0.1, 0.4, 0.025, 1_047_576),
    'gpt-4o': p(2.5, 10, 1.25, 128_000),
    'gpt-4o-mini': p(0.15, 0.6, 0.075, 128_000),
    o3: p(2, 8, 0.5, 200_000),
    'o4-mini': p(1.1, 4.4, 0.275, 200_000),
  },
  anthropic: {
    'claude-opus-4-5': p(5, 25, 0.5, 200_000),
    'claude-opus-4-1': p(15, 75, 1.5, 200_000),
    'claude-opus-4': p(15, 75, 1.5, 200_000),
    'claude-sonnet-4-5': p(3, 15, 0.3, 200_000),
    'claude-sonnet-4': p(3, 15, 0.3, 200_000),
    'claude-3-7-sonnet': p(3, 15, 0.3, 200_000),
    'claude-haiku-4-5': p(1, 5, 0.1, 200_000),
    'claude-3-5-haiku': p(0.8, 4, 0.08, 200_000),
  },
};

/** Exact name first, then the longest table key the name extends (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`). */
export function builtinFacts(table: Record<string, ModelFacts>, model: string): ModelFacts | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
  }
  return best ? table[best] : undefined;
}

export type PriceSource = 'config' | 'builtin' | 'free' | 'unknown';

/** The price a provider reports with, where it came from, and whether the user should hear about it. */
export interface ResolvedPrice {
  pricing: Pricing;
  source: PriceSource;
  contextWindow?: number;
}

/**
 * Config entry over built-in table: a partial config price fills its gaps from the table.
 * Local servers (ollama) are free; anything else unknown costs 0 and says so.
 */
export function resolvePrice(opts: {
  type: 'openai' | 'anthropic' | 'ollama' | 'openai-compatible';
  model: string;
  override?: Partial<Pricing> | undefined;
  contextWindow?: number | undefined;
}): ResolvedPrice {
  const table = opts.type === 'openai' || opts.type === 'anthropic' ? BUILTIN_MODELS[opts.type] : undefined;
  const facts = table ? builtinFacts(table, opts.model) : undefined;
  const contextWindow = opts.contextWindow ?? facts?.contextWindow;
  const base = { ...(contextWindow !== undefined ? { contextWindow } : {}) };
  if (opts.override) {
    return { ...base, pricing: PricingSchema.parse({ ...facts?.pricing, ...opts.override }), source: 'config' };
  }
  if (facts) return { ...base, pricing: facts.pricing, source: 'builtin' };
  if (opts.type === 'ollama') return { ...base, pricing: PricingSchema.parse({}), source: 'free' };
  return { ...base, pricing: PricingSchema.parse({}), source: 'unknown' };
}
