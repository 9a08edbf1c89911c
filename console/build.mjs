// Builds the web console (docs/console.md) into dist/console/, which the HTTP server serves at /:
//   console/src/main.tsx → assets/console.js (one minified ES module, Preact bundled in)
//   console/styles.css, favicon.svg → assets/;  console/index.html → index.html; console/sw.js → sw.js
// rolldown only strips types (`npm run typecheck` checks console/ with console/tsconfig.json).
// `npm run build` runs it; quiet unless something is wrong.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'console');
const out = join(root, 'dist/console');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
await build({
  cwd: root,
  input: join(here, 'src/main.tsx'),
  platform: 'browser',
  logLevel: 'warn',
  tsconfig: join(here, 'tsconfig.json'),
  output: { file: join(out, 'assets/console.js'), format: 'esm', minify: true, comments: false },
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
copyFileSync(join(here, 'styles.css'), join(out, 'assets/console.css'));
copyFileSync(join(here, 'favicon.svg'), join(out, 'assets/favicon.svg'));
// At the root, so its scope is the whole console (Web Push, docs/cloud-bridge.md).
copyFileSync(join(here, 'sw.js'), join(out, 'sw.js'));
