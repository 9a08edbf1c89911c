import type { SessionEvent } from '../../protocol/index.js';
import type { Checkpoint, LogMark } from '../../store/session-store.js';
import { CHECKPOINT_BYTES, CHECKPOINT_EVENTS } from '../sessions/session-load.js';
import { saveState } from '../session-state.js';
import type { SessionBody } from './session-body.js';

/** Logs shorter than this are folded from seq 1 on load: no snapshot. */
const SNAPSHOT_MIN_EVENTS = 2000;
/** A snapshot of the whole state every so many events (and when a session is let go). */
const SNAPSHOT_EVENTS = 20_000;

/**
 * How often a written session keeps where a reader can start: a checkpoint (the folds' states)
 * every 2,048 events or 1 MiB of log, a snapshot of the whole state every 20,000 events and
 * when it leaves memory, so neither a replay nor a load ever reads a log from seq 1.
 */
export class Persistence {
  /** The last checkpoint and snapshot marks: one more is written every so many events. */
  private cp: LogMark;
  private snapSeq: number;
  private snapping: Promise<void> | undefined;
  /** A checkpoint's fold states kept when its event was emitted, until the store acknowledges it (marksKnown: appended). */
  private pendingCp: Checkpoint | undefined;

  constructor(
    private readonly body: SessionBody,
    marks: { checkpoint: LogMark; snapshotSeq: number },
  ) {
    this.cp = marks.checkpoint;
    this.snapSeq = marks.snapshotSeq;
    body.log.onWritten = (end) => this.written(end);
  }

  /** After the folds took `event`, before the log does. */
  emitted(event: SessionEvent): void {
    // A store whose writes trail the session (Redis) is rarely written up to the seq mid-turn: keep the states now.
    if (this.body.log.marksKnown === 'appended' && !this.pendingCp && event.seq - this.cp.seq >= CHECKPOINT_EVENTS) {
      this.pendingCp = { seq: event.seq, at: event.seq, folds: this.body.folds.save() };
    }
  }

  /** After each batch of the log is written: a checkpoint every so often, a snapshot less often. */
  private written(end: LogMark): void {
    const log = this.body.log;
    if (this.pendingCp && end.seq >= this.pendingCp.seq) {
      const cp = this.pendingCp;
      this.pendingCp = undefined;
      this.cp = { seq: cp.seq, at: cp.at };
      log.checkpoint(cp);
    }
    if (end.seq !== this.body.seq) return; // fold states are those after the last seq only
    if (end.seq - this.cp.seq >= CHECKPOINT_EVENTS || end.at - this.cp.at >= CHECKPOINT_BYTES) {
      this.cp = end;
      log.checkpoint({ ...end, folds: this.body.folds.save() });
    }
    if (end.seq - this.snapSeq >= SNAPSHOT_EVENTS) void this.snapshot();
  }

  /** Keeps the whole state at the log's end, so a load folds only what comes after. */
  snapshot(): Promise<void> {
    const b = this.body;
    const log = b.log;
    // One in flight holds an older state: this one follows it (a session let go mid-write keeps its end).
    if (this.snapping) return this.snapping.then(() => this.snapshot());
    // A short log folds faster than a snapshot is read: only longer ones get one.
    if (b.closed || b.seq === this.snapSeq || b.seq < SNAPSHOT_MIN_EVENTS) return Promise.resolve();
    if (log.unavailable()) return Promise.resolve(); // its store away (Redis): the next load folds the log instead
    log.flush();
    const end = log.written;
    if (end.seq !== b.seq) {
      // The file store writes in flush(): behind means a write is failing, nothing whole to keep.
      // A store whose writes are acknowledged later (Redis) is drained first.
      if (log.marksKnown === 'flushed') return Promise.resolve();
      const seq = b.seq;
      return log.drain().then((mark) => (mark.seq === seq && b.seq === seq ? this.snapshot() : undefined));
    }
    if (b.historyReady) return b.historyReady.then(() => this.snapshot()); // never a snapshot with half a history
    if (b.loadError) return Promise.resolve();
    this.snapSeq = end.seq;
    // A copy of the list (messages themselves never change): the snapshot is written in chunks while the session goes on.
    this.snapping = log
      .snapshot({ ...end, folds: b.folds.save(), state: saveState(b.st), items: b.st.history.slice() })
      .catch((err: unknown) => b.deps.logger.warn({ err, sessionId: b.id }, 'session snapshot write failed'))
      .finally(() => (this.snapping = undefined));
    return this.snapping;
  }
}
