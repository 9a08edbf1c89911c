import { appendFileSync, fstatSync, mkdirSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { built, SessionEventSchema, type SessionEvent } from '../protocol/index.js';
import { logFds, type FdPool } from './fd-pool.js';
import type { LogMark } from './session-store.js';

/** The union itself, not its proxy: it parses every line of a validated replay (protocol/lazy-schema.ts). */
let eventSchema: typeof SessionEventSchema | undefined;
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
    const line = JSON.stringify(event) + '\n';
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

/** How a message_chunk line and a message line look in our writer's output (type after seq, sessionId, ts). */
const CHUNK_MARK = ',"type":"message_chunk","data":{';
const MESSAGE_MARK = ',"type":"message","data":{';
const ASSISTANT_MARK = '"message":{"role":"assistant"';
const TYPE_KEY = ',"type":"';
const PROGRESS_MARK = ',"type":"tool_call_progress","data":{"callId":"';
const END_MARK = ',"type":"tool_call_end","data":{"callId":"';
/** A history's progress window flushes in order past this much (a call that never ends, or ends without an exit). */
const WINDOW_BYTES = 1024 * 1024;

/**
 * Whether a line of our writer (`{"seq":…,"sessionId":"…","ts":…,"type":…,"data":{…`) is of the
 * type `mark` starts with. The first `,"type":"` is the event's own key: the fields before it are a
 * number, a string (its quotes escaped) and a number, so nested JSON in the data cannot pose as it.
 */
function isType(line: string, mark: string): boolean {
  return line.startsWith('{"seq":') && line.startsWith(mark, line.indexOf(TYPE_KEY));
}

/** The callId of a progress or end line (our writer puts it first in the data), read without parsing. */
function callIdOf(line: string, mark: string): string | undefined {
  if (!isType(line, mark)) return undefined;
  const from = line.indexOf(TYPE_KEY) + mark.length;
  const to = line.indexOf('"', from);
  const id = to < 0 ? '' : line.slice(from, to);
  return id === '' || id.includes('\\') ? undefined : id;
}

/** A command's end that carries its whole output (it ran to an exit code), not an interruption or a tool's failure. */
function endsWithExit(line: string): boolean {
  try {
    return typeof (JSON.parse(line) as { data?: { exitCode?: unknown } }).data?.exitCode === 'number';
  } catch {
    return false;
  }
}

let known: Set<string> | undefined;
/** The event types of the union, for the shape check of a replay. */
function knownTypes(): Set<string> {
  return (known ??= new Set(SessionEventSchema.options.map((o) => o.shape.type.value)));
}

/** A replayed line's shape, without the full schema: the fields every reader of an event relies on. */
function looksLikeEvent(x: unknown): x is SessionEvent {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Record<string, unknown>;
  return (
    typeof e['seq'] === 'number' &&
    typeof e['ts'] === 'number' &&
    typeof e['sessionId'] === 'string' &&
    typeof e['type'] === 'string' &&
    typeof e['data'] === 'object' &&
    e['data'] !== null &&
    knownTypes().has(e['type'])
  );
}

/**
 * Turns the bytes of a log, fed in pieces, into whole events: a line cut by a piece boundary is
 * carried to the next piece. Lines that do not parse or validate are counted and left out;
 * events at or before `after` are skipped (a read that starts at a checkpoint).
 */
export class LineScanner {
  private carry: Buffer | undefined;
  /** Byte offset just after the last whole line handed out. */
  at: number;
  lastSeq: number;
  /** The seq of the first event seen (skipped or not): a read from a checkpoint checks it follows. */
  firstSeq: number | undefined;
  badLines = 0;
  tornTail = false;
  /** The file does not end in a newline (a torn tail, or a whole last event whose newline was lost). */
  openTail = false;

  /** Lines of chunks held back: dropped if a `message` comes next, else parsed and handed out first. */
  private held: string[] = [];
  /**
   * From a held tool_call_progress line on, every line waits here, in order: a call's progress is
   * dropped when its tool_call_end (which carries the whole output) comes; the rest goes out once
   * no held call is open (or past WINDOW_BYTES), so a history never shows a command's output twice.
   */
  private window: { line: string; callId?: string }[] = [];
  private windowBytes = 0;
  /** Held calls still open, with the bytes of their held progress; and the calls whose progress is dropped. */
  private readonly openCalls = new Map<string, number>();
  private readonly droppedCalls = new Set<string>();

  constructor(
    start: LogMark,
    private readonly after: number,
    private readonly validate: boolean,
    /** Chunks up to this seq that the next event (a message) repeats are left out unparsed; 0: none. */
    private readonly omitUpTo = 0,
  ) {
    this.at = start.at;
    this.lastSeq = start.seq;
  }

  feed(buf: Buffer, out: SessionEvent[]): void {
    const nl = buf.lastIndexOf(0x0a);
    if (nl < 0) {
      this.carry = this.carry ? Buffer.concat([this.carry, buf]) : Buffer.from(buf);
      return;
    }
    const whole = this.carry ? Buffer.concat([this.carry, buf.subarray(0, nl + 1)]) : buf.subarray(0, nl + 1);
    this.carry = nl + 1 < buf.length ? Buffer.from(buf.subarray(nl + 1)) : undefined;
    this.at += whole.length;
    const lines = whole.toString('utf8').split('\n');
    lines.pop(); // after the last newline: nothing
    for (const line of lines) this.line(line, out, false);
  }

  /** At the end of the file: what is left is a torn line, or a whole event that lost its newline. */
  finish(out: SessionEvent[]): void {
    this.release(out); // a turn cut off mid-stream: its chunks are all there is
    this.flushWindow(out);
    if (!this.carry || this.carry.length === 0) return;
    this.openTail = true;
    const text = this.carry.toString('utf8');
    this.carry = undefined;
    this.line(text, out, true);
  }

  private line(line: string, out: SessionEvent[], last: boolean): void {
    if (!line) return;
    if (this.omitUpTo > 0 && !last) {
      // Our writer puts seq first and type third: a chunk is recognised without parsing it.
      if (isType(line, CHUNK_MARK)) {
        const seq = Number.parseInt(line.slice(7, 23), 10);
        if (seq > this.after && seq <= this.omitUpTo) return void this.held.push(line);
      }
      if (this.held.length > 0) {
        if (isType(line, MESSAGE_MARK) && line.includes(ASSISTANT_MARK)) this.drop();
        else this.release(out);
      }
      return this.pass(line, out);
    }
    this.flushWindow(out);
    this.parse(line, out, last);
  }

  /** A history line after the chunk check: through the progress window (see `window`). */
  private pass(line: string, out: SessionEvent[]): void {
    const progress = callIdOf(line, PROGRESS_MARK);
    if (progress !== undefined) {
      const seq = Number.parseInt(line.slice(7, 23), 10);
      if (seq > this.after && seq <= this.omitUpTo) {
        this.firstSeq ??= seq;
        this.openCalls.set(progress, (this.openCalls.get(progress) ?? 0) + line.length);
        this.window.push({ line, callId: progress });
        this.windowBytes += line.length;
        if (this.windowBytes > WINDOW_BYTES) this.flushWindow(out);
        return;
      }
    }
    if (this.window.length === 0) return this.parse(line, out, false);
    const ended = callIdOf(line, END_MARK);
    const held = ended === undefined ? undefined : this.openCalls.get(ended);
    if (ended !== undefined && held !== undefined) {
      this.openCalls.delete(ended);
      // Its progress lines still count as read: the end line that follows them sets lastSeq.
      if (endsWithExit(line)) {
        this.droppedCalls.add(ended);
        this.windowBytes -= held;
      }
    }
    this.window.push({ line });
    this.windowBytes += line.length;
    if (this.openCalls.size === 0 || this.windowBytes > WINDOW_BYTES) this.flushWindow(out);
  }

  private flushWindow(out: SessionEvent[]): void {
    if (this.window.length === 0) return;
    const lines = this.window;
    const dropped = new Set(this.droppedCalls);
    this.window = [];
    this.windowBytes = 0;
    this.openCalls.clear();
    this.droppedCalls.clear();
    for (const w of lines) if (w.callId === undefined || !dropped.has(w.callId)) this.parse(w.line, out, false);
  }

  /** The held chunks are repeated by the message that follows: leave them out (their seqs still count). */
  private drop(): void {
    const lastHeld = this.held[this.held.length - 1]!;
    this.lastSeq = Number.parseInt(lastHeld.slice(7, 23), 10);
    this.firstSeq ??= Number.parseInt(this.held[0]!.slice(7, 23), 10);
    this.held = [];
  }

  /** Something other than a message follows the held chunks: they are part of the replay after all. */
  private release(out: SessionEvent[]): void {
    const held = this.held;
    this.held = [];
    for (const l of held) this.pass(l, out);
  }

  private parse(line: string, out: SessionEvent[], last: boolean): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (last) this.tornTail = true;
      else this.badLines++;
      return;
    }
    let event: SessionEvent;
    if (this.validate) {
      const ok = (eventSchema ??= built(SessionEventSchema)).safeParse(parsed);
      if (!ok.success) return void this.badLines++;
      event = ok.data;
    } else {
      if (!looksLikeEvent(parsed)) return void this.badLines++;
      event = parsed;
    }
    this.firstSeq ??= event.seq;
    if (event.seq <= this.after) return;
    this.lastSeq = event.seq;
    out.push(event);
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
