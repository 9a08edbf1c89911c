import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Longest inbound line we accept; longer ones are answered as invalid, never buffered forever. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const FLUSH_BYTES = 64 * 1024;

/**
 * Newline-delimited JSON framing over a byte stream pair. Outbound lines are coalesced into
 * one write per tick, so a burst of notifications costs one syscall and order is kept.
 */
export class LineChannel {
  private queue: string[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private closedOut = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {
    output.on('error', () => {
      this.closedOut = true; // the client went away; nothing to write to
    });
  }

  onLine(handler: (line: string) => void, onClose: () => void): void {
    const rl = createInterface({ input: this.input, crlfDelay: Infinity });
    rl.on('line', (line) => {
      if (line.trim() === '') return;
      handler(line.length > MAX_LINE_BYTES ? '{"jsonrpc":"2.0","id":null,"__oversized":true}' : line);
    });
    rl.on('close', onClose);
  }

  send(message: unknown): void {
    if (this.closedOut) return;
    const line = JSON.stringify(message) + '\n';
    this.queue.push(line);
    this.queuedBytes += line.length;
    // A long synchronous burst goes out in 64 KiB writes instead of waiting for the next tick.
    if (this.queuedBytes >= FLUSH_BYTES) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0 || this.closedOut) return;
    const chunk = this.queue.join('');
    this.queue = [];
    this.queuedBytes = 0;
    this.output.write(chunk);
  }

  /** Resolves when everything queued has been handed to the OS. */
  drain(): Promise<void> {
    this.flush();
    return new Promise((resolve) => {
      if (this.closedOut || this.output.writableLength === 0) return resolve();
      this.output.once('drain', () => resolve());
      this.output.once('error', () => resolve());
    });
  }
}
