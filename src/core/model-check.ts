import { ModelError } from '../providers/provider.js';
import type { ModelResolver } from '../providers/resolve.js';
import { FerretError } from '../protocol/index.js';

/**
 * Refuses, at once, a model that cannot run: an unknown provider or id, a malformed scripted
 * file, a provider with no key or no base URL. The error says what to set (`model_unavailable`).
 */
export function checkModel(resolver: ModelResolver, model: string, cwd: string): void {
  const provider = resolver.resolve(model, cwd);
  try {
    provider.check?.();
  } catch (err) {
    if (err instanceof ModelError) throw new FerretError(err.code ?? 'model_unavailable', err.message, { field: 'model' });
    throw err;
  }
}
