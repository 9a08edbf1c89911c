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
const BUNDLED = new Set(['zod']);
const external = Object.keys(pkg.dependencies).filter((d) => !BUNDLED.has(d));

// What an editor's spawn runs before it answers `initialize` and `session/new`: the program, the
// serve command and the ACP v1 dialect (both loaded with import()), and everything they import
// statically (the core, the store, zod). One chunk, not the dozen small ones automatic splitting
// makes of it: each file costs a resolve, two reads and a deserialise (~0.5 ms) before the answer.
// The bin's own imports stay out: they run before the code cache is installed.
const STARTUP_ROOTS = ['src/cli/program.ts', 'src/cli/serve.ts', 'src/transports/acp/v1/index.ts'];
const BIN = 'src/cli/boot.ts';

/** The static-import closure of `roots` (import() edges not followed). */
function closure(roots, info) {
  const seen = new Set();
  const todo = [...roots];
  while (todo.length) {
    const id = todo.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    todo.push(...(info(id)?.importedIds ?? []));
  }
  return seen;
}

let chunkOf;
/** 'boot' for the bin's own imports, 'startup' for the rest of what start-up runs, else null (automatic). */
function startupChunks(id, ctx) {
  if (!chunkOf) {
    const abs = (f) => new URL(f, import.meta.url).pathname;
    const info = (m) => ctx.getModuleInfo(m);
    const bin = closure([abs(BIN)], info);
    chunkOf = new Map();
    for (const m of closure(STARTUP_ROOTS.map(abs), info)) if (m !== abs(STARTUP_ROOTS[0])) chunkOf.set(m, 'startup');
    for (const m of bin) if (m !== abs(BIN)) chunkOf.set(m, 'boot');
  }
  return chunkOf.get(id) ?? null;
}

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
    codeSplitting: { groups: [{ name: startupChunks, debugName: 'start-up' }] },
  },
});
