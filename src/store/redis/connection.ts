import type { Redis, RedisOptions } from 'ioredis';
import { FerretError } from '../../protocol/index.js';

/** Where a connection stands: what a fleet-mode server reports when Redis goes away and comes back. */
export interface RedisHealth {
  state: 'connecting' | 'ready' | 'down' | 'closed';
  /** When it entered this state (ms since epoch). */
  since: number;
  /** The last error seen while not ready (ECONNREFUSED, …). */
  error?: string;
  /** The server, without a password. */
  url: string;
}

export interface ConnectionOptions {
  /** redis://[user:password@]HOST:PORT/DB (rediss:// for TLS). */
  url: string;
  /** CLIENT SETNAME, to tell connections apart in CLIENT LIST. */
  name?: string;
  /** Longest wait between reconnect attempts (default 1 s: an outage ends for us at most this long after Redis is back). */
  retryMaxMs?: number;
  connectTimeoutMs?: number;
}

/** A --store URL taken apart, and said back without its password (for logs and errors). */
export interface RedisUrl {
  host: string;
  port: number;
  db: number;
  tls: boolean;
  redacted: string;
}

/** Checks a `redis://HOST:PORT/DB` URL; an error names what is wrong with it. */
export function parseRedisUrl(url: string): RedisUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FerretError('invalid_params', `store: not a URL: ${JSON.stringify(url)} (expected redis://HOST:PORT/DB)`, { field: 'store' });
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new FerretError('invalid_params', `store: ${u.protocol}// is not a Redis URL (expected redis://HOST:PORT/DB)`, { field: 'store' });
  }
  if (!u.hostname) throw new FerretError('invalid_params', `store: ${JSON.stringify(url)} names no host`, { field: 'store' });
  const port = u.port ? Number(u.port) : 6379;
  const path = u.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : Number(path);
  if (!Number.isInteger(db) || db < 0 || !/^\d*$/.test(path)) {
    throw new FerretError('invalid_params', `store: the database in ${JSON.stringify(url)} must be a number (redis://HOST:PORT/DB)`, { field: 'store' });
  }
  const redacted = `${u.protocol}//${u.username ? `${u.username}@` : u.password ? '***@' : ''}${u.host}/${db}`;
  return { host: u.hostname, port, db, tls: u.protocol === 'rediss:', redacted };
}

let loading: Promise<typeof Redis> | undefined;
/** ioredis is loaded only in fleet mode: a single-machine server never pays for it. */
function loadClient(): Promise<typeof Redis> {
  return (loading ??= import('ioredis').then((m) => m.Redis));
}

/** The error a read or an open gets while Redis is unreachable (the writes wait for it instead). */
export function unavailable(health: RedisHealth, what: string): FerretError {
  const why = health.error ? ` (${health.error})` : '';
  return new FerretError('storage_unavailable', `${what}: redis at ${health.url} is unavailable${why}; ferret reconnects by itself`, { store: health.url });
}

/**
 * One client connection to Redis and its health. Commands issued while Redis is away wait in
 * the client's queue and are sent, in order, once it is back (`maxRetriesPerRequest: null`): a
 * write accepted during an outage is not dropped. Callers that must answer in bounded time
 * (reads, opens) use `whenReady` / `timed`.
 */
