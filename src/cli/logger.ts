import type { DestinationStream, Logger, LoggerOptions } from 'pino';
import { lazyRequire } from '../util/lazy-require.js';

// Required on first use, not imported: an editor waits for `initialize` while every top-level
// import loads, and pino brings sonic-boom (node:assert) and thread-stream (node:worker_threads),
// ~7 ms, for lines that are rarely written before the first answer. Required, not import()ed: a
// chunk that calls import() cannot use V8's cached code (code-cache.ts).
const pino = lazyRequire<typeof import('pino')>('pino');
const pinoPretty = lazyRequire<typeof import('pino-pretty')>('pino-pretty');

const OPTIONS = (level: string): LoggerOptions => ({
  name: 'ferret',
  level,
  redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
});

/** pino's numeric levels: a call below the logger's level is dropped without building pino. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * Logs go to fd 2 only: stdout is the ACP channel. JSON lines, except for a person at a
 * terminal, who gets pino-pretty (loaded only then, so an editor's spawn never pays for it).
 * The pino logger itself is built when the first line at or above `level` is logged, or when
 * anything else of it is used. `given` is FERRET_LOG_LEVEL, else the command's default.
 */
export function createLogger(given: string): Logger {
  // Checked now, as pino would at its start: a bad level is a start-up error, not a crash at the first line.
  const level = given.trim().toLowerCase();
  if (!(level in LEVELS)) throw new Error(`FERRET_LOG_LEVEL: unknown level "${given}"; expected one of ${Object.keys(LEVELS).join(', ')}`);
  const build = (): Logger => {
    const { default: make, destination } = pino();
    let dest: DestinationStream = destination({ fd: 2, sync: false });
    if (process.stderr.isTTY) dest = pinoPretty()({ destination: 2, colorize: true, sync: true });
    return make(OPTIONS(level), dest);
  };
  return deferredLogger(build, level);
}

/**
 * A Logger that stands for the one `build` makes, built on first real use. `child()` defers
 * too (a connection takes its child at once; most never log before the first answer).
 */
export function deferredLogger(build: () => Logger, level: string): Logger {
  let real: Logger | undefined;
  const get = () => (real ??= build());
  const threshold = LEVELS[level] ?? LEVELS['info']!;
  return new Proxy({} as Logger, {
    get(_t, key) {
      if (typeof key === 'string' && key in LEVELS && key !== 'silent') {
        if (!real && LEVELS[key]! < threshold) return noop;
        return (...args: unknown[]) => {
          const logger = get();
          Reflect.apply(logger[key as 'info'], logger, args);
        };
      }
      switch (key) {
        case 'level':
          return real ? real.level : level;
        case 'isLevelEnabled':
          return real ? real.isLevelEnabled.bind(real) : (l: string) => (LEVELS[l] ?? Infinity) >= threshold;
        case 'flush':
          return real ? real.flush.bind(real) : (cb?: (err?: Error) => void) => cb?.();
        case 'child':
          return real
            ? real.child.bind(real)
            : (bindings: Record<string, unknown>, options?: { level?: string }) => deferredLogger(() => get().child(bindings, options), options?.level?.toLowerCase() ?? level);
      }
      const v = Reflect.get(get(), key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(real) : v;
    },
    set: (_t, key, value) => Reflect.set(get(), key, value),
    has: (_t, key) => Reflect.has(get(), key),
  });
}

const noop = () => {};
