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
  /** Queue positions that wait for a gap before they go out (sendApart), in order. */
  private gates: { at: number; gapMs: number }[] = [];
  private gapRunning = false;
  private flushed: Promise<void> = Promise.resolve();
  private readonly gateWaiters: (() => void)[] = [];

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
    if (this.gates.length > 0) return; // behind a gap: goes out when it ends
    // A long synchronous burst goes out in 64 KiB writes instead of waiting for the next tick.
    if (this.queuedBytes >= FLUSH_BYTES) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Sends `message` in a write of its own, once everything queued before it has been handed to
   * the OS and `gapMs` more have passed; what is sent meanwhile waits behind it, in order (a second
   * one waits for its own gap). A client that reads the two apart has handled the earlier
   * messages before this one arrives.
   */
  sendApart(message: unknown, gapMs: number): void {
    if (this.closedOut) return;
    this.gates.push({ at: this.queue.length, gapMs });
    const line = JSON.stringify(message) + '\n';
    this.queue.push(line);
    this.queuedBytes += line.length;
    this.flush();
  }

  /** Writes what is queued up to the first gap, and starts that gap once the output has taken it. */
  flush(): void {
    this.scheduled = false;
    if (this.closedOut || this.queue.length === 0) return;
    const gate = this.gates[0];
    const end = gate ? gate.at : this.queue.length;
    if (end > 0) {
      const lines = this.queue.splice(0, end);
      const chunk = lines.join('');
      this.queuedBytes -= chunk.length;
      for (const g of this.gates) g.at -= end;
      // The callback runs once the chunk is handed to the OS (or the output failed): what drain and gaps wait on.
      this.flushed = new Promise((resolve) => this.output.write(chunk, () => resolve()));
    }
    if (gate && !this.gapRunning) this.startGap(gate.gapMs);
  }

  private startGap(gapMs: number): void {
    this.gapRunning = true;
    const open = () => {
      setTimeout(() => {
        this.gapRunning = false;
        this.gates.shift();
        this.flush();
        for (const w of this.gateWaiters.splice(0)) w();
      }, gapMs);
    };
    // The gap counts from when the earlier messages left this process, not from when they were queued.
    void this.flushed.then(open);
  }

  backlog(): number {
    return this.queuedBytes + this.output.writableLength;
  }

  /** Resolves when everything queued (behind its gaps too) has been handed to the OS. */
  async drain(): Promise<void> {
    this.flush();
    while (this.gates.length > 0 && !this.closedOut) await new Promise<void>((resolve) => this.gateWaiters.push(resolve));
    this.flush();
    if (!this.closedOut) await this.flushed;
  }
}
