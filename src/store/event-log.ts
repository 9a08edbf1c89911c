import { appendFileSync, fstatSync, mkdirSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SessionEvent } from '../protocol/index.js';
import { encodeEvent } from './codec.js';
import { logFds, type FdPool } from './fd-pool.js';
import { LineScanner } from './line-scanner.js';
import type { LogMark } from './session-store.js';

const MAX_RETAINED_CHARS = 64 * 1024 * 1024;
/** A burst in one tick is written every this many bytes instead of all at its end. */
const FLUSH_BYTES = 1024 * 1024;

/**
 * Append-only JSONL writer, one per session. Lines are batched and written with one
 * writeSync per tick: a burst of chunks costs one syscall, and a crash loses at most the
 * current tick while every line on disk stays whole. The descriptor comes from a shared pool,
 * so a thousand idle logs do not hold a thousand files open.
 */
export class EventLogWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private pendingSeq = 0;
  private scheduled = false;
  private failed = false;
  private closed = false;
  /** Just after the last line written: bytes of the file and the seq of its last event. */
  private end: LogMark;
  onWritten: ((end: LogMark) => void) | undefined;

  constructor(
    readonly path: string,
    private readonly onError: (err: Error) => void,
    private readonly pool: FdPool = logFds,
    lastSeq = 0,
  ) {
    // Logs hold tool output verbatim: owner-only, like everything under CHIMERA_HOME.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = pool.fd(path); // made now, so the session exists on disk from its first moment
    this.end = { seq: lastSeq, at: fstatSync(fd).size };
  }

  get written(): LogMark {
    return this.end;
  }

  /** The seq of the last event in the file (a load found it); `changed`: the file was cut or extended under the writer. */
  resync(lastSeq: number, changed = true): void {
    if (!changed) {
      this.end = { seq: lastSeq, at: this.end.at };
      return;
    }
    this.pool.release(this.path);
    this.end = { seq: lastSeq, at: fstatSync(this.pool.fd(this.path)).size };
  }

  append(event: SessionEvent): void {
    const line = encodeEvent(event) + '\n';
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.pendingSeq = event.seq;
    if (this.pendingBytes >= FLUSH_BYTES && !this.failed) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.closed) return;
    const buf = Buffer.from(this.pending.join(''));
    const seq = this.pendingSeq;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      const fd = this.pool.fd(this.path);
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
      this.failed = false;
    } catch (err) {
      // Keep serving the live session; report once per failure streak, not per event, and keep
      // the lines for the next try (a full disk may free up) up to a bound, so seq stays whole.
      if (!this.failed) this.onError(err as Error);
      this.failed = true;
      if (buf.length < MAX_RETAINED_CHARS) {
        this.pending.unshift(buf.toString());
        this.pendingBytes += buf.length;
      }
      return;
    }
    this.end = { seq, at: this.end.at + buf.length };
    this.onWritten?.(this.end);
  }

  close(): void {
    this.flush();
    this.closed = true;
    this.pool.release(this.path);
  }
}

export interface ReadResult {
  events: SessionEvent[];
  /** The last line was cut short (a crash mid-write); it was left out. */
  tornTail: boolean;
  /** Lines in the middle that did not parse or validate; left out. */
  badLines: number;
  /** Bytes up to the end of the last whole line: where a torn tail must be cut before appending. */
  wholeBytes: number;
  /** The file does not end in a newline (a torn tail, or a whole last event whose newline was lost). */
  openTail: boolean;
}

/**
 * Reads a whole session log at once, tolerating a torn last line and skipping lines that do not
 * validate (small logs and tests; sessions load through the chunked reader of file-store.ts).
 * A torn tail is only left out here; the caller repairs the file before appending (repairTail).
 */
export function readEventLog(path: string): ReadResult {
  const buf = readFileSync(path);
  const scan = new LineScanner({ seq: 0, at: 0 }, 0, true);
  const events: SessionEvent[] = [];
  scan.feed(buf, events);
  const wholeBytes = scan.at;
  scan.finish(events);
  return { events, tornTail: scan.tornTail, badLines: scan.badLines, wholeBytes, openTail: scan.openTail };
}

/**
 * Makes the log safe to append to: a torn last line is cut off; a whole last event that lost
 * its newline gets one, so the next event does not glue onto it.
 */
export function repairTail(path: string, read: Pick<ReadResult, 'openTail' | 'tornTail' | 'wholeBytes'>): void {
  if (!read.openTail) return;
  if (read.tornTail) truncateSync(path, read.wholeBytes);
  else appendFileSync(path, '\n');
}
