import { errorText, FerretError, type EventDraft, type SandboxMode, type SessionMeta, type SessionSummary } from '../../protocol/index.js';
import type { SessionLog } from '../../store/session-store.js';
import type { AttachOptions, ClientAttachment } from '../api.js';
import { EventBus, type Listener, type SubscribeOptions, type Subscription } from '../bus.js';
import { FoldSet } from '../folds.js';
import type { LoadedSession } from '../sessions/session-load.js';
import { emptyState, type SessionState } from '../session-state.js';
import type { SessionDeps } from '../turn-host.js';
import { Attachments } from './attachments.js';

/** Events kept in memory per session for late subscribers (older ones are read from the log). */
const WINDOW = 4096;
/** Bytes of log per replay chunk: ~400 events, each mapped, formatted and written to a client in the same turn of the loop. */
const REPLAY_CHUNK_BYTES = 48 * 1024;
const HISTORY_CHUNK_BYTES = 256 * 1024;

/** A session as a fresh one starts: nothing loaded. */
export function freshLoad(deps: SessionDeps): LoadedSession {
  return { state: emptyState(), folds: new FoldSet(deps.folds ?? []), recent: [], lastSeq: 0, checkpoint: { seq: 0, at: 0 }, snapshotSeq: 0 };
}

/**
 * What a session is whoever writes it: its folded state, the folds, the bus its readers listen
 * on, and the clients attached. A session written here (LocalSession) and one followed from
 * another fleet server (RemoteSession) each move it their own way; a takeover hands it from the
 * one to the other, so readers and attached clients carry on.
 */
export class SessionBody {
  readonly st: SessionState;
  readonly folds: FoldSet;
  readonly bus: EventBus;
  readonly attachments: Attachments;
  /** The last event's seq. */
  seq: number;
  /** The log replays read from (the follower's, then the writer's after a takeover). */
  log: SessionLog;
  closed = false;
  /** When a client last used the session (ms since epoch): idle sessions are let go first. */
  lastActive = Date.now();
  /** Set while the snapshot's history is still being read. */
  historyReady: Promise<void> | undefined;
  loadError: unknown;
  /** How the session emits a notice (a follower cannot: its writer does). */
  emitter: ((draft: EventDraft) => void) | undefined;

  constructor(
    readonly id: string,
    readonly deps: SessionDeps,
    log: SessionLog,
    loaded: LoadedSession,
    /** The server's sandbox, which a loaded session runs under whatever it was created with. */
    sandbox?: SandboxMode,
  ) {
    this.st = loaded.state;
    this.folds = loaded.folds;
    this.seq = loaded.lastSeq;
    this.log = log;
    this.bus = new EventBus(
      // Replays hand each chunk's events to listeners in one go (a reader formats and writes them): keep chunks small.
      // A history replay leaves most lines unparsed (bigger chunks are cheap); others map every event.
      (after, opts) => this.log.read(after, { ...opts, chunkBytes: opts?.omitRepeatedChunksUpTo ? HISTORY_CHUNK_BYTES : REPLAY_CHUNK_BYTES }),
      WINDOW,
      (err) => deps.logger.warn({ err, sessionId: id }, 'event listener threw'),
      loaded.lastSeq,
    );
    this.bus.seed(loaded.recent.slice(-WINDOW));
    if (sandbox) this.st.sandbox = sandbox;
    this.attachments = new Attachments(
      deps.logger,
      (d) => this.emitter?.(d),
      () => (this.lastActive = Date.now()),
    );
    if (loaded.history) {
      // The history is read in the background; only a turn needs it (it waits in ready()).
      const read = loaded.history;
      this.historyReady = read().then(
        (h) => {
          this.st.history = h.concat(this.st.history);
          this.historyReady = undefined;
        },
        (err: unknown) => {
          this.historyReady = undefined;
          this.loadError = err;
          deps.logger.error({ err, sessionId: id }, 'reading the session snapshot history failed');
        },
      );
    }
  }

  /** Resolves when the session's whole state is in memory (a loaded session reads its history after it opens). */
  async ready(): Promise<void> {
    await this.historyReady;
    if (this.loadError) throw new FerretError('storage', `session ${this.id}: its history could not be read (${errorText(this.loadError)})`);
  }
}

/**
 * The read side every session shares: facts, events, attached clients. LocalSession and
 * RemoteSession add the commands, each its own way.
 */
export abstract class SessionBase {
  constructor(readonly body: SessionBody) {}

  get id(): string {
    return this.body.id;
  }

  /** Everything the log determines (read only: it changes by events alone). */
  get state(): Readonly<SessionState> {
    return this.body.st;
  }

  get lastSeq(): number {
    return this.body.seq;
  }

  get lastActive(): number {
    return this.body.lastActive;
  }

  set lastActive(ms: number) {
    this.body.lastActive = ms;
  }

  get isClosed(): boolean {
    return this.body.closed;
  }

  /**
   * Listens to the session's events; with afterSeq, everything after it first (from memory, or
   * read from the log in chunks: wait for `caughtUp` before relying on having seen it all).
   */
  subscribe(listener: Listener, afterSeq?: number, opts?: SubscribeOptions): Subscription {
    this.body.lastActive = Date.now();
    return this.body.bus.subscribe(listener, afterSeq, opts);
  }

  /** A registered fold's state after the last event (JSON), so a reader can start here. */
  foldState(name: string): unknown {
    return this.body.folds.saved(name);
  }

  /**
   * Where a reader that must start at `seq` can begin: the latest checkpoint at or before it and
   * the folds' states there (seq 0 and fresh states when there is none).
   */
  checkpointAtOrBefore(seq: number): { seq: number; folds: Record<string, unknown> } {
    const cp = this.body.log.checkpointAtOrBefore(seq);
    return cp ? { seq: cp.seq, folds: cp.folds } : { seq: 0, folds: new FoldSet(this.body.folds.defs).save() };
  }

  /**
   * Attaches a client: its editor seam serves its turns (and turns started elsewhere while it is
   * the newest editor attached); its MCP servers connect in the background through the one pool path.
   */
  attach(opts: AttachOptions): ClientAttachment {
    return this.body.attachments.attach(opts);
  }

  /** Resolves when the session's whole state is in memory; a turn waits for it. */
  ready(): Promise<void> {
    return this.body.ready();
  }

  abstract readonly status: 'idle' | 'running';

  meta(): SessionMeta {
    const s = this.body.st;
    return {
      sessionId: this.id,
      cwd: s.cwd,
      ...(s.title !== undefined ? { title: s.title } : {}),
      model: s.model,
      mode: s.mode,
      createdAt: new Date(s.createdAt).toISOString(),
      updatedAt: new Date(s.updatedAt).toISOString(),
      costUsd: s.costUsd,
      ...(s.additionalDirectories?.length ? { additionalDirectories: s.additionalDirectories } : {}),
    };
  }

  summary(): SessionSummary {
    return { ...this.meta(), status: this.status, live: true };
  }
}
