import type { Logger } from 'pino';
import { FerretError, type FerretConfig } from '../../protocol/index.js';
import type { AuditStore } from '../../store/audit-store.js';
import type { SessionStore } from '../../store/session-store.js';
import { loadConfig } from '../config-file.js';
import type { Fleet } from './fleet.js';

// Fleet mode (`--store redis://HOST:PORT/DB`, FERRET_STORE, config.json `store`): sessions, their
// metas and the audit log in Redis. The Redis store, ioredis and the core's fleet code (following,
// takeover, the remote handle: ./fleet-sessions.ts) are imported only here, only when a store URL
// is given: the single-machine default never loads them.

/** The fleet's store and the fleet as createCore takes them, and its close (after the core's). */
export interface FleetStore {
  /** The server, without a password. */
  readonly url: string;
  readonly store: SessionStore;
  readonly audit: AuditStore;
  /** createCore's `fleet` option: who writes each session, following, takeover, commands between servers. */
  readonly fleet: Fleet;
  /** Writes what is left (waiting at most `graceMs` for Redis), gives back every lease, closes the connections. */
  close(graceMs?: number): Promise<void>;
}

export interface FleetStoreOptions {
  /** How long start-up waits for Redis to answer (default 5 s). */
  connectTimeoutMs?: number;
  /** How long a dead server's sessions stay its own before another takes them over (the CLI passes FERRET_LEASE_TTL_MS; default 15 s). */
  leaseTtlMs?: number;
}

/** CHIMERA_HOME's config.json, read once: the CLI picks the store from it and hands it to createCore. */
export function readServerConfig(home: string): { home: string; config: FerretConfig } {
  return { home, config: loadConfig(home) };
}

/**
 * Connects to Redis and waits until it answers (with `secret`, the fleet's shared secret: what
 * another server did not sign is dropped and logged, see docs/fleet.md#trust): a FerretError('storage_unavailable') naming the URL when it
 * does not within the connect timeout. Outages later are logged once each way (down, back);
 * meanwhile new sessions and turns are refused with `storage_unavailable` (wire code `storage`), and writes already accepted wait.
 */
export async function connectFleetStore(url: string, secret: string, logger: Logger, opts: FleetStoreOptions = {}): Promise<FleetStore> {
  const [{ RedisSessionStore, fleetSecretProblem }, { joinFleet }, { DropLog }] = await Promise.all([
    import('../../store/redis/index.js'),
    import('./fleet-sessions.js'),
    import('./drop-log.js'),
  ]);
  const problem = fleetSecretProblem(secret);
  if (problem) throw new FerretError('invalid_params', `fleet secret: ${problem}`, { field: 'fleet.secret' });
  const drops = new DropLog(logger);
  const store = await RedisSessionStore.connect({
    url,
    secret,
    onDropped: (d) => drops.report(d),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
    ...(opts.leaseTtlMs !== undefined ? { leaseTtlMs: opts.leaseTtlMs } : {}),
    onHealth: (h) => {
      if (h.state === 'down') logger.warn({ store: h.url, error: h.error }, 'redis is unavailable: new sessions and turns are refused until it is back (ferret reconnects by itself)');
      else if (h.state === 'ready') logger.info({ store: h.url }, 'redis is back');
    },
    audit: {
      onError: (err) => logger.error({ err }, 'audit log write to redis failed; retrying'),
      onRejected: (r) => drops.report({ what: 'audit line', why: `${r.lines} "always" line(s) not signed with this fleet secret (or replayed out of order): ignored`, where: r.file, sample: r.sample }),
    },
  });
  logger.info({ store: store.health.url, instance: store.instanceId }, 'fleet store connected');
  return {
    url: store.health.url,
    store,
    audit: store.audit,
    fleet: joinFleet(store.fleet),
    close: (graceMs) => store.close(graceMs),
  };
}
