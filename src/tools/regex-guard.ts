import { setFlagsFromString } from 'node:v8';
import { REGEXP_BACKTRACK_FLAG } from '../util/v8-flags.js';

let guarded: Promise<void> | undefined;

/**
 * Every regular expression in the process (glob's picomatch patterns, grep's, rules') falls back
 * to V8's linear-time engine once it backtracks too much, so a nested quantifier such as
 * `^(a+)+$` runs in linear time. Patterns the linear engine cannot run (backreferences,
 * lookaround) are kept off the main thread by their callers. The bin sets the flag at start
 * (cli/boot.ts); setting it again here is a no-op there and covers the core run in-process.
 */
export function guardRegexps(): Promise<void> {
  return (guarded ??= Promise.resolve().then(() => setFlagsFromString(REGEXP_BACKTRACK_FLAG)));
}

/** Regular-expression syntax a glob passes through to its RegExp that is not linear-time: lookaround and backreferences. */
export const NON_LINEAR_GLOB = /\(\?|\\[1-9]|\\k</;
