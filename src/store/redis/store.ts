import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { FerretError, isFerretError, type SessionEvent, type SessionMeta } from '../../protocol/index.js';
import type { Checkpoint, EventReader, FleetSeam, FollowerLog, ListOptions, MetaPage, ReadOptions, SessionStore, StoreStatus } from '../session-store.js';
import { RedisAuditLog, type RedisAuditOptions } from './audit-log.js';
import { readCheckpoint } from './checkpoints.js';
import { RedisConnection, unavailable, type RedisHealth } from './connection.js';
import { RedisKeys } from './keys.js';
import { SessionLease } from './lease.js';
import { FleetTrust, INSTANCE_ID, type Dropped } from './fleet-trust.js';
import { RedisMetaIndex } from './meta-index.js';
import { CommandBus } from './command-bus.js';
import { RedisFollowerLog } from './follower-log.js';
import { defineScripts } from './scripts.js';
import { RedisSessionLog, type LogInit } from './session-log.js';
import { SessionSeal } from './session-seal.js';
import { StreamReader } from './stream-reader.js';
import { tailEvents } from './stream-tail.js';

export interface RedisStoreOptions {
  /** redis://[user:password@]HOST:PORT/DB, or rediss:// for TLS. */
  url: string;
  /**
   * The fleet's shared secret (32 bytes or more; every server of the fleet has the same one, Redis
   * never sees it): bus messages, lease records and audit lines are signed with keys derived from it.
   */
  secret: string;
  /** Told of every message, record, log entry or audit line dropped because it failed its check (the CLI logs them). */
  onDropped?: (d: Dropped) => void;
  /** Before every key (default `ferret:`): fleets, or tests, sharing one database stay apart. */
  prefix?: string;
  /** This server's name in the fleet (lease tokens, `owner` answers). Default `<hostname>:<pid>:<random>`. */
  instanceId?: string;
  /** A session's lease lives this long without renewal (renewed every third of it); default 15 s. A dead owner's sessions are free after it. */
  leaseTtlMs?: number;
  /** How long a read, a load or an open waits for Redis before it fails with a clear error (writes wait as long as it takes); default 5 s. */
  readTimeoutMs?: number;
  /** How long `connect` waits for Redis to answer; default 5 s. */
  connectTimeoutMs?: number;
  /** Longest wait between reconnect attempts; default 1 s. */
  retryMaxMs?: number;
  /** Told of every change of the connection's state: down (with the error), ready again, closed. */
  onHealth?: (h: RedisHealth) => void;
  audit?: RedisAuditOptions;
}

/**
 * The fleet's store: sessions, their metas and the audit log in one Redis (store/redis/*), behind
 * the same SessionStore seam as the file store. `--store redis://HOST:PORT/DB` selects it; the
 * single-machine default never loads it (nor ioredis).
 *
 * What the synchronous parts of the interface get: `open` returns the log at once and takes the
 * lease in the background (a load's first read waits for it and fails with `session_elsewhere`
 * naming the owner; a new session's events wait in memory); `exists` answers at once from the ids
 * this instance knows (made, opened or listed here), else asks Redis (a promise).
 */
export class RedisSessionStore implements SessionStore {
  readonly instanceId: string;
  readonly keys: RedisKeys;
  readonly audit: RedisAuditLog;
  /** Signs and checks what this server exchanges with the fleet through Redis. */
  readonly trust: FleetTrust;
  private readonly metas: RedisMetaIndex;
  private commands: CommandBus | undefined;
  /** Sessions shared with the rest of the fleet: leases, followers, where each server is. */
  readonly fleet: FleetSeam;
  private readonly leaseTtlMs: number;
  private readonly readTimeoutMs: number;
  /** Open logs, and closed ones still writing their last events or giving back their lease. */
  private readonly logs = new Map<string, Set<RedisSessionLog>>();
  private closed = false;

