import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { SandboxMode, Sessions } from '../../core/index.js';
import { buildApp, type HttpMount } from './app.js';
import { allowedHosts, isLoopbackHost } from './guard/auth.js';
import { defaultConsoleDir } from './routes/console-static.js';

export interface HttpServerOptions {
  manager: Sessions;
  logger: Logger;
  host: string;
  port: number;
  ideSchema: boolean;
  token: string | undefined;
  version: string;
  sandbox: SandboxMode;
  // The CLI passes the FERRET_SSE_* and FERRET_HTTP_* variables as these options.
  /** Heartbeat comment interval on SSE streams; default 15 s. */
  heartbeatMs?: number;
  /** Bytes an SSE reader may stay behind for stallMs (16× that drops it at once); default 1 MiB. */
  maxBufferBytes?: number;
  /** How long a reader may stay more than maxBufferBytes behind; default 5 s. */
  stallMs?: number;
  /** The `retry:` every SSE stream opens with (ms); default 1000. */
  retryMs?: number;
  /** How long a client may take to send a request's headers; default 10 s. */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request; default 30 s. */
  requestTimeoutMs?: number;
  /** Largest accepted request body; default 1 MiB. */
  bodyLimit?: number;
  /** Handlers mounted behind the same auth (the CLI mounts ACP over HTTP at /acp). */
  mounts?: HttpMount[];
  /** The built web console to serve at /; default dist/console beside the running bundle. */
  consoleDir?: string;
}

export interface HttpServer {
  url: string;
  close(): Promise<void>;
  /** Requests open now (an SSE stream or a long-poll counts until it ends): who is connected. */
  openRequests(): number;
}

/** Starts the HTTP+SSE transport on the shared sessions; refuses a non-loopback bind without a token. */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const loopback = isLoopbackHost(opts.host);
  if (!loopback && !opts.token) {
    throw new Error(
      `refusing to serve HTTP on ${opts.host} without a token: set FERRET_SERVER_TOKEN, or bind to 127.0.0.1 (--host 127.0.0.1)`,
    );
  }
  const allowed: { hosts?: Set<string> } = {};
  const consoleDir = opts.consoleDir ?? defaultConsoleDir();
  const { app } = await buildApp({
    manager: opts.manager,
    logger: opts.logger,
    version: opts.version,
    sandbox: opts.sandbox,
    ideSchema: opts.ideSchema,
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    maxBufferBytes: opts.maxBufferBytes ?? 1024 * 1024,
    stallMs: opts.stallMs ?? 5000,
    retryMs: opts.retryMs ?? 1000,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    headersTimeoutMs: opts.headersTimeoutMs ?? 10_000,
    requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
    token: opts.token,
    hosts: () => allowed.hosts,
    ...(opts.mounts ? { mounts: opts.mounts } : {}),
    consoleDir,
  });
  // Counted on the raw server, so the mounted ACP handlers' streams count too.
  let open = 0;
  app.server.on('request', (_req: unknown, res: ServerResponse) => {
    open++;
    res.once('close', () => open--);
  });
  await app.listen({ host: opts.host, port: opts.port });
  const addr = app.server.address() as AddressInfo;
  // Loopback: only our own names (DNS-rebinding guard). Non-loopback with a token: any Host.
  if (loopback) allowed.hosts = allowedHosts(opts.host, addr.port);
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  if (consoleDir) {
    // A person opens this in a browser (docs/console.md); with a token set, the page asks for it.
    // A wildcard bind is reachable on this machine's loopback address.
    const where = addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address === '::' ? '[::1]' : shown;
    const consoleUrl = `http://${where}:${addr.port}/`;
    opts.logger.info({ url: consoleUrl }, `web console at ${consoleUrl}`);
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${addr.port}`,
    close: () => (closing ??= app.close()),
    openRequests: () => open,
  };
}
