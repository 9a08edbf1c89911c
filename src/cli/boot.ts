#!/usr/bin/env node
// The `chimera` bin (dist/cli/main.js): V8 flags first, then the CLI program with the compiled
// code cached by the last run (code-cache.ts). Nothing else may load before these two steps.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { REGEXP_BACKTRACK_FLAG, WASM_BASELINE_FLAG, WASM_EAGER_FLAG } from '../util/v8-flags.js';
import { installCodeCache } from './code-cache.js';

// Every flag the process sets, before anything compiles (util/v8-flags.ts says why).
setFlagsFromString(WASM_BASELINE_FLAG);
setFlagsFromString(WASM_EAGER_FLAG);
setFlagsFromString(REGEXP_BACKTRACK_FLAG);

const here = dirname(fileURLToPath(import.meta.url));
installCodeCache(join(here, '..', '..')); // the package: dist/cli's chunks and node_modules
// A computed path: the bundler leaves the program a chunk of its own, compiled through the cache.
createRequire(import.meta.url)(join(here, 'program.js'));