export class RedisConnection {
  private state: RedisHealth;
  private readonly listeners = new Set<(h: RedisHealth) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly client: Redis,
    readonly url: RedisUrl,
    private readonly opts: ConnectionOptions,
  ) {
    this.state = { state: 'connecting', since: Date.now(), url: url.redacted };
    client.on('ready', () => this.set('ready'));
    client.on('error', (err: Error) => {
      // Every failed reconnect reports here; one transition to `down`, the error kept up to date.
      if (this.state.state === 'ready') this.set('down', err.message);
      else this.state.error = err.message;
    });
    client.on('close', () => {
      if (this.state.state === 'ready') this.set('down', this.state.error);
    });
    client.on('reconnecting', () => {
      if (this.state.state === 'connecting' || this.state.state === 'ready') this.set('down', this.state.error);
    });
    client.on('end', () => this.set('closed'));
  }

  /** Makes the client (it connects in the background; see whenReady). */
  static async create(opts: ConnectionOptions): Promise<RedisConnection> {
    const url = parseRedisUrl(opts.url);
    const Client = await loadClient();
    const retryMax = opts.retryMaxMs ?? 1000;
    const options: RedisOptions = {
      // Wait out an outage instead of failing queued commands: writes are idempotent (scripts.ts) and resent.
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), retryMax),
      connectTimeout: opts.connectTimeoutMs ?? 5000,
      ...(opts.name ? { connectionName: opts.name } : {}),
      // rediss://: TLS, the server's certificate checked against Node's CA list (plus
      // NODE_EXTRA_CA_CERTS) and its name. Said here, not left to ioredis's case-sensitive test of the URL.
      ...(url.tls ? { tls: { servername: url.host } } : {}),
    };
    return new RedisConnection(new Client(opts.url, options), url, opts);
  }

  /** Another connection to the same server (a blocking XREAD needs one of its own). */
  async duplicate(name: string): Promise<RedisConnection> {
    return RedisConnection.create({ ...this.opts, name });
  }

  get health(): RedisHealth {
    return { ...this.state };
  }

  get ready(): boolean {
    return this.state.state === 'ready';
  }

  /** Told of every change of state (down, back, closed); returns the unsubscribe. */
  onHealth(f: (h: RedisHealth) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private set(state: RedisHealth['state'], error?: string): void {
    if (this.state.state === 'closed') return;
    if (this.state.state === state) return;
    this.state = { state, since: Date.now(), url: this.url.redacted, ...(error !== undefined && state !== 'ready' ? { error } : {}) };
    if (state === 'ready' || state === 'closed') {
      for (const w of [...this.waiters]) w();
    }
    for (const f of this.listeners) {
      try {
        f(this.health);
      } catch {
        /* a listener's own problem */
      }
    }
  }

  /** Resolves when the connection is ready; rejects with a clear storage error after `timeoutMs` (Infinity: waits). */
  whenReady(timeoutMs: number, what = 'redis'): Promise<void> {
    if (this.state.state === 'ready') return Promise.resolve();
    if (this.state.state === 'closed') return Promise.reject(new FerretError('storage_unavailable', `${what}: the redis connection is closed`));
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.waiters.delete(done);
        if (timer) clearTimeout(timer);
        if (this.state.state === 'ready') resolve();
        else reject(new FerretError('storage_unavailable', `${what}: the redis connection is closed`));
      };
      this.waiters.add(done);
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          this.waiters.delete(done);
          reject(unavailable(this.state, what));
        }, timeoutMs);
        timer.unref();
      }
    });
  }

  /**
   * Runs a command that must answer in bounded time (a read): fails at once with a clear error
   * when Redis is down for longer than `timeoutMs`, and when a reply takes longer than that.
   */
  async timed<T>(timeoutMs: number, what: string, run: () => Promise<T>): Promise<T> {
    await this.whenReady(timeoutMs, what);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(unavailable(this.state, what)), timeoutMs);
          timer.unref();
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** QUIT after what is queued (waits at most `graceMs`), then the socket is gone. */
  async close(graceMs = 2000): Promise<void> {
    if (this.state.state === 'closed') return;
    if (this.state.state !== 'ready') {
      this.client.disconnect();
      this.set('closed');
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.client.quit().catch(() => undefined),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    this.client.disconnect();
    this.set('closed');
  }
}

/** Whether an error came from the connection (resend after reconnecting) rather than from Redis refusing a command. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ReplyError') return /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY|NOSCRIPT)\b/.test(err.message);
  return true;
}
