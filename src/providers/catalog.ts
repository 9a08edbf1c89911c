import type { FerretConfig } from '../protocol/index.js';
import { BUILTIN_MODELS } from './pricing.js';
import { BUILTIN_PROVIDERS } from './registry.js';

/** A model a person can pick now (ACP's model picker, the console's model list). */
export interface ModelChoice {
  id: string;
  name: string;
  description?: string;
}

/** Where one built-in provider reads its key, and whether it is there. */
export interface Credential {
  provider: string;
  envVar: string;
  present: boolean;
}

/**
 * Every model ferret can run now: config.json's providers' models (when their key is there or
 * none is needed), and the built-in providers' known models when their key is in the environment.
 */
export function availableModels(config: FerretConfig, env: NodeJS.ProcessEnv): ModelChoice[] {
  const out: ModelChoice[] = [];
  for (const [name, entry] of Object.entries(config.providers)) {
    if (!hasKey(entry, env)) continue;
    for (const model of Object.keys(entry.models ?? {})) out.push({ id: `${name}/${model}`, name: `${model} (${name})` });
  }
  for (const [name, p] of Object.entries(BUILTIN_PROVIDERS)) {
    if (config.providers[name] || !p.keyEnv || !env[p.keyEnv]) continue;
    const table = BUILTIN_MODELS[p.type as keyof typeof BUILTIN_MODELS] ?? {};
    for (const model of Object.keys(table)) out.push({ id: `${name}/${model}`, name: `${model} (${name})` });
  }
  return out;
}

/** A configured provider can run: its key is set, or its type needs none (ollama, most local servers). */
function hasKey(entry: FerretConfig['providers'][string], env: NodeJS.ProcessEnv): boolean {
  if (entry.apiKey?.startsWith('env:')) return Boolean(env[entry.apiKey.slice(4)]);
  if (entry.apiKey) return true;
  const keyEnv = BUILTIN_PROVIDERS[entry.type]?.keyEnv;
  return keyEnv === undefined || Boolean(env[keyEnv]);
}

/** The built-in providers' key variables, for ACP's authMethods and "set X" advice. */
export function credentials(env: NodeJS.ProcessEnv): Credential[] {
  return Object.entries(BUILTIN_PROVIDERS).flatMap(([provider, p]) => (p.keyEnv ? [{ provider, envVar: p.keyEnv, present: Boolean(env[p.keyEnv]) }] : []));
}
