import { lazyRequire } from '../util/lazy-require.js';


let guarded: Promise<void> | undefined;

/**
 * Every regular expression in the process (glob's picomatch patterns, grep's, rules') falls back
 * to V8's linear-time engine once it backtracks too much, so a nested quantifier such as
 * `^(a+)+$` runs in linear time. Patterns the linear engine cannot run (backreferences,
 * lookaround) are kept off the main thread by their callers. Cheap (a flag), set once on first
 * use (node:v8 is loaded then, not at start-up).
 */
export function guardRegexps(): Promise<void> {
  return (guarded ??= Promise.resolve(lazyRequire<typeof import('node:v8')>('node:v8')).then(
    (v8) => v8().setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks'),
    () => undefined, // an engine without the flag: callers' own limits still hold
  ));
}

/** Regular-expression syntax a glob passes through to its RegExp that is not linear-time: lookaround and backreferences. */
export const NON_LINEAR_GLOB = /\(\?|\\[1-9]|\\k</;