  private constructor(
    readonly conn: RedisConnection,
    opts: RedisStoreOptions,
  ) {
    this.instanceId = opts.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`.replace(/[^A-Za-z0-9._:@-]/g, '_');
    if (!INSTANCE_ID.test(this.instanceId)) throw new Error(`fleet instance id ${JSON.stringify(this.instanceId)}: letters, digits and . _ : @ - only (at most 200)`);
    this.trust = new FleetTrust(opts.secret, opts.onDropped ? { onDropped: opts.onDropped } : {});
    this.keys = new RedisKeys(opts.prefix);
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    this.readTimeoutMs = opts.readTimeoutMs ?? 5000;
    this.metas = new RedisMetaIndex(conn, this.keys, this.readTimeoutMs, (id) => this.seal(id));
    this.audit = new RedisAuditLog(conn, this.keys, { macKey: this.trust.auditKey, ...opts.audit });
    this.fleet = {
      instanceId: this.instanceId,
      ownerOf: (id) => this.owner(id),
      openFollower: (id, owner) => this.openFollower(id, owner),
      openWriter: (id, onError) => this.openAsync(id, onError),
      call: (owner, call, timeoutMs, opts) => this.bus().call(owner, call, timeoutMs, opts),
      serve: (handler) => this.bus().serve(handler),
    };
  }

  /** Signs and checks one session's entries and records with the fleet secret. */
  private seal(id: string): SessionSeal {
    return new SessionSeal(this.trust, id, this.keys.log(id));
  }

  private bus(): CommandBus {
    if (!this.commands) throw new FerretError('storage_unavailable', 'the fleet command channel is not open yet');
    return this.commands;
  }

  /** A session another instance writes, read from its stream and followed as it grows (no lease). */
  private async openFollower(id: string, owner: string): Promise<FollowerLog> {
    if (this.closed) throw new FerretError('storage_unavailable', `session ${id}: the store is closed`);
    this.metas.known.add(id);
    return RedisFollowerLog.open(this.conn, this.keys, this.seal(id), owner, this.readTimeoutMs);
  }

  /** Connects (loading ioredis) and waits until Redis answers; a clear storage error if it does not within connectTimeoutMs. */
  static async connect(opts: RedisStoreOptions): Promise<RedisSessionStore> {
    new FleetTrust(opts.secret); // a secret that cannot be used stops the start before any connection
    const conn = await RedisConnection.create({
      url: opts.url,
      name: 'ferret',
      ...(opts.retryMaxMs !== undefined ? { retryMaxMs: opts.retryMaxMs } : {}),
      ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
    });
    defineScripts(conn.client);
    try {
      await conn.whenReady(opts.connectTimeoutMs ?? 5000, 'starting the fleet store');
    } catch (err) {
      await conn.close(0);
      throw err;
    }
    if (opts.onHealth) conn.onHealth(opts.onHealth);
    const store = new RedisSessionStore(conn, opts);
    store.commands = await CommandBus.start(conn, store.keys, store.instanceId, store.trust);
    return store;
  }

  get health(): RedisHealth {
    return this.conn.health;
  }

  onHealth(f: (h: RedisHealth) => void): () => void {
    return this.conn.onHealth(f);
  }

  // ---- sessions ---------------------------------------------------------------------------

  /** True at once for what this instance knows (sessions made, opened or listed here); else Redis answers (existsAsync). */
  exists(id: string): boolean | Promise<boolean> {
    return this.metas.known.has(id) || this.existsAsync(id);
  }

  /** For /health: the connection's state. */
  status(): StoreStatus {
    const h = this.conn.health;
    return { store: 'redis', redis: h.state, redisSince: new Date(h.since).toISOString() };
  }

  /** Sessions live in Redis, not in a folder here (the core keeps its local files under CHIMERA_HOME). */
  localFolder(): undefined {
    return undefined;
  }

  /** While Redis is not ready, new sessions and turns are refused (their events could only wait in memory). */
  unavailable(what = 'the fleet store'): FerretError | undefined {
    if (this.closed) return new FerretError('storage_unavailable', `${what}: the store is closed`);
    return this.conn.ready ? undefined : unavailable(this.conn.health, what);
  }

  /** Whether the fleet ever stored this session (its stream or its meta is in Redis). */
  async existsAsync(id: string): Promise<boolean> {
    // Asked every time, not from `known`: another server may have deleted it since (one round trip, before a whole load).
    const c = this.conn.client;
    const [log, meta] = await this.conn.timed(this.readTimeoutMs, `looking up session ${id}`, () => Promise.all([c.exists(this.keys.log(id)), c.hexists(this.keys.metas, id)]));
    const yes = log > 0 || meta > 0;
    if (yes) this.metas.known.add(id);
    else this.metas.known.delete(id);
    return yes;
  }

  /** Deletes the session's keys and its list entry; refused while another server holds its lease. */
  async remove(id: string): Promise<void> {
    if (!(await this.existsAsync(id))) throw new FerretError('session_not_found', `no session ${id}`);
    const owner = await this.owner(id);
    if (owner !== undefined && owner !== this.instanceId) {
      throw new FerretError('session_elsewhere', `session ${id} is open on ferret instance ${owner}; close it there first`, { owner });
    }
    await this.metas.flush(); // a queued put must not bring the entry back after the delete
    const k = this.keys;
    const c = this.conn.client;
    const member = await c.hget(k.metaPos, id);
    const m = c.multi();
    m.del(k.log(id), k.lease(id), k.epoch(id), k.checkpoints(id), k.snapshot(id), k.snapshotItems(id), k.snapshotNext(id), k.cut(id));
    m.hdel(k.metas, id);
    m.hdel(k.metaPos, id);
    if (member) m.zrem(k.metaOrder, member);
    await this.conn.timed(this.readTimeoutMs, `deleting session ${id}`, () => m.exec());
    this.metas.known.delete(id);
  }

  /**
   * The instance that writes this session now (its lease), if any. A lease record no server of
   * this fleet wrote names nobody: it is reported and the session refused until it goes.
   */
  async owner(id: string): Promise<string | undefined> {
    const t = await this.conn.timed(this.readTimeoutMs, `looking up the owner of session ${id}`, () => this.conn.client.get(this.keys.lease(id)));
    if (!t) return undefined;
    const owner = this.trust.ownerOf(id, t, this.keys.lease(id));
    if (owner === undefined) throw forgedLease(id);
    return owner;
  }

  private track(log: RedisSessionLog): void {
    let set = this.logs.get(log.id);
    if (!set) this.logs.set(log.id, (set = new Set()));
    set.add(log);
  }

  private untrack(log: RedisSessionLog): void {
    const set = this.logs.get(log.id);
    set?.delete(log);
    if (set?.size === 0) this.logs.delete(log.id);
  }

  /** Takes the lease (after this instance's own earlier log of the session has given it back). */
  private async acquire(id: string, earlier: RedisSessionLog[]): Promise<LogInit> {
    await Promise.all(earlier.map((l) => l.whenClosed()));
    if (this.closed) throw new FerretError('storage_unavailable', `session ${id}: the store is closed`);
    const r = await SessionLease.acquire(this.conn, this.keys, this.trust, id, this.instanceId, this.leaseTtlMs);
    if ('forged' in r) throw forgedLease(id);
    if ('owner' in r) {
      throw new FerretError('session_elsewhere', `session ${id} is open on ferret instance ${r.owner}; one instance writes a session at a time`, { owner: r.owner });
    }
    return r;
  }

  private newLog(id: string, onError: (err: Error) => void): RedisSessionLog {
    if (this.closed) throw new FerretError('storage_unavailable', `session ${id}: the store is closed`);
    const earlier = [...(this.logs.get(id) ?? [])];
    const log = new RedisSessionLog({
      conn: this.conn,
      keys: this.keys,
      id,
      init: this.acquire(id, earlier),
      onError,
      readTimeoutMs: this.readTimeoutMs,
      onClosed: (l) => this.untrack(l),
      seal: this.seal(id),
    });
    this.track(log);
    this.metas.known.add(id);
    return log;
  }

  /**
   * The log at once; its lease is taken in the background. A load's first read waits for it (up
   * to readTimeoutMs) and fails with `session_elsewhere` naming the owner; appends wait in memory.
   */
  open(id: string, onError: (err: Error) => void): RedisSessionLog {
    return this.newLog(id, onError);
  }

  /** The log once its lease is ours, or the instance that holds it. */
  async openAsync(id: string, onError: (err: Error) => void): Promise<RedisSessionLog | { owner: string }> {
    const log = this.newLog(id, onError);
    try {
      await log.whenOpen();
      return log;
    } catch (err) {
      log.close();
      if (isFerretError(err, 'session_elsewhere') && err.data?.owner !== undefined) return { owner: err.data.owner };
      throw err;
    }
  }

  /** Any instance (not only the writer): a session's events after a seq, in chunks, straight from Redis. */
  readEvents(id: string, afterSeq: number, opts: ReadOptions = {}): EventReader {
    return new StreamReader({ conn: this.conn, key: this.keys.log(id), afterSeq, limit: Infinity, opts, readTimeoutMs: this.readTimeoutMs, what: `reading session ${id}`, seal: this.seal(id) });
  }

  /** Any instance: the session's events after `afterSeq` as they are written (XREAD BLOCK), until `signal` aborts. */
  tail(id: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<SessionEvent[]> {
    return tailEvents(this.conn, this.keys.log(id), afterSeq, this.seal(id), signal);
  }

  /** Any instance: the checkpoint at or before `seq` (fold states an SSE hub can start from). */
  checkpointAt(id: string, seq: number): Promise<Checkpoint | undefined> {
    return this.conn.timed(this.readTimeoutMs, `reading session ${id}`, () => readCheckpoint(this.conn, this.keys.checkpoints(id), this.seal(id), seq));
  }

  // ---- metas ------------------------------------------------------------------------------

  putMeta(meta: SessionMeta, _final?: boolean): void {
    this.metas.put(meta);
  }

  listMetas(opts: ListOptions): Promise<MetaPage> {
    return this.metas.page(opts);
  }

  getMeta(id: string): Promise<SessionMeta | undefined> {
    return this.metas.get(id);
  }

  /** Writes what is queued: metas, every open log's events, and the last events and lease release of closed ones. */
  async flush(): Promise<void> {
    const logs = [...this.logs.values()].flatMap((s) => [...s]);
    await Promise.all([this.metas.flush(), ...logs.map((l) => l.drain()), ...logs.map((l) => l.whenClosed())]);
  }

  /** Flushes (waiting at most `graceMs` for Redis), then closes the connections. Logs still open are closed first. */
  async close(graceMs = 5000): Promise<void> {
    if (this.closed) return;
    for (const set of this.logs.values()) for (const l of set) l.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    this.closed = true;
    await this.commands?.close();
    await this.audit.close();
    await this.conn.close();
  }
}

/** A session whose lease holds a record no server of this fleet wrote: nobody is named, nothing is sent anywhere. */
function forgedLease(id: string): FerretError {
  return new FerretError(
    'writer_unreachable',
    `session ${id}: its lease in redis was not written by a server of this fleet (it fails the fleet secret's check) and is ignored; the session is served again once the record expires or is deleted`,
  );
}
