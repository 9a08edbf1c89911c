// The web console's files, served by the relay so a phone needs nothing but the pairing link.
// Read once at start (no URL path reaches the disk); the same page policy as ferret's own console.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export interface StaticFile {
  body: Buffer;
  type: string;
}

/** dist/console beside the running bundle (dist/cli/), or the repository's from source. */
export function defaultConsoleDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return [resolve(here, '../console'), resolve(here, '../../dist/console')].find((d) => existsSync(join(d, 'index.html')));
}

/** URL path → file: `/` is index.html, `/sw.js` the service worker, the rest under /assets/. */
export function loadStatic(dir: string | undefined): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!dir) return files;
  files.set('/', { body: readFileSync(join(dir, 'index.html')), type: TYPES['.html']! });
  // The service worker for Web Push sits at the root: its scope is the path it is served from.
  if (existsSync(join(dir, 'sw.js'))) files.set('/sw.js', { body: readFileSync(join(dir, 'sw.js')), type: TYPES['.js']! });
  const assets = join(dir, 'assets');
  if (existsSync(assets)) {
    for (const name of readdirSync(assets)) {
      const type = TYPES[extname(name)];
      if (type) files.set(`/assets/${name}`, { body: readFileSync(join(assets, name)), type });
    }
  }
  return files;
}
