import { FerretError, type SessionEvent } from '../../protocol/index.js';
import type { Checkpoint, EventReader, FollowerLog, LoadedSnapshot, LogMark, ReadDamage, ReadOptions } from '../session-store.js';
import { CheckpointList } from './checkpoints.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import type { SessionSeal } from './session-seal.js';
import { loadSnapshot } from './snapshot.js';
import { StreamReader } from './stream-reader.js';
import { tailEvents } from './stream-tail.js';

/**
 * A session another instance writes, as this one reads it: its snapshot, its stream from any
 * seq, its checkpoints, and its new events as they are written (XREAD BLOCK). It writes nothing
 * (no lease): an append is refused naming the owner, and the core forwards commands there
 * instead. When the owner is gone, the core takes the lease with a writer log and drops this one.
 */
export class RedisFollowerLog implements FollowerLog {
  private readonly cps: CheckpointList;
  private readonly stop = new AbortController();
  private top: LogMark = { seq: 0, at: 0 };
  onWritten: ((end: LogMark) => void) | undefined;
  /** As the writer's log: marks are seqs. */
  readonly marksKnown = 'appended';

  private constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    readonly id: string,
    public owner: string,
    private readonly readTimeoutMs: number,
    /** Checks what is read (the fleet secret): the owner signed it. */
    private readonly seal: SessionSeal,
  ) {
    this.cps = new CheckpointList(conn, keys.checkpoints(id), seal);
  }

  static async open(conn: RedisConnection, keys: RedisKeys, seal: SessionSeal, owner: string, readTimeoutMs: number): Promise<RedisFollowerLog> {
    const log = new RedisFollowerLog(conn, keys, seal.sessionId, owner, readTimeoutMs, seal);
    const id = seal.sessionId;
    await conn.timed(readTimeoutMs, `reading session ${id}`, () => log.cps.load());
    return log;
  }

  append(_event: SessionEvent): void {
    throw new FerretError('session_elsewhere', `session ${this.id} is written by ferret instance ${this.owner}`, { owner: this.owner });
  }

  flush(): void {}

  /** Nothing to write: where the stream stood when last read. */
  drain(): Promise<LogMark> {
    return Promise.resolve(this.top);
  }

  get written(): LogMark {
    return this.top;
  }

  unavailable(): FerretError | undefined {
    return new FerretError('session_elsewhere', `session ${this.id} is written by ferret instance ${this.owner}`, { owner: this.owner });
  }

  loadSnapshot(): Promise<LoadedSnapshot | undefined> {
    return this.conn.timed(this.readTimeoutMs, `loading session ${this.id}`, () => loadSnapshot(this.conn, this.keys, this.seal));
  }

  snapshot(): Promise<void> {
    return Promise.resolve(); // the owner keeps the snapshots
  }

  read(afterSeq: number, opts: ReadOptions = {}): EventReader {
    return new StreamReader({ conn: this.conn, key: this.keys.log(this.id), afterSeq, limit: Infinity, opts, readTimeoutMs: this.readTimeoutMs, what: `reading session ${this.id}`, seal: this.seal });
  }

  /** A load's read found where the stream ends: the tail starts there. */
  repairTail(damage: ReadDamage): void {
    this.top = damage.end;
  }

  checkpoint(_cp: Checkpoint): void {}

  checkpointAtOrBefore(seq: number): Checkpoint | undefined {
    return this.cps.atOrBefore(seq);
  }

  resetCheckpoints(): void {}

  /** The owner's new events as it writes them, after `afterSeq`, until close. */
  follow(afterSeq: number): AsyncGenerator<SessionEvent[]> {
    return tailEvents(this.conn, this.keys.log(this.id), afterSeq, this.seal, this.stop.signal);
  }

  /** Where this instance has read to (the tail moves it). */
  moved(seq: number): void {
    this.top = { seq, at: seq };
  }

  /** The checkpoints the owner wrote since this log was opened (a resume from far back starts nearer). */
  refreshCheckpoints(): Promise<void> {
    return this.cps.load();
  }

  close(): void {
    this.stop.abort();
  }
}
