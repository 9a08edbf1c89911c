import { FerretError, type SessionEvent } from '../../protocol/index.js';
import type { EventChunk, LoadedSnapshot, LogMark, ReadDamage, SessionLog } from '../../store/session-store.js';
import type { Message } from '../../protocol/index.js';
import { FoldSet, type SessionFold } from '../folds.js';
import { applyEvent, emptyState, restoreState, type SessionState } from '../session-state.js';

/** Checkpoints recorded while a load folds the whole log (the same spacing a live session keeps). */
export const CHECKPOINT_EVENTS = 2048;
export const CHECKPOINT_BYTES = 1024 * 1024;
const RECENT = 4096;

/** What a load hands a Session: the folded state and where the log stands. */
export interface LoadedSession {
  state: SessionState;
  folds: FoldSet;
  /** The last events read (the tail after the snapshot): the memory window starts with them. */
  recent: SessionEvent[];
  lastSeq: number;
  checkpoint: LogMark;
  snapshotSeq: number;
  /**
   * The snapshot's history, still on disk: the session reads it in the background (state.history
   * is empty until then) and a turn waits for it. Undefined: state.history is complete.
   */
  history?: () => Promise<Message[]>;
}

export interface Loaded extends LoadedSession {
  damage: ReadDamage;
  /** No usable snapshot: the whole log was folded (and checkpoints recorded again). */
  rebuilt: boolean;
}

/**
 * Folds a log into a session's state, from its snapshot when that still matches the log (then
 * only the events after it are read), else from seq 1, recording checkpoints as it goes.
 */
class Folder {
  readonly state: SessionState;
  readonly folds: FoldSet;
  readonly recent: SessionEvent[] = [];
  lastSeq: number;
  cp: LogMark;
  readonly rebuilt: boolean;
  readonly snapshotSeq: number;

  /** The snapshot's history, not read yet (lazy: a stream of frames never needs it). */
  pendingHistory: LoadedSnapshot | undefined;

  constructor(
    private readonly log: SessionLog,
    defs: readonly SessionFold[],
    snap: LoadedSnapshot | undefined,
  ) {
    const state = snap && FoldSet.covers(defs, snap.folds) ? restoreState(snap.state) : undefined;
    let folds: FoldSet | undefined;
    if (snap && state) {
      try {
        folds = new FoldSet(defs, snap.folds);
      } catch {
        folds = undefined; // a fold state this version cannot read: fold again from seq 1
      }
    }
    if (snap && state && folds) {
      this.state = state;
      this.pendingHistory = snap.itemCount > 0 ? snap : undefined;
      this.folds = folds;
      this.lastSeq = snap.seq;
      this.cp = log.checkpointAtOrBefore(snap.seq) ?? { seq: 0, at: 0 };
      this.rebuilt = false;
      this.snapshotSeq = snap.seq;
    } else {
      log.resetCheckpoints();
      this.state = emptyState();
      this.folds = new FoldSet(defs);
      this.lastSeq = 0;
      this.cp = { seq: 0, at: 0 };
      this.rebuilt = true;
      this.snapshotSeq = 0;
    }
  }

  /** Whether folding this chunk changes the history (then the snapshot's must be read first). */
  static touchesHistory(chunk: EventChunk): boolean {
    return chunk.events.some((e) => e.type === 'message' || e.type === 'history_compacted');
  }

  /** Puts the snapshot's history under what the log's tail added (only done before the tail touches it). */
  takeHistory(history: Message[]): void {
    this.state.history = history.concat(this.state.history);
    this.pendingHistory = undefined;
  }

  feed(chunk: EventChunk): void {
    for (const e of chunk.events) {
      if (this.lastSeq === 0 && e.type !== 'session_created') {
        throw new FerretError('storage', `session ${e.sessionId}: its log does not start with session_created`);
      }
      applyEvent(this.state, e);
      this.folds.apply(e);
      this.lastSeq = e.seq;
      this.recent.push(e);
    }
    if (this.recent.length > 2 * RECENT) this.recent.splice(0, this.recent.length - RECENT);
    // A chunk's end is a mark only when its last event is the last one folded (not an unterminated tail).
    const end = chunk.end;
    if (end.seq === this.lastSeq && (end.seq - this.cp.seq >= CHECKPOINT_EVENTS || end.at - this.cp.at >= CHECKPOINT_BYTES)) {
      this.cp = end;
      this.log.checkpoint({ ...end, folds: this.folds.save() });
    }
  }

  finish(damage: ReadDamage, id: string): Loaded {
    if (this.lastSeq === 0) throw new FerretError('storage', `session ${id}: its log does not start with session_created`);
    this.log.repairTail(damage);
    const pending = this.pendingHistory;
    return {
      state: this.state,
      folds: this.folds,
      recent: this.recent.slice(-RECENT),
      lastSeq: this.lastSeq,
      checkpoint: this.cp,
      snapshotSeq: this.snapshotSeq,
      damage,
      rebuilt: this.rebuilt,
      ...(pending ? { history: () => pending.readItems() as Promise<Message[]> } : {}),
    };
  }
}

/** Loads a session's state from its (locked) log in chunks, each awaited. */
export async function loadSession(id: string, log: SessionLog, defs: readonly SessionFold[]): Promise<Loaded> {
  const snap = await log.loadSnapshot();
  const f = new Folder(log, defs, snap);
  const from = f.rebuilt || !snap ? { seq: 0, at: 0 } : { seq: snap.seq, at: snap.at };
  const reader = log.read(from.seq, { from, validate: true });
  for await (const chunk of reader) {
    if (f.pendingHistory && Folder.touchesHistory(chunk)) f.takeHistory((await f.pendingHistory.readItems()) as Message[]);
    f.feed(chunk);
  }
  return f.finish(reader.damage, id);
}
