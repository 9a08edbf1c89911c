import type { FerretError, ImageInput, SessionEvent, SessionMeta } from '../protocol/index.js';

// The seam between the core and where sessions are kept: the file store (file-store.ts, the
// default) and the fleet's Redis store (redis/store.ts, `--store redis://…`, loaded only then).
// Positions (`at`) are the implementation's own (byte offsets for the file store, seqs for Redis):
// the core only hands them back. Every member is required and every read is asynchronous: the
// core asks a store what it needs to know (`unavailable`, `marksKnown`) instead of telling stores
// apart by the members they lack. Both stores write events as codec.ts lines.

/** A point in one session's log: just after event `seq`. */
export interface LogMark {
  seq: number;
  at: number;
}

/** Named fold states (core/folds.ts) as JSON, at a mark. */
export type FoldStates = Record<string, unknown>;

/** Where a reader can start without reading from seq 1, and the folds' states there. */
export interface Checkpoint extends LogMark {
  folds: FoldStates;
}

/** The session's whole folded state after event `seq`: a load starts here and folds only what came after. */
export interface StateSnapshot extends Checkpoint {
  state: unknown;
  /** A long list kept apart from `state`, one element at a time (a session's history): never one big JSON. */
  items: readonly unknown[];
}

/** A snapshot as a load finds it: the state at once, the items when asked for (read in chunks). */
export interface LoadedSnapshot extends Checkpoint {
  state: unknown;
  /** How many items there are. */
  itemCount: number;
  readItems(): Promise<unknown[]>;
}

/** One chunk of a log read: whole events in seq order, and where the chunk ended. */
export interface EventChunk {
  events: SessionEvent[];
  /** Just after the chunk's last whole line. */
  end: LogMark;
}

/** What a read found, known once it has reached the end. */
export interface ReadDamage {
  /** The last line was cut short (a crash mid-write); it was left out. */
  tornTail: boolean;
  /** Lines in the middle that did not parse or validate; left out. */
  badLines: number;
  /** The log does not end in a newline (a torn tail, or a whole last event that lost its newline). */
  openTail: boolean;
  /** Just after the last whole line, and the last event read. */
  end: LogMark;
}

/**
 * A read of one session's events after a seq, in bounded chunks (a few hundred KB each), each one
 * awaited: a long log never holds the event loop, nor sits in memory whole.
 */
export interface EventReader extends AsyncIterable<EventChunk> {
  /** Set when the iteration has ended. */
  readonly damage: ReadDamage;
}

export interface ReadOptions {
  /** Start at this mark (a snapshot's or a checkpoint's) instead of looking one up. */
  from?: LogMark;
  /** Full schema validation of every event (a load that folds state); else a shape check (a replay). */
  validate?: boolean;
  /**
   * A history replay: leave out the events up to this seq that core/history-policy.ts omits (the
   * chunks an assistant `message` repeats, the progress a command's end repeats), most of them
   * without parsing their lines (line-scanner.ts).
   */
  omitRepeatedChunksUpTo?: number;
  /** Bytes read (and handed out) at a time: smaller chunks, shorter turns of the event loop. */
  chunkBytes?: number;
}

