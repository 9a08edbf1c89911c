// The V8 flags the process sets. All of them are set first thing in the bin (cli/boot.ts): V8
// refuses cached compiled code made under other flags (cli/code-cache.ts), so a flag set later,
// on first use, would make every cache written before it useless to every process after it.

/**
 * Every regular expression in the process (glob's picomatch patterns, grep's, rules') falls back
 * to V8's linear-time engine once it backtracks too much: a nested quantifier such as `^(a+)+$`
 * runs in linear time (tools/regex-guard.ts).
 */
export const REGEXP_BACKTRACK_FLAG = '--enable-experimental-regexp-engine-on-excessive-backtracks';

/**
 * The bash classifier's shell parser is WebAssembly (tree-sitter). V8 would recompile it with its
 * optimizing tier in the background after the first parse: +20-40 MB of resident code, and slower
 * first parses while it does. Commands are short; the baseline compiler's code parses them faster
 * than the tier-up costs, in a process that stays ~55 MB. Only the parser is WebAssembly here.
 */
export const WASM_BASELINE_FLAG = '--liftoff-only';

/**
 * Compile the parser's WebAssembly whole when it loads (on V8's background threads, as the load is
 * asynchronous) instead of function by function on first call: otherwise the first command's
 * parse compiles on the event loop, 10-18 ms on a quiet machine and over 100 ms on a loaded one,
 * a stall every HTTP client of the server waits through. Costs ~1 MB, no load time (measured).
 */
export const WASM_EAGER_FLAG = '--no-wasm-lazy-compilation';
