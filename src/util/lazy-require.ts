// A module loaded on first use, synchronously. For what start-up must not pay for (an editor
// waits for `initialize` while every top-level import loads) but a synchronous caller needs:
// node:crypto's HMAC, minimatch. An async caller uses `await import()` instead.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `get()` loads `id` the first time and returns the same module after. */
export function lazyRequire<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
