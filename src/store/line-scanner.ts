import type { SessionEvent } from '../protocol/index.js';
import { decodeLine, endCallId, endHasExitCode, isAssistantMessageLine, isChunkLine, progressCallId, seqOfLine } from './codec.js';
import type { LogMark } from './session-store.js';

/** A history's progress window flushes in order past this much (a call that never ends, or ends without an exit). */
const WINDOW_BYTES = 1024 * 1024;

/** A line waiting in the progress window; `dropped` once its call's end turns out to repeat it. */
interface Waiting {
  line: string;
  dropped: boolean;
}

/**
 * Turns the bytes of a log (codec.ts lines), fed in pieces, into whole events: a line cut by a
 * piece boundary is carried to the next piece. Lines that do not parse or validate are counted and
 * left out; events at or before `after` are skipped (a read that starts at a checkpoint).
 *
 * A history read (`omitUpTo` > 0) is the fast path of core/history-policy.ts: it leaves out what
 * that rule leaves out, mostly without parsing it (a reply's thousand chunks are recognised by
 * their first bytes), and a property test (core/history-policy.test.ts) holds the two equal. The
 * one place it gives way: past WINDOW_BYTES of progress waiting for its call's end, it is handed
 * out as it is (kept), rather than held in memory without bound.
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

  /** Lines of chunks held back: dropped if an assistant `message` comes next, else parsed and handed out first. */
  private held: string[] = [];
  /**
   * From a held tool_call_progress line on, every line waits here, in order: a call's progress is
   * dropped when its first tool_call_end after it carries an exit code (then it holds the whole
   * output); the rest goes out once no held call is open (or past WINDOW_BYTES), so a history
   * never shows a command's output twice.
   */
  private window: Waiting[] = [];
  private windowBytes = 0;
  /** Held calls still open, with their held progress lines since the call last ended. */
  private readonly openCalls = new Map<string, Waiting[]>();

  constructor(
    start: LogMark,
    private readonly after: number,
    private readonly validate: boolean,
    /** A history read: what core/history-policy.ts omits up to this seq is left out; 0: nothing is. */
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

  /** Whether a line's seq is one a history read may leave out. */
  private omittable(line: string): boolean {
    const seq = seqOfLine(line);
    return seq > this.after && seq <= this.omitUpTo;
  }

  private line(line: string, out: SessionEvent[], last: boolean): void {
    if (!line) return;
    if (this.omitUpTo > 0 && !last) {
      if (isChunkLine(line) && this.omittable(line)) return void this.held.push(line);
      if (this.held.length > 0) {
        if (isAssistantMessageLine(line)) this.drop();
        else this.release(out);
      }
      return this.pass(line, out);
    }
    this.flushWindow(out);
    this.parse(line, out, last);
  }

  /** A history line after the chunk check: through the progress window (see `window`). */
  private pass(line: string, out: SessionEvent[]): void {
    const progress = progressCallId(line);
    if (progress !== undefined && this.omittable(line)) {
      this.firstSeq ??= seqOfLine(line);
      const w: Waiting = { line, dropped: false };
      const open = this.openCalls.get(progress);
      if (open) open.push(w);
      else this.openCalls.set(progress, [w]);
      this.window.push(w);
      this.windowBytes += line.length;
      if (this.windowBytes > WINDOW_BYTES) this.flushWindow(out);
      return;
    }
    if (this.window.length === 0) return this.parse(line, out, false);
    const ended = endCallId(line);
    const held = ended === undefined ? undefined : this.openCalls.get(ended);
    if (ended !== undefined && held !== undefined) {
      this.openCalls.delete(ended);
      // Its progress lines still count as read: the end line that follows them sets lastSeq.
      if (endHasExitCode(line)) {
        for (const w of held) {
          w.dropped = true;
          this.windowBytes -= w.line.length;
        }
      }
    }
    this.window.push({ line, dropped: false });
    this.windowBytes += line.length;
    if (this.openCalls.size === 0 || this.windowBytes > WINDOW_BYTES) this.flushWindow(out);
  }

  private flushWindow(out: SessionEvent[]): void {
    if (this.window.length === 0) return;
    const lines = this.window;
    this.window = [];
    this.windowBytes = 0;
    this.openCalls.clear();
    for (const w of lines) if (!w.dropped) this.parse(w.line, out, false);
  }

  /** The held chunks are repeated by the message that follows: leave them out (their seqs still count). */
  private drop(): void {
    this.lastSeq = seqOfLine(this.held[this.held.length - 1]!);
    this.firstSeq ??= seqOfLine(this.held[0]!);
    this.held = [];
  }

  /** Something other than an assistant message follows the held chunks: they are part of the replay after all. */
  private release(out: SessionEvent[]): void {
    const held = this.held;
    this.held = [];
    for (const l of held) this.pass(l, out);
  }

  private parse(line: string, out: SessionEvent[], last: boolean): void {
    const event = decodeLine(line, this.validate);
    if (event === 'not_json') {
      if (last) this.tornTail = true;
      else this.badLines++;
      return;
    }
    if (event === 'not_event') return void this.badLines++;
    this.firstSeq ??= event.seq;
    if (event.seq <= this.after) return;
    this.lastSeq = event.seq;
    out.push(event);
  }
}
