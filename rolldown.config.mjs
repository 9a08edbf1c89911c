// The shipped CLI is one bundle (plus lazy chunks): an editor spawns `chimera` for every session,
// and resolving and compiling ~400 small ESM files (zod alone is ~150) was most of the start-up.
// tsc still type-checks everything (`npm run typecheck`); rolldown only strips types and bundles.
// CommonJS, not ESM: a CommonJS chunk can be compiled with V8's cached code (src/cli/code-cache.ts),
// an ES module cannot on Node 20. dist/cli/package.json (written by scripts/build-cli.mjs) says so.
// The entry `main` is the bin (src/cli/boot.ts); it loads `program` through the cache.
import { defineConfig } from 'rolldown';
import pkg from './package.json' with { type: 'json' };

// Bundled: what start-up needs. External: what loads lazily anyway, and packages that locate
// files next to their own module (web-tree-sitter's .wasm) and must stay in node_modules.
const BUNDLED = new Set(['zod', 'commander', 'pino']);
const external = Object.keys(pkg.dependencies).filter((d) => !BUNDLED.has(d));

export default defineConfig({
  input: { main: 'src/cli/boot.ts', program: 'src/cli/program.ts' },
  platform: 'node',
  logLevel: 'warn',
  external: (id) => id.startsWith('node:') || external.some((d) => id === d || id.startsWith(`${d}/`)),
  output: {
    dir: 'dist/cli',
    format: 'cjs',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    // No JSDoc or other comments (licences stay): less to read at start-up, and no `import(` in a
    // comment keeps a chunk from V8's cached code (src/cli/code-cache.ts).
    comments: { legal: true, annotation: true, jsdoc: false },
  },
});
