const REAL = Symbol('lazySchema.real');

/**
 * The schema a lazySchema stands for, built now (anything else as it is). For what parses on a
 * hot path (every line of a log replay) or is composed into such a schema: each use of the proxy
 * costs a trap, and a replay's union reached a dozen of them per event. Its identity is the real
 * schema's, not the proxy's: not for schemas registered by identity (z.globalRegistry).
 */
export function built<T>(schema: T): T {
  const real = typeof schema === 'object' && schema !== null ? (schema as { [REAL]?: T })[REAL] : undefined;
  return real ?? schema;
}

// A module-level schema built the first time it is used, not when its module loads. Building
// zod schemas is slow in a fresh process (the ~200 in protocol/ took 12–20 ms of an editor's
// wait for `initialize`, before any of them is needed). The proxy stands for the schema
// everywhere, with its own identity kept: methods run with `this` = the proxy, so
// `X.optional()` wraps the proxy and a registry entry for X (z.globalRegistry) is found from
// every schema built on it.
export function lazySchema<T extends object>(build: () => T): T {
  let real: T | undefined;
  const get = (): T => (real ??= build());
  return new Proxy(Object.create(null) as T, {
    get: (_t, key, receiver) => (key === REAL ? get() : (Reflect.get(get(), key, receiver) as unknown)),
    set: (_t, key, value) => Reflect.set(get(), key, value),
    has: (_t, key) => Reflect.has(get(), key),
    defineProperty: (_t, key, desc) => Reflect.defineProperty(get(), key, desc),
    deleteProperty: (_t, key) => Reflect.deleteProperty(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    // Reported configurable: the proxy's own (empty, extensible) target may not claim a
    // non-configurable property it lacks, and nothing redefines a schema's fields through it.
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
}
