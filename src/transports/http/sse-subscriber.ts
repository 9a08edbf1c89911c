import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { SessionHandle } from '../../core/index.js';
import type { FrameHubs, ReaderHandle } from './frame-hub.js';
import type { FramePos } from './frames.js';

export interface SubscriberOptions {
  /** Send frames after this position; undefined = only what happens from now on. */
  after: FramePos | undefined;
  /**
   * Bytes a live reader may stay behind (beyond the backlog its resume was sent at once) for
   * longer than `stallMs`; 16× that behind at any moment drops it at once.
   */
  maxBufferBytes: number;
  /** How long a reader may stay more than maxBufferBytes behind (a burst it drains in time is fine). */
  stallMs: number;
  logger: Logger;
  hubs: FrameHubs;
}

/** How long a replay waits for a socket that does not drain before it drops the reader. */
const REPLAY_STALL_MS = 30_000;

/** Live bytes behind (past the resume backlog) that drop a reader at once, whatever its pace: the hard memory bound. */
export const HARD_LIMIT_FACTOR = 16;

/**
 * One SSE reader of one session. The session's listener only formats and hands bytes to the
 * socket (never blocks, never awaits). A resume that the session's window does not cover is
 * replayed from the log in chunks that wait for the socket to drain. Once live, two rules bound
 * what waits for a reader (beyond the backlog its resume was sent at once): more than
 * maxBufferBytes behind for stallMs in a row drops it (a burst it drains in time is fine: a
 * reader that pauses for a moment during a 40,000-chunk reply is kept), and more than 16× that
 * behind drops it at once (the frame that finds that much waiting is not queued). A dropped
 * reader can come back with Last-Event-ID and lose nothing.
 */
export class SseSubscriber {
  private handle: ReaderHandle | undefined;
  private closed = false;
  /** What the resume wrote at once (a window's worth): it drains first and does not count against the limit. */
  private allowance = 0;
  private live = false;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: SessionHandle,
    private readonly out: ServerResponse,
    private readonly opts: SubscriberOptions,
  ) {}

  /** Joins the session's stream: the frames after the cursor (from the hub's window or the log), then live. */
  start(): void {
    const write = (text: string) => {
      if (!this.closed) this.write(text);
    };
    this.handle = this.opts.hubs.attach(this.session, this.opts.after, write, { pace: () => this.pace() });
    // What the resume wrote up to now drains first; from here on the limit holds.
    void this.handle.ready.then(() => {
      this.allowance = this.out.writableLength;
      this.live = true;
    });
    if (this.closed) this.handle();
  }

  /** A replay waits while the socket holds more than half the limit; a socket that never drains is dropped. */
  private pace(): Promise<void> | undefined {
    if (this.closed || this.out.writableLength <= this.opts.maxBufferBytes / 2) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.out.off('drain', done);
        this.out.off('close', done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.drop(this.out.writableLength);
        done();
      }, REPLAY_STALL_MS);
      timer.unref();
      this.out.once('drain', done);
      this.out.once('close', done);
    });
  }

  /** Frames written in one turn of the event loop go to the socket in one write. */
  private send(text: string): void {
    if (!this.corked) {
      this.corked = true;
      this.out.cork();
      process.nextTick(() => {
        this.corked = false;
        this.out.uncork();
      });
    }
    this.out.write(text);
  }

  private corked = false;

  /** Bytes waiting for the reader beyond its resume backlog (which only shrinks as it drains). */
  private behind(): number {
    const buffered = this.out.writableLength;
    this.allowance = Math.min(this.allowance, buffered);
    return buffered - this.allowance;
  }

  private write(text: string): void {
    if (!this.live) return this.send(text);
    const before = this.behind();
    // Judged on the backlog before this frame: one huge frame to a caught-up reader is not a drop.
    if (before > HARD_LIMIT_FACTOR * this.opts.maxBufferBytes) return this.drop(this.out.writableLength);
    // Back under the limit since the clock started: the stall clock starts again.
    if (before <= this.opts.maxBufferBytes && this.stallTimer) {
      clearTimeout(this.stallTimer);
      this.stallTimer = undefined;
    }
    this.send(text);
    if (!this.stallTimer && this.behind() > this.opts.maxBufferBytes) {
      this.stallTimer = setTimeout(() => {
        this.stallTimer = undefined;
        if (this.behind() > this.opts.maxBufferBytes) this.drop(this.out.writableLength);
      }, this.opts.stallMs);
      this.stallTimer.unref();
    }
  }

  private drop(buffered: number): void {
    if (this.closed) return;
    this.opts.logger.warn({ sessionId: this.session.id, buffered }, 'SSE reader too slow; dropped (it may resume with Last-Event-ID)');
    this.close(true);
  }

  /** Stops delivery; `abort` drops the socket at once (a stalled reader never drains an end). */
  close(abort = false): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.stallTimer);
    this.handle?.();
    if (abort) this.out.destroy();
    else this.out.end();
  }
}
