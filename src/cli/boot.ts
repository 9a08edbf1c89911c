#!/usr/bin/env node
// The `chimera` bin (dist/cli/main.js): V8 flags first, then the CLI program with the compiled
// code cached by the last run (code-cache.ts). Nothing else may load before these two steps.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { installCodeCache } from './code-cache.js';

// The bash classifier's shell parser is WebAssembly (tree-sitter). V8 would recompile it with its
// optimizing tier in the background after the first parse: +20-40 MB of resident code, and slower
// first parses while it does. Commands are short; the baseline compiler's code parses them faster
// than the tier-up costs, in a process that stays ~55 MB. Only the parser is WebAssembly here.
// --no-flush-bytecode: V8 drops the bytecode of functions that have not run for a while (every
// module's top level, run once at start-up), and the code cache is written a few seconds after
// start-up: without it, most of what start-up runs would be missing from the cache.
// Set before anything compiles: V8 refuses cached code compiled under other flags.
setFlagsFromString('--liftoff-only');
setFlagsFromString('--no-flush-bytecode');

const here = dirname(fileURLToPath(import.meta.url));
installCodeCache(join(here, '..', '..')); // the package: dist/cli's chunks and node_modules
// A computed path: the bundler leaves the program a chunk of its own, compiled through the cache.
createRequire(import.meta.url)(join(here, 'program.js'));