/** The open, locked log of one session: what its single writer (the core's Session) uses. */
export interface SessionLog {
  /** Queues an event; queued events are written together once per tick. */
  append(event: SessionEvent): void;
  /** Writes what is queued now (the Redis store sends it: `written` moves when Redis has it). */
  flush(): void;
  /** Just after the last event written (flushed). */
  readonly written: LogMark;
  /**
   * Resolves once everything appended so far is written (or can never be: a failing write), with
   * the written mark. The file store writes in `flush()` and answers at once.
   */
  drain(): Promise<LogMark>;
  /** Why a turn cannot start on this log now (its store away, its lease lost); undefined: it can (always, for the file store). */
  unavailable(): FerretError | undefined;
  /** Called after each write with where the log now ends. */
  onWritten: ((end: LogMark) => void) | undefined;
  /**
   * When an event's mark is known, and so when its write is acknowledged:
   * - `flushed`: marks are byte offsets, known once `flush()` has written the event, which it does
   *   at once (the file store). After a flush, `written` behind the last event means a write is failing.
   * - `appended`: marks are seqs (`at` = seq), known as soon as the event is appended; the write is
   *   acknowledged later (`drain`, `onWritten`), so `written` trails the session (Redis). The core
   *   keeps the folds' states at a checkpoint's seq when it emits it, and records the checkpoint
   *   once the write is acknowledged.
   */
  readonly marksKnown: 'flushed' | 'appended';
  /** The latest snapshot that still matches the log (undefined: fold from seq 1). */
  loadSnapshot(): Promise<LoadedSnapshot | undefined>;
  /**
   * Keeps the session's state at a written mark, written in chunks that yield; the previous
   * snapshot stays until this one is whole. `items` must not change while it is written.
   */
  snapshot(snap: StateSnapshot): Promise<void>;
  /** Events after `afterSeq`, in chunks; what is queued is flushed first, what is written later is not read. */
  read(afterSeq: number, opts?: ReadOptions): EventReader;
  /**
   * After a load's read reached the end: makes the log safe to append to (a torn last line cut
   * off, an unterminated one ended) and takes the end the read found as where the log stands.
   */
  repairTail(damage: ReadDamage): void;
  /** Records where a reader may start, with the folds' states there (at a written mark). */
  checkpoint(cp: Checkpoint): void;
  /** The latest checkpoint at or before `seq` (undefined: start at seq 1 with fresh folds). */
  checkpointAtOrBefore(seq: number): Checkpoint | undefined;
  /** Forgets every checkpoint (a full rebuild records them again). */
  resetCheckpoints(): void;
  /** Flushes, closes what is open and releases the single-writer lock. */
  close(): void;
}

/** One page of sessions, newest first. */
export interface MetaPage {
  metas: SessionMeta[];
  /** Opaque: pass it back for the next page; absent on the last page. */
  nextCursor?: string;
}

export interface ListOptions {
  cursor?: string | undefined;
  limit?: number | undefined;
  filter?: ((m: SessionMeta) => boolean) | undefined;
}

/** What GET /health says of the store. */
export type StoreStatus =
  | { store: 'file' }
  | {
      store: 'redis';
      /** The connection: `ready`, or `down` (ferret reconnects by itself; turns are refused meanwhile). */
      redis: 'connecting' | 'ready' | 'down' | 'closed';
      /** Since when (ISO time). Where Redis is and why it is down go to the log, not to this unauthenticated answer. */
      redisSince: string;
    };

export interface SessionStore {
  /** Whether a session with this id was ever stored (a store that must ask a server answers with a promise). */
  exists(id: string): boolean | Promise<boolean>;
  /**
   * Takes the session's single-writer lock (one process writes a session) and opens its log for
   * appending (made when new); or names who holds it: the live process (its pid, file store).
   * The Redis store returns the log at once and takes its lease in the background: a busy
   * session surfaces as FerretError('session_elsewhere', { owner: instance id }) from the first read.
   */
  open(id: string, onError: (err: Error) => void, onHandoffAsked?: () => void): SessionLog | { owner: number | string };
  /**
   * Asks the process holding a session's lock to let it go when idle (file store; `onHandoffAsked`
   * is its side). Returns the withdrawal. Absent: the store has its own takeover (Redis leases).
   */
  askHandoff?(id: string): () => void;
  /** For /health. */
  status(): StoreStatus;
  /**
   * The session's own folder on this machine, where the core may keep files beside its log (a
   * cut tool result's whole text); undefined when the store keeps none here (Redis).
   */
  localFolder(id: string): string | undefined;
  /**
   * Why nothing can be written now (Redis away), if so: a new session or turn is refused with it.
   * `what` begins its message. The file store always answers undefined.
   */
  unavailable(what?: string): FerretError | undefined;
  /**
   * Keeps a session's summary in the index session/list reads (written in the background);
   * `final` (a session made, or leaving memory) also keeps it beside the session's log.
   */
  putMeta(meta: SessionMeta, final?: boolean): void;
  /** Sessions newest first (updatedAt, then id), a page at a time, from an incrementally kept index. */
  listMetas(opts: ListOptions): Promise<MetaPage>;
  /** Writes what is still queued (metas, index lines). */
  flush(): Promise<void>;
  /**
   * Deletes a stored session for good: its log, snapshot, kept files and its entry in the list.
   * The caller has let it go from memory; a session another process writes is refused
   * (`session_elsewhere`), an unknown one answers `session_not_found`.
   */
  remove(id: string): Promise<void>;
}

