// Bundles the CLI (rolldown.config.mjs: src/cli/boot.ts and program.ts → dist/cli/) and marks the bin executable.
// rolldown's API, not its CLI: the CLI lists every chunk and map with its size on each build,
// which only buries the one line that matters when a build fails or warns.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'rolldown';
import config from '../rolldown.config.mjs';

// Chunk names carry content hashes: without this, every build leaves the last one's chunks behind.
rmSync(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });
try {
  await build(config);
} catch (err) {
  // The message is rolldown's own report (every error with its source excerpt); no stack.
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
// The chunks are CommonJS in an ESM package: this file makes Node load dist/cli/*.js as such.
mkdirSync(new URL('../dist/cli', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/cli/package.json', import.meta.url), '{ "type": "commonjs" }\n');
await import('./make-executable.mjs');
