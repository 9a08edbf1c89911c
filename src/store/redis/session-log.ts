import { FerretError, type SessionEvent } from '../../protocol/index.js';
import { encodeEvent } from '../codec.js';
import type { Checkpoint, EventChunk, EventReader, LoadedSnapshot, LogMark, ReadDamage, ReadOptions, SessionLog, StateSnapshot } from '../session-store.js';
import { CheckpointList } from './checkpoints.js';
import { isConnectionError, unavailable, type RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import type { SessionLease } from './lease.js';
import { runScript } from './scripts.js';
import { MAC_CHARS, type SessionSeal } from './session-seal.js';
import { loadSnapshot, writeSnapshot } from './snapshot.js';
import { StreamReader, type UnwrittenSource } from './stream-reader.js';

/** A burst in one tick is sent every this many bytes instead of all at its end (as the file store). */
const FLUSH_BYTES = 1024 * 1024;
/** At most this much goes into one append script (a bigger batch is sent in several, one after another). */
const BATCH_BYTES = 512 * 1024;
const BATCH_EVENTS = 2048;
/** After a write Redis refused (not a lost connection: OOM, …), the next try waits this long, doubling up to RETRY_MAX_MS. */
const RETRY_MS = 100;
const RETRY_MAX_MS = 5000;

/** What opening found: the lease, where the stream ends, the checkpoints (loaded into `cps`). */
export interface LogInit {
  lease: SessionLease;
  top: number;
}

export interface RedisLogOptions {
  conn: RedisConnection;
  keys: RedisKeys;
  id: string;
  /** Resolves when the lease is ours; rejects with a FerretError (session_elsewhere naming the owner, or storage_unavailable). */
  init: Promise<LogInit>;
  onError: (err: Error) => void;
  /** How long a read or a load waits for Redis before it fails with a clear error. */
  readTimeoutMs: number;
  /** Told when the log is closed and everything it held is written (or given up), its lease released. */
  onClosed?: (log: RedisSessionLog) => void;
  /** Signs what this log writes and checks what it reads (the fleet secret). */
  seal: SessionSeal;
}

type Dead = { why: 'refused' | 'lost' | 'broken'; err: FerretError };

/**
 * One session's log in a Redis stream whose entry ids are its seqs (`<seq>-0`): an SSE
 * Last-Event-ID is a stream position, and a read from any seq is an XRANGE from it. Events are
 * queued and sent once per tick in one script call (a few thousand XADDs run atomically, fenced
 * by the lease); one call is in flight at a time, and whatever arrives meanwhile goes in the
 * next. While Redis is away the call waits in the client's queue and is resent when it is back;
 * the script writes only what Redis does not have yet, so nothing is lost or written twice.
 *
 * Marks: `at` is the seq (a stream has no byte offsets, and needs none: any seq is addressable).
 * `written` moves when Redis acknowledges a batch; a read started now serves what Redis does not
 * have yet from memory, so it never waits for a write.
 */
export class RedisSessionLog implements SessionLog {
  readonly id: string;
  private readonly conn: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly onError: (err: Error) => void;
  private readonly readTimeoutMs: number;
  private readonly cps: CheckpointList;
  private readonly seal: SessionSeal;
  private readonly ready: Promise<LogInit>;
  private lease: SessionLease | undefined;
  private dead: Dead | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  private end: LogMark = { seq: 0, at: 0 };
  /** The highest seq Redis holds (what opening found, then what we wrote). */
  private top = 0;
  /** Sent, not acknowledged: events inflightFirst.. */
  private inflight: string[] = [];
  private inflightFirst = 0;
  /** Queued: pending[pendingHead..], the first of them seq pendingFirst. */
  private pending: string[] = [];
  private pendingHead = 0;
  private pendingFirst = 0;
  private pendingBytes = 0;
  private scheduled = false;
  private retryMs = RETRY_MS;
  private failing = false;
  private drainWaiters: { seq: number; resolve: (m: LogMark) => void }[] = [];
  private snapshotting: Promise<void> = Promise.resolve();

  onWritten: ((end: LogMark) => void) | undefined;
  /** Marks are seqs, known at append; Redis acknowledges the write later. */
  readonly marksKnown = 'appended';

  constructor(private readonly o: RedisLogOptions) {
    this.id = o.id;
    this.conn = o.conn;
    this.keys = o.keys;
    this.onError = o.onError;
    this.readTimeoutMs = o.readTimeoutMs;
    this.seal = o.seal;
    this.cps = new CheckpointList(o.conn, o.keys.checkpoints(o.id), o.seal);
    this.ready = o.init.then(
      async (init) => {
        try {
          await this.cps.load();
        } catch (err) {
          await init.lease.release();
          throw err;
        }
        this.top = init.top;
        this.end = { seq: init.top, at: init.top };
        this.lease = init.lease;
        init.lease.onLost = (owner) => this.die('lost', lostError(this.id, owner));
        this.flush();
        return init;
      },
      (err: unknown) => {
        const e = err instanceof FerretError ? err : new FerretError('storage', `session ${this.id}: ${(err as Error).message}`);
        this.die('refused', e);
        throw e;
      },
    );
    // A refusal is reported through reads and loads; an unobserved one must not crash the process.
    this.ready.catch(() => undefined);
  }

  /** Resolves when the log is usable (the lease ours), or throws why not, within the read timeout. */
  private async opened(what: string): Promise<LogInit> {
    if (this.dead?.why === 'refused') throw this.dead.err;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.ready,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(this.dead?.err ?? unavailable(this.conn.health, what)), this.readTimeoutMs);
          timer.unref();
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves once the lease is ours (within the read timeout); throws `session_elsewhere` naming the owner, or a storage error. */
  async whenOpen(): Promise<void> {
    await this.opened(`opening session ${this.id}`);
  }

  /** The lease this log holds (once opened). */
  get leaseHeld(): SessionLease | undefined {
    return this.lease;
  }

  /** Why this log no longer writes (refused: another owner at open; lost: taken since; broken: the stream disagrees), if it does not. */
  get failure(): FerretError | undefined {
    return this.dead?.err;
  }

  // ---- writing ----------------------------------------------------------------------------

  append(event: SessionEvent): void {
    if (this.closed || this.dead) return;
    const line = encodeEvent(event);
    if (this.pending.length === this.pendingHead) {
      this.pending = [];
      this.pendingHead = 0;
      this.pendingFirst = event.seq;
    } else if (event.seq !== this.pendingFirst + this.pending.length - this.pendingHead) {
      this.onError(new Error(`session ${this.id}: event seq ${event.seq} does not follow ${this.pendingFirst + this.pending.length - this.pendingHead - 1}`));
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= FLUSH_BYTES) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Sends what is queued (unless a batch is in flight: it goes as soon as that one is acknowledged). */
  flush(): void {
    this.scheduled = false;
    if (this.inflight.length || this.pending.length === this.pendingHead || !this.lease || this.dead) return;
    this.send();
  }

  private queuedSeq(): number {
    const n = this.pending.length - this.pendingHead;
    if (n > 0) return this.pendingFirst + n - 1;
    if (this.inflight.length) return this.inflightFirst + this.inflight.length - 1;
    return this.end.seq;
  }

  private send(): void {
    const lease = this.lease!;
    let n = 0;
    let bytes = 0;
    const avail = this.pending.length - this.pendingHead;
    while (n < avail && n < BATCH_EVENTS && (n === 0 || bytes < BATCH_BYTES)) bytes += this.pending[this.pendingHead + n++]!.length;
    this.inflight = this.pending.slice(this.pendingHead, this.pendingHead + n);
    this.inflightFirst = this.pendingFirst;
    this.pendingHead += n;
    this.pendingFirst += n;
    this.pendingBytes -= bytes;
    if (this.pendingHead > 4096 && this.pendingHead * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    this.write(lease).catch((err: unknown) => this.onError(err as Error));
  }

  /** Sends the batch in flight until Redis takes it (or refuses it for good), then the next. */
  private async write(lease: SessionLease): Promise<void> {
    const f = lease.fence;
    const lines = this.inflight.join('\n');
    const macs = this.inflight.map((line, i) => this.seal.mac(this.inflightFirst + i, line)).join('');
    for (;;) {
      let r: [string, string];
      try {
        r = (await runScript(this.conn.client, 'append', [this.keys.log(this.id), f.keys[0], f.keys[1]], [...f.args, this.inflightFirst, this.inflight.length, lines, macs, MAC_CHARS])) as [string, string];
      } catch (err) {
        if (this.dead) return;
        if (this.conn.health.state === 'closed') {
          return this.die('broken', new FerretError('storage', `session ${this.id}: the store closed with ${this.queuedSeq() - this.end.seq} events not written`));
        }
        // Redis refused the command (OOM, …) or the connection failed it: say so once, try again.
        if (!this.failing && !isConnectionError(err)) this.onError(err as Error);
        this.failing = true;
        await this.conn.whenReady(Infinity).catch(() => undefined);
        await sleep(this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
        continue;
      }
      this.failing = false;
      this.retryMs = RETRY_MS;
      const [status, detail] = [String(r[0]), String(r[1])];
      if (status === 'OK') break;
      if (status === 'LOST') {
        const owner = detail ? lease.ownerIn(detail) : '';
        lease.markLost(owner);
        return this.die('lost', lostError(this.id, owner));
      }
      const first = this.inflightFirst;
      return this.die(
        'broken',
        new FerretError(
          'storage',
          status === 'GAP'
            ? `session ${this.id}: redis holds its events only up to seq ${detail}, but ${first - 1} were written (redis lost data: run it with appendonly yes); events from ${first} are not written`
            : `session ${this.id}: redis already holds other events at seq ${first}..${detail}; events from ${first} are not written`,
        ),
      );
    }
    const last = this.inflightFirst + this.inflight.length - 1;
    this.inflight = [];
    this.top = Math.max(this.top, last);
    this.end = { seq: last, at: last };
    this.onWritten?.(this.end);
    this.settleDrains();
    if (this.pending.length > this.pendingHead && !this.dead) this.send();
    else this.maybeFinishClose();
  }

  private die(why: Dead['why'], err: FerretError): void {
    if (this.dead) return;
    this.dead = { why, err };
    // A busy session at open is told through the load that waits for it; anything else through onError too.
    if (why !== 'refused' || err.code !== 'session_elsewhere') this.onError(err);
    this.inflight = [];
    this.pending = [];
    this.pendingHead = 0;
    this.pendingBytes = 0;
    this.settleDrains(true);
    this.maybeFinishClose();
  }

  private settleDrains(all = false): void {
    if (this.drainWaiters.length === 0) return;
    const keep: typeof this.drainWaiters = [];
    for (const w of this.drainWaiters) {
      if (all || this.end.seq >= w.seq) w.resolve(this.end);
      else keep.push(w);
    }
    this.drainWaiters = keep;
  }

  /** Resolves once everything appended so far is in Redis (or can never be: a lost lease), with the written mark. */
  drain(): Promise<LogMark> {
    this.flush();
    const seq = this.queuedSeq();
    if (this.end.seq >= seq || this.dead) return Promise.resolve(this.end);
    return new Promise((resolve) => this.drainWaiters.push({ seq, resolve }));
  }

  get written(): LogMark {
    return this.end;
  }

  /** Why a turn cannot start now: the lease refused or lost, or Redis away (its events could only wait in memory). */
  unavailable(): FerretError | undefined {
    if (this.dead) return this.dead.err;
    return this.conn.ready ? undefined : unavailable(this.conn.health, `session ${this.id}`);
  }

  // ---- reading ----------------------------------------------------------------------------

  private readonly memory: UnwrittenSource = {
    writtenSeq: () => this.end.seq,
    unwritten: (from, limit, maxBytes) => {
      const out: string[] = [];
      let bytes = 0;
      let seq = from;
      const take = (arr: string[], start: number, firstSeq: number) => {
        for (let i = start + (seq - firstSeq); i < arr.length && seq <= limit && (out.length === 0 || bytes < maxBytes); i++, seq++) {
          const line = arr[i]!;
          out.push(line);
          bytes += line.length;
        }
      };
      if (this.inflight.length && seq >= this.inflightFirst) take(this.inflight, 0, this.inflightFirst);
      if (seq >= this.pendingFirst && (out.length === 0 || bytes < maxBytes)) take(this.pending, this.pendingHead, this.pendingFirst);
      return out;
    },
  };

  read(afterSeq: number, opts: ReadOptions = {}): EventReader {
    // What is appended after this call is not read; a log still opening reads to where opening finds its end.
    const limitNow = this.lease ? this.queuedSeq() : undefined;
    const what = `reading session ${this.id}`;
    let inner: StreamReader | undefined;
    const damage: ReadDamage = { tornTail: false, badLines: 0, openTail: false, end: { seq: afterSeq, at: afterSeq } };
    const start = async () => {
      await this.opened(what);
      const limit = limitNow ?? this.queuedSeq();
      return (inner = new StreamReader({ conn: this.conn, key: this.keys.log(this.id), afterSeq, limit, opts, readTimeoutMs: this.readTimeoutMs, memory: this.memory, what, seal: this.seal }));
    };
    return {
      get damage(): ReadDamage {
        return inner?.damage ?? damage;
      },
      async *[Symbol.asyncIterator](): AsyncIterator<EventChunk> {
        yield* await start();
      },
    };
  }

  repairTail(damage: ReadDamage): void {
    if (this.dead || !this.lease) return;
    const seq = damage.end.seq;
    if (this.top > seq) {
      // Entries after the last one the load could read (they did not parse or validate): moved aside (s:{ID}:cut), so seq+1 is next again.
      const f = this.lease.fence;
      runScript(this.conn.client, 'cut', [this.keys.log(this.id), f.keys[0], f.keys[1], this.keys.cut(this.id)], [f.args[0], f.args[1], seq]).catch((err: unknown) =>
        this.onError(err as Error),
      );
      this.cps.cutAfter(seq);
      this.top = seq;
    }
    this.end = { seq, at: seq };
  }

  // ---- checkpoints and snapshots ----------------------------------------------------------

  checkpoint(cp: Checkpoint): void {
    if (this.dead || !this.lease) return;
    this.cps.add(cp);
  }

  checkpointAtOrBefore(seq: number): Checkpoint | undefined {
    return this.cps.atOrBefore(seq);
  }

  resetCheckpoints(): void {
    if (this.dead || !this.lease) return;
    this.cps.reset();
  }

  async loadSnapshot(): Promise<LoadedSnapshot | undefined> {
    await this.opened(`loading session ${this.id}`);
    return this.conn.timed(this.readTimeoutMs, `loading session ${this.id}`, () => loadSnapshot(this.conn, this.keys, this.seal));
  }

  snapshot(snap: StateSnapshot): Promise<void> {
    const write = async () => {
      if (this.closed || this.dead || !this.lease) return; // never after the lease is given back
      await writeSnapshot(this.conn, this.keys, this.seal, this.lease, snap);
    };
    this.snapshotting = this.snapshotting.then(write, write);
    return this.snapshotting;
  }

  // ---- closing ----------------------------------------------------------------------------

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    this.maybeFinishClose();
  }

  /** Once nothing is left to write: the lease goes (after the last write: one connection runs commands in the order sent). */
  private maybeFinishClose(): void {
    if (!this.closed || this.closing) return;
    if (!this.dead) {
      if (!this.lease) {
        // Still opening (Redis away since the session was made): close once it is open and written.
        void this.ready.then(
          () => this.maybeFinishClose(),
          () => this.maybeFinishClose(),
        );
        return;
      }
      if (this.inflight.length || this.pending.length > this.pendingHead) return; // write() calls again after the last batch
    }
    const release = this.lease && this.dead?.why !== 'lost' ? this.lease.release() : Promise.resolve(false);
    this.closing = release.then(
      () => this.closedSignal.resolve(),
      () => this.closedSignal.resolve(),
    );
    void this.closing.then(() => this.o.onClosed?.(this));
  }

  private readonly closedSignal = deferred();

  /** Resolves when a closed log has written everything (or given up) and released its lease. */
  whenClosed(): Promise<void> {
    return this.closed ? this.closedSignal.promise : Promise.resolve();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function lostError(id: string, owner: string): FerretError {
  return new FerretError('session_elsewhere', `session ${id} was taken over by ${owner ? `ferret instance ${owner}` : 'another ferret instance'}; this instance no longer writes it`, {
    ...(owner ? { owner } : {}),
  });
}

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    t.unref();
  });
