// `chimera ferret relay --port N [--host H]`: runs the relay until a signal (docs/cloud-bridge.md).
import type { Logger } from 'pino';
import { startRelay } from '../relay/relay.js';
import { defaultConsoleDir } from '../relay/static-files.js';

export interface RelayOptions {
  host: string;
  port: number;
  store: string | undefined;
}

export async function runRelay(opts: RelayOptions, logger: Logger): Promise<void> {
  const relay = await startRelay({ host: opts.host, port: opts.port, logger, consoleDir: defaultConsoleDir(), store: opts.store });
  // A script waits for this line to learn the port (--port 0).
  logger.info({ url: relay.url }, `relay listening at ${relay.url}`);
  const stop = () => {
    void relay.close().then(() => {
      logger.flush();
      process.exit(0);
    });
    setTimeout(() => process.exit(1), 3000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
