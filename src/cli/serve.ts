import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { connectFleetStore, createCore, readServerConfig, type FleetStore } from '../core/index.js';
import { AcpConnection } from '../transports/acp/connection.js';
import { LineChannel, MAX_LINE_BYTES } from '../transports/acp/line-channel.js';
import { coreOptions } from './agent-options.js';
import type { Environment } from './environment.js';
import type { ServeOptions } from './serve-options.js';
import { VERSION } from './version.js';

const SHUTDOWN_DEADLINE_MS = 5000;

/** The fleet secret, or the reason fleet mode does not start without one. */
function fleetSecret(secret: string | undefined): string {
  if (secret === undefined) {
    throw new Error(
      'fleet mode (--store) needs the secret every server of the fleet shares: set FERRET_FLEET_SECRET (or config.json `fleet.secret`) to the same 32+ characters on every server, e.g. `openssl rand -hex 32` (docs/fleet.md#trust)',
    );
  }
  return secret;
}

/** The composition root: builds the core once and starts the transports that share it. */
export async function serve(opts: ServeOptions, logger: Logger, env: Environment): Promise<void> {
  const { config } = readServerConfig(env.home);
  // The cloud bridge (--bridge, else config.json bridge.relay): a transport that needs no port.
  const relay = opts.bridge ?? config.bridge?.relay;
  if (!opts.stdio && !opts.http && relay === undefined) throw new Error('--no-stdio: needs --http or --bridge, or ferret would serve nothing');
  // Fleet mode (--store, FERRET_STORE, config.json `store`): Redis, connected before anything is served; else files.
  const storeUrl = opts.store ?? config.store;
  // A fleet needs its shared secret: without one, anything that can write to Redis could drive every server.
  const fleet: FleetStore | undefined =
    storeUrl !== undefined
      ? await connectFleetStore(storeUrl, fleetSecret(env.fleetSecret ?? config.fleet?.secret), logger, env.leaseTtlMs !== undefined ? { leaseTtlMs: env.leaseTtlMs } : {})
      : undefined;
  // coreOptions brings the folds kept in every log (stdio too): a later --http server starts SSE readers at any seq.
  const core = createCore({
    logger,
    ...coreOptions(opts, env),
    clientRequestTimeoutMs: opts.clientTimeoutMs,
    config,
    ...(fleet ? { store: fleet.store, audit: fleet.audit, fleet: fleet.fleet } : {}),
    // Last in the warm-up: the next start compiles none of what ran so far (chunks loaded later,
    // such as a real provider's, are kept a few seconds after they load).
    warmSteps: [{ name: 'compiled code', run: async () => (await import('./code-cache.js')).saveCodeCache() }],
  });
  const manager = core.manager;

  const closers: (() => Promise<void>)[] = [];
  /** An editor drives us on stdio (until its stdin closes): --idle-exit counts it as a client. */
  let stdioOpen = opts.stdio;
  let stopping: Promise<void> | undefined;
  const stop = (why: string, code = 0): Promise<void> =>
    (stopping ??= (async () => {
      logger.info({ why }, 'shutting down');
      // A tool that ignores cancellation or a client that never reads must not keep us alive.
      setTimeout(() => {
        logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutdown took too long; exiting');
        logger.flush();
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS);
      await core.close();
      // After the core: the last events and metas, then every lease given back (bounded: Redis may be away).
      await fleet?.close(2000).catch((err: unknown) => logger.error({ err }, 'closing the fleet store failed'));
      for (const close of closers) await close().catch((err: unknown) => logger.error({ err }, 'close failed'));
      logger.flush();
      process.exitCode = code;
      // Give stderr a tick to drain, then leave even if a client still holds a socket.
      setTimeout(() => process.exit(code), 50).unref();
    })());
  // A second signal means "now": the person has stopped waiting for a graceful stop.
  const onSignal = (sig: string) => (stopping ? process.exit(1) : void stop(sig));
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  if (opts.http) {
    const [{ startHttpServer }, { createAcpHttpHandler }, { createAcpPathHandler, ACP_PATH_PREFIX }] = await Promise.all([
      import('../transports/http/server.js'),
      import('../transports/acp/http-stream.js'),
      import('../transports/acp/path-http-handler.js'),
    ]);
    // ACP over streamable HTTP at /acp: the same sessions, behind the same token and Host checks.
    // /acp/{name}: the same, in the path-scoped profile acp-http-client speaks (docs/ide.md).
    const acpOpts = { manager, logger, sandbox: opts.sandbox, version: VERSION, clientTimeoutMs: core.settings.clientRequestTimeoutMs, legacyUpdates: opts.acpLegacy };
    const acp = await createAcpHttpHandler(acpOpts);
    const acpPath = createAcpPathHandler({ ...acpOpts, bodyLimit: MAX_LINE_BYTES });
    const mounts = [
      { path: '/acp', handle: (req: IncomingMessage, res: ServerResponse) => acp.handle(req, res) },
      { path: ACP_PATH_PREFIX, prefix: true, handle: (req: IncomingMessage, res: ServerResponse) => acpPath.handle(req, res) },
    ];
    const http = await startHttpServer({ manager, logger, host: opts.host, port: opts.port, ideSchema: opts.ideSchema, token: env.serverToken, version: VERSION, sandbox: opts.sandbox, mounts, ...env.http });
    closers.push(() => http.close(), () => acp.close(), () => acpPath.close());
    logger.info({ url: http.url }, 'listening');
    if (opts.idleExitMs !== undefined) {
      const idleMs = opts.idleExitMs;
      const { watchIdle } = await import('./idle-exit.js');
      const probe = { openRequests: () => http.openRequests(), stdioOpen: () => stdioOpen, turns: () => core.turnActivity };
      const unwatch = watchIdle(probe, idleMs, (e) => {
        // Stopped as a person's Stop would be, the reason in each session's log; then the usual shutdown.
        if (e.stopTurns !== undefined) logger.info({ stopped: core.stopTurns(e.stopTurns) }, 'stopping turns nobody can see');
        void stop(e.why);
      });
      closers.push(async () => unwatch());
    }
  }

  if (relay !== undefined) {
    const [{ startBridge }, { terminalQr }] = await Promise.all([import('../transports/bridge/bridge.js'), import('./qr.js')]);
    const bridge = await startBridge({ relay, home: env.home, manager, logger, version: VERSION, sandbox: opts.sandbox, ideSchema: opts.ideSchema, pushSubject: env.pushSubject });
    core.reportBridge(() => bridge.status());
    closers.push(() => bridge.close());
    // stderr, never stdout (the ACP channel): one line a script can find, then the code to scan.
    const link = bridge.status().pairingUrl ?? '';
    process.stderr.write(`ferret bridge: to pair a device, open ${link}\n${terminalQr(link)}`);
  }

  if (opts.stdio) {
    // Started at a terminal, by a person rather than an editor: say what it waits for (stderr: stdout is the protocol).
    if (process.stdin.isTTY) process.stderr.write(`ferret ${VERSION} speaks ACP (JSON-RPC) on stdin/stdout, for an editor to drive; Ctrl-C stops it.\n`);
    const channel = new LineChannel(process.stdin, process.stdout);
    closers.push(() => channel.drain());
    const conn = new AcpConnection(channel, { manager, logger, sandbox: opts.sandbox, version: VERSION, clientTimeoutMs: core.settings.clientRequestTimeoutMs, legacyUpdates: opts.acpLegacy });
    void conn.run().then(() => {
      stdioOpen = false;
      // The editor that started us is gone: a bridge beside it goes too (--no-stdio keeps a bridged daemon).
      if (!opts.http) void stop('stdin closed');
      else logger.info('stdin closed; HTTP keeps serving');
    });
  }
}
