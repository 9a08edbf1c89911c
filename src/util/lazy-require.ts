// A module loaded on first use, synchronously. For what start-up must not pay for (an editor
// waits for `initialize` while every top-level import loads): node:crypto's HMAC, minimatch, diff.
// Preferred to `await import()` for CommonJS packages even where the caller is async: a bundle
// chunk that calls import() cannot be compiled from V8's cached code (cli/code-cache.ts).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `get()` loads `id` the first time and returns the same module after. */
export function lazyRequire<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
