// Bundles the extension: src/extension.ts → dist/extension.cjs (the extension host require()s one
// CommonJS file; the ACP SDK is ESM-only, so it is bundled in) and src/webview/main.ts →
// dist/webview.js (an IIFE the chat view loads). rolldown only strips types: `npm run typecheck`
// checks them. The repository's root build runs this too, with the root's rolldown.
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  cwd: root,
  input: 'src/extension.ts',
  platform: 'node',
  external: ['vscode'],
  logLevel: 'warn',
  output: { file: 'dist/extension.cjs', format: 'cjs', sourcemap: true },
});

await build({
  cwd: root,
  input: 'src/webview/main.ts',
  platform: 'browser',
  logLevel: 'warn',
  output: { file: 'dist/webview.js', format: 'iife', sourcemap: true },
});
