import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodApp } from '../context.js';
import { errorBody } from '../errors.js';

// The web console (console/, built into dist/console/) served on the same origin as the API.
// Its few files are read once when the server starts and kept in memory, so no path from a URL
// ever reaches the disk; each is served with its hash as ETag and, when asked for, gzipped.

interface StaticFile {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The console's page policy: its own scripts, styles and API only; no frames, no plugins, no
 * inline script (the bundle is one file), nothing from the network.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-cache',
};

/** dist/console next to the running bundle (dist/cli/), or the repository's dist/console from source. */
export function defaultConsoleDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return [resolve(here, '../console'), resolve(here, '../../../dist/console')].find((d) => existsSync(join(d, 'index.html')));
}

/** URL path → file: `/` is index.html, everything else is under /assets/. */
export function loadConsoleFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const add = (urlPath: string, file: string) => {
    const type = TYPES[extname(file)];
    if (!type) return;
    const body = readFileSync(file);
    files.set(urlPath, {
      body,
      gzip: body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    });
  };
  add('/', join(dir, 'index.html'));
  const assets = join(dir, 'assets');
  if (existsSync(assets)) for (const name of readdirSync(assets).sort()) add(`/assets/${name}`, join(assets, name));
  return files;
}

function serve(file: StaticFile, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  void reply.headers(HEADERS).header('etag', file.etag).header('vary', 'accept-encoding');
  if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const gzip = file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  void reply.type(file.type);
  if (gzip) void reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? file.gzip : file.body);
}

/**
 * GET / and GET /assets/NAME (hidden from the OpenAPI document: they are the console, not the API).
 * Without a built console (`npm run build` not run) GET / says so.
 */
export function consoleRoutes(app: ZodApp, files: Map<string, StaticFile> | undefined): void {
  if (!files) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply.code(404).type('application/json').send(errorBody('not_found', 'the web console is not built into this server (npm run build makes dist/console)')),
    );
    return;
  }
  for (const [path, file] of files) app.get(path, { schema: { hide: true } }, async (req, reply) => serve(file, req, reply));
}
