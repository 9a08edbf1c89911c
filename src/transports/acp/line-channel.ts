import type { Readable, Writable } from 'node:stream';
import type { Channel } from './channel.js';

/** Longest inbound line we accept; longer ones are answered as invalid, never buffered forever. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const FLUSH_BYTES = 64 * 1024;

/**
 * Newline-delimited JSON framing over a byte stream pair. Outbound lines are coalesced into
 * one write per tick, so a burst of notifications costs one syscall and order is kept.
 */
export class LineChannel implements Channel {
  private queue: string[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private closedOut = false;
  /** While set, output waits (sendApart's gap); order is kept. */
  private hold: NodeJS.Timeout | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {
    output.on('error', () => {
      this.closedOut = true; // the client went away; nothing to write to
    });
  }

  /**
   * Calls `handler` with each line (without its newline), or with `null` for a line over
   * MAX_LINE_BYTES, which is skipped as it streams in and never held in memory whole.
   */
  onLine(handler: (line: string | null) => void, onClose: () => void): void {
    let parts: Buffer[] = [];
    let size = 0;
    let skipping = false;
    const emit = (buf: Buffer) => {
      const line = buf.toString('utf8').replace(/\r$/, '');
      if (line.trim() !== '') handler(line);
    };
    this.input.on('data', (chunk: Buffer | string) => {
      const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let start = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, start);
        const piece = data.subarray(start, nl === -1 ? data.length : nl);
        if (!skipping) {
          size += piece.length;
          if (size > MAX_LINE_BYTES) {
            skipping = true;
            parts = [];
            handler(null);
          } else parts.push(piece);
        }
        if (nl === -1) break;
        if (!skipping) emit(Buffer.concat(parts));
        parts = [];
        size = 0;
        skipping = false;
        start = nl + 1;
      }
    });
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      if (!skipping && size > 0) emit(Buffer.concat(parts));
      onClose();
    };
    this.input.on('end', close);
    this.input.on('close', close);
  }

  send(message: unknown): void {
    if (this.closedOut) return;
    const line = JSON.stringify(message) + '\n';
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (this.hold) return; // goes out when the gap ends
    // A long synchronous burst goes out in 64 KiB writes instead of waiting for the next tick.
    if (this.queuedBytes >= FLUSH_BYTES) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Sends `message` in a write of its own, `gapMs` after everything queued before it (written
   * now); what is sent meanwhile follows it, in order. A client that reads the two apart has
   * handled the earlier messages before this one arrives.
   */
  sendApart(message: unknown, gapMs: number): void {
    if (this.closedOut) return;
    if (!this.hold) {
      this.flush();
      this.hold = setTimeout(() => {
        this.hold = undefined;
        this.flush();
      }, gapMs);
    }
    const line = JSON.stringify(message) + '\n';
    this.queue.push(line);
    this.queuedBytes += line.length;
  }

  flush(): void {
    this.scheduled = false;
    if (this.hold || this.queue.length === 0 || this.closedOut) return;
    const chunk = this.queue.join('');
    this.queue = [];
    this.queuedBytes = 0;
    this.output.write(chunk);
  }

  backlog(): number {
    return this.queuedBytes + this.output.writableLength;
  }

  /** Resolves when everything queued (a gap's too) has been handed to the OS. */
  drain(): Promise<void> {
    clearTimeout(this.hold);
    this.hold = undefined;
    this.flush();
    return new Promise((resolve) => {
      if (this.closedOut || this.output.writableLength === 0) return resolve();
      const done = () => {
        this.output.off('drain', done).off('error', done);
        resolve();
      };
      this.output.on('drain', done).on('error', done);
    });
  }
}
