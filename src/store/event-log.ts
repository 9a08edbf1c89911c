import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SessionEventSchema, type SessionEvent } from '../protocol/index.js';

const MAX_RETAINED_CHARS = 64 * 1024 * 1024;

/**
 * Append-only JSONL writer, one per session. Lines are batched and written with one
 * writeSync per tick: a burst of chunks costs one syscall, and a crash loses at most the
 * current tick while every line on disk stays whole.
 */
export class EventLogWriter {
  private fd: number | undefined;
  private pending: string[] = [];
  private scheduled = false;
  private failed = false;

  constructor(
    readonly path: string,
    private readonly onError: (err: Error) => void,
  ) {
    // Logs hold tool output verbatim: owner-only, like everything under CHIMERA_HOME.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
  }

  append(event: SessionEvent): void {
    this.pending.push(JSON.stringify(event) + '\n');
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.fd === undefined) return;
    const chunk = this.pending.join('');
    this.pending = [];
    try {
      writeSync(this.fd, chunk);
      this.failed = false;
    } catch (err) {
      // Keep serving the live session; report once per failure streak, not per event, and keep
      // the lines for the next try (a full disk may free up) up to a bound, so seq stays whole.
      if (!this.failed) this.onError(err as Error);
      this.failed = true;
      if (chunk.length < MAX_RETAINED_CHARS) this.pending.unshift(chunk);
    }
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
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
 * Reads a session log, tolerating a torn last line and skipping lines that do not validate.
 * A torn tail is only left out here; the caller repairs the file before appending (repairTail).
 */
export function readEventLog(path: string): ReadResult {
  const buf = readFileSync(path);
  const wholeBytes = buf.lastIndexOf(0x0a) + 1;
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  const events: SessionEvent[] = [];
  let badLines = 0;
  let tornTail = false;
  const last = lines.length - 1;
  for (let i = 0; i <= last; i++) {
    const line = lines[i];
    if (!line) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (i === last) tornTail = true;
      else badLines++;
      continue;
    }
    const ok = SessionEventSchema.safeParse(parsed);
    if (ok.success) events.push(ok.data);
    else badLines++;
  }
  return { events, tornTail, badLines, wholeBytes, openTail: buf.length > 0 && buf[buf.length - 1] !== 0x0a };
}

/**
 * Makes the log safe to append to: a torn last line is cut off; a whole last event that lost
 * its newline gets one, so the next event does not glue onto it.
 */
export function repairTail(path: string, read: ReadResult): void {
  if (!read.openTail) return;
  if (read.tornTail) truncateSync(path, read.wholeBytes);
  else appendFileSync(path, '\n');
}
