// Kept apart from clients.ts so start-up can know the provider types without loading the AI SDK.
export type ProviderType = 'openai' | 'anthropic' | 'ollama' | 'openai-compatible';

/** Where each built-in type talks to unless config says otherwise. */
export const DEFAULT_BASE_URL: Record<ProviderType, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  'openai-compatible': undefined,
};
