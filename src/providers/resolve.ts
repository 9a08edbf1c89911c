import { FerretError } from '../protocol/index.js';
import type { ModelProvider } from './provider.js';
import { ScriptedProvider } from './scripted.js';

export const NO_MODEL = 'none';

export const HOW_TO_CONFIGURE_A_MODEL =
  'No model is configured. Start ferret with --model PROVIDER/MODEL (e.g. openai/gpt-5-codex, ' +
  'anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder) or scripted:PATH, set FERRET_MODEL, put ' +
  '"model" in $CHIMERA_HOME/ferret/config.json, or export OPENAI_API_KEY / ANTHROPIC_API_KEY.';

/** Model-id → provider. Real providers plug in here; `scripted:` is always available. */
export interface ModelResolver {
  resolve(modelId: string, cwd: string): ModelProvider;
}

export type ProviderFactory = (modelId: string, cwd: string) => ModelProvider | undefined;

export function createModelResolver(factories: ProviderFactory[] = []): ModelResolver {
  return {
    resolve(modelId, cwd) {
      // No model and no key: what the person must do is give credentials (ACP clients show their sign-in).
      if (modelId === NO_MODEL) throw new FerretError('auth_required', HOW_TO_CONFIGURE_A_MODEL);
      if (modelId.startsWith('scripted:')) return new ScriptedProvider(modelId, modelId.slice('scripted:'.length), cwd);
      for (const f of factories) {
        const p = f(modelId, cwd);
        if (p) return p;
      }
      throw new FerretError(
        'model_unavailable',
        `Unknown model "${modelId}": expected PROVIDER/MODEL with a configured provider, or scripted:PATH. ${HOW_TO_CONFIGURE_A_MODEL}`,
        { field: 'model' },
      );
    },
  };
}

/** Contract section 4: --model, else FERRET_MODEL, else config.json, else a provider whose key is set. */
export function pickDefaultModel(opts: {
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  configModel?: string | undefined;
}): string {
  if (opts.flag) return opts.flag;
  const fromEnv = opts.env['FERRET_MODEL'];
  if (fromEnv) return fromEnv;
  if (opts.configModel) return opts.configModel;
  if (opts.env['ANTHROPIC_API_KEY']) return 'anthropic/claude-sonnet-4-5';
  if (opts.env['OPENAI_API_KEY']) return 'openai/gpt-5-codex';
  return NO_MODEL;
}
