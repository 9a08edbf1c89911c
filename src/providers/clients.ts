import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

import type { ProviderType } from './provider-types.js';

export interface ClientSettings {
  /** the provider's name in the model id, e.g. "local" */
  name: string;
  type: ProviderType;
  baseURL: string;
  apiKey?: string | undefined;
}

/**
 * The SDK model for one provider type. OpenAI goes through the Responses API (the only one the
 * codex models speak); Ollama and every other server through plain chat completions.
 */
export function languageModel(s: ClientSettings, model: string): LanguageModel {
  switch (s.type) {
    case 'openai':
      return createOpenAI({ baseURL: s.baseURL, apiKey: s.apiKey ?? '', name: s.name }).responses(model);
    case 'anthropic':
      return createAnthropic({ baseURL: s.baseURL, apiKey: s.apiKey ?? '', name: s.name }).messages(model);
    case 'ollama':
    case 'openai-compatible':
      return createOpenAICompatible({
        name: s.name,
        baseURL: s.baseURL,
        ...(s.apiKey ? { apiKey: s.apiKey } : {}),
        includeUsage: true, // stream_options.include_usage: token counts in the last chunk
      }).chatModel(model);
  }
}