/**
 * What a store shared by a fleet of servers (Redis) offers besides the SessionStore seam, handed
 * to the core apart from it (createCore's `fleet` option, built by connectFleetStore): who writes each session (its lease), a
 * read-only view of a session another server writes (its log followed as it grows), and where
 * each live server is reachable, so a command can be sent to the server that runs the session.
 */
export interface FleetSeam {
  /** This server's name in the fleet. */
  readonly instanceId: string;
  /** The server that writes the session now (its lease), if any. */
  ownerOf(id: string): Promise<string | undefined>;
  /** The session as another server writes it: reads, and its new events as they come; appends are refused. */
  openFollower(id: string, owner: string): Promise<FollowerLog>;
  /** The log once its lease is ours, or who holds it. */
  openWriter(id: string, onError: (err: Error) => void): Promise<SessionLog | { owner: string }>;
  /**
   * Sends a command to the server that writes the session, and resolves with its answer
   * (`timeoutMs` undefined: a turn, however long). With `whileAlive`, a call still waiting when
   * that server goes away (its command channel loses its listener) fails at once.
   */
  call(owner: string, call: FleetCall, timeoutMs?: number, opts?: { whileAlive?: boolean }): Promise<unknown>;
  /** Serves the commands other servers send here for the sessions this one writes. */
  serve(handler: (call: FleetCall) => Promise<unknown>): void;
}

/** A command for a session, sent to the server that writes it (a follower's editor over ACP, an HTTP client). */
export type FleetCall =
  | { sessionId: string; op: 'startTurn'; text: string; origin?: string | undefined; turnId?: string | undefined; mentions?: { uri: string; name?: string | undefined }[]; images?: ImageInput[] | undefined }
  /** Answered with `{ turnId }` once the turn has started; its end is not waited for (HTTP `?wait=false`). */
  | { sessionId: string; op: 'beginTurn'; text: string; origin?: string | undefined; mentions?: { uri: string; name?: string | undefined }[]; images?: ImageInput[] | undefined }
  | { sessionId: string; op: 'close' }
  | { sessionId: string; op: 'cancel' }
  | { sessionId: string; op: 'respondPermission'; requestId: string; decision: 'allow' | 'deny' | 'always' | 'never'; by: string }
  | { sessionId: string; op: 'setMode'; mode: 'code' | 'plan' }
  | { sessionId: string; op: 'setModel'; model: string }
  | { sessionId: string; op: 'setReasoning'; effort: 'minimal' | 'low' | 'medium' | 'high' }
  | { sessionId: string; op: 'setApproval'; preset: 'suggest' | 'auto' | 'full-auto' }
  | { sessionId: string; op: 'rename'; title: string };

/** A session another server writes, as this one follows it. */
export interface FollowerLog extends SessionLog {
  /** The server that writes it (a later one after a takeover elsewhere). */
  owner: string;
  /** The writer's new events after `afterSeq`, as they are written, until the log is closed. */
  follow(afterSeq: number): AsyncGenerator<SessionEvent[]>;
  /** Where this server has read to. */
  moved(seq: number): void;
}

/** The last of `cps` (sorted by seq) at or before `seq`: where a read that must start at seq begins. */
export function checkpointAtOrBefore(cps: readonly Checkpoint[], seq: number): Checkpoint | undefined {
  let lo = 0;
  let hi = cps.length - 1;
  let best: Checkpoint | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = cps[mid]!;
    if (c.seq <= seq) {
      best = c;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
