import { probeContextWindow } from './window-probe.js';
import type { FerretConfig } from '../protocol/index.js';
import { DEFAULT_BASE_URL, type ProviderType } from './provider-types.js';
import { resolvePrice } from './pricing.js';
import { ModelError, type ModelProvider } from './provider.js';
import { reasoningFamily } from './reasoning.js';
import type { ProviderFactory } from './resolve.js';
import type { RetryPolicy } from './backoff.js';
import { SdkProvider } from './sdk-provider.js';
import { seesImages } from './images.js';

/** Providers that need no config entry: the name in the model id is the type. */
export const BUILTIN_PROVIDERS: Record<string, { type: ProviderType; keyEnv?: string }> = {
  openai: { type: 'openai', keyEnv: 'OPENAI_API_KEY' },
  anthropic: { type: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY' },
  ollama: { type: 'ollama' },
};

/** Knobs for tests; production uses the defaults. */
export interface FactoryTuning {
  retry?: Partial<RetryPolicy>;
  idleTimeoutMs?: number;
}

/** config.json's `retry` as the provider's policy (what it leaves out keeps the defaults). */
function retryFromConfig(config: FerretConfig): Partial<RetryPolicy> {
  const r = config.retry;
  return { ...(r?.attempts !== undefined ? { maxAttempts: r.attempts } : {}), ...(r?.maxWaitS !== undefined ? { maxWaitMs: r.maxWaitS * 1000 } : {}) };
}

/** FERRET_RETRY_TIME_SCALE (tests only): every retry wait times this factor, between 0 and 1. */
function timeScale(env: NodeJS.ProcessEnv): number | undefined {
  const v = Number(env['FERRET_RETRY_TIME_SCALE']);
  return env['FERRET_RETRY_TIME_SCALE'] !== undefined && v >= 0 && v <= 1 ? v : undefined;
}

interface Key {
  value?: string | undefined;
  /** where it came from, for error advice */
  hint?: string | undefined;
}

function apiKey(name: string, configured: string | undefined, keyEnv: string | undefined, env: NodeJS.ProcessEnv): Key {
  if (configured?.startsWith('env:')) {
    const v = configured.slice(4);
    return { value: env[v] || undefined, hint: `${v} (providers.${name}.apiKey in config.json)` };
  }
  if (configured) return { value: configured, hint: `providers.${name}.apiKey in config.json` };
  if (keyEnv) return { value: env[keyEnv] || undefined, hint: keyEnv };
  return {};
}

function build(modelId: string, name: string, model: string, config: FerretConfig, env: NodeJS.ProcessEnv, tuning: FactoryTuning): ModelProvider | undefined {
  const entry = config.providers[name];
  const builtin = BUILTIN_PROVIDERS[name];
  const type = entry?.type ?? builtin?.type;
  if (!type) return undefined;
  const keyEnv = builtin?.type === type ? builtin.keyEnv : type === 'openai' ? 'OPENAI_API_KEY' : type === 'anthropic' ? 'ANTHROPIC_API_KEY' : undefined;
  const key = apiKey(name, entry?.apiKey, keyEnv, env);
  const baseURL = entry?.baseURL ?? (type === 'ollama' ? env['OLLAMA_BASE_URL'] : undefined) ?? DEFAULT_BASE_URL[type];
  const modelEntry = entry?.models?.[model];
  const price = resolvePrice({ type, model, override: modelEntry?.pricing, contextWindow: modelEntry?.contextWindow });
  const needsKey = type === 'openai' || type === 'anthropic';
  return new SdkProvider({
    modelId,
    baseURL: baseURL ?? '(no baseURL)',
    keyHint: key.hint,
    cache: type === 'anthropic',
    reasoning: reasoningFamily(type, model),
    // Responses and Messages take images inside a tool result; chat completions' tool messages are text only.
    images: { see: seesImages(type, model, modelEntry?.vision), toolImages: type === 'openai' || type === 'anthropic' ? 'inline' : 'after' },
    pricing: price.pricing,
    contextWindow: price.contextWindow,
    // A local server knows the window it runs the model with; ask it when nothing else says.
    probeWindow:
      price.contextWindow === undefined && baseURL && (type === 'ollama' || type === 'openai-compatible')
        ? () => probeContextWindow(baseURL, model, key.value ? { authorization: `Bearer ${key.value}` } : {})
        : undefined,
    firstCallNotice:
      price.source === 'unknown'
        ? `${modelId}: no price is known for this model, so its cost counts as 0; set providers.${name}.models["${model}"].pricing in config.json`
        : undefined,
    retry: { ...retryFromConfig(config), ...tuning.retry },
    ...(tuning.idleTimeoutMs !== undefined ? { idleTimeoutMs: tuning.idleTimeoutMs } : {}),
    ...(timeScale(env) !== undefined ? { timeScale: timeScale(env) } : {}),
    check: () => {
      if (!baseURL) throw new ModelError(`${modelId}: provider "${name}" has no baseURL; set providers.${name}.baseURL in config.json`);
      if (needsKey && !key.value) throw new ModelError(`${modelId}: no API key; set ${key.hint ?? keyEnv}`, false, 'auth_required');
    },
    model: async () => {
      // The AI SDK loads on the first real model call, not at start-up (an editor spawns us per session).
      const { languageModel } = await import('./clients.js');
      return languageModel({ name, type, baseURL: baseURL ?? '', apiKey: key.value }, model); // check() ran first
    },
  });
}

/**
 * Model-id → real provider for every provider in config.json plus the built-ins; one instance
 * per model id, so the "no price known" notice is said once per server.
 */
export function createProviderFactories(config: FerretConfig, env: NodeJS.ProcessEnv, tuning: FactoryTuning = {}): ProviderFactory[] {
  const made = new Map<string, ModelProvider | undefined>();
  const factory: ProviderFactory = (modelId) => {
    if (made.has(modelId)) return made.get(modelId);
    const slash = modelId.indexOf('/');
    if (slash <= 0 || slash === modelId.length - 1) return undefined;
    const p = build(modelId, modelId.slice(0, slash), modelId.slice(slash + 1), config, env, tuning);
    made.set(modelId, p);
    return p;
  };
  return [factory];
}
