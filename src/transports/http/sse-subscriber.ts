import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Session, SessionEvent } from '../../core/index.js';
import type { FrameHubs } from './frame-hub.js';
import { formatFrame, FrameMapper, isAfter, type FramePos } from './frames.js';

export interface SubscriberOptions {
  ideSchema: boolean;
  /** Send frames after this position; undefined = only what happens from now on. */
  after: FramePos | undefined;
  /** Bytes a reader may stay behind for longer than `stallMs` before it is dropped. */
  maxBufferBytes: number;
  /** How long a reader may sit above maxBufferBytes (a burst is fine; a stalled reader is not). */
  stallMs: number;
  logger: Logger;
  hubs: FrameHubs;
}

/** Live bytes past the replay backlog that drop a reader at once, whatever its pace: the hard memory bound. */
const HARD_LIMIT_FACTOR = 16;

/**
 * One SSE reader of one session. The session's listener only formats and hands bytes to the
 * socket (never blocks, never awaits). A reader that stays more than maxBufferBytes behind for
 * stallMs, or falls 16× that behind at all, is dropped and can come back with Last-Event-ID.
 */
export class SseSubscriber {
  private off: (() => void) | undefined;
  private closed = false;
  private allowance = 0;
  private live = false;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: Session,
    private readonly out: ServerResponse,
    private readonly opts: SubscriberOptions,
  ) {}

  /**
   * Joins the session's shared frame hub (frames after the cursor from its window, then live);
   * a cursor older than the window is served by a private replay from seq 1 instead.
   */
  start(): void {
    const write = (text: string) => {
      if (!this.closed) this.write(text);
    };
    this.off = this.opts.hubs.attach(this.session, this.opts.after, write) ?? this.privateReplay(write);
    this.allowance = this.out.writableLength;
    this.live = true;
    if (this.closed) this.off();
  }

  private privateReplay(write: (text: string) => void): () => void {
    const mapper = new FrameMapper(this.session.id, this.opts.ideSchema);
    const cursor = this.opts.after ?? { seq: this.session.lastSeq, k: Number.MAX_SAFE_INTEGER };
    return this.session.subscribe((e: SessionEvent) => {
      for (const f of mapper.map(e)) if (isAfter(f.pos, cursor)) write(formatFrame(f));
    }, 0);
  }

  private write(text: string): void {
    const before = this.out.writableLength;
    if (this.live) this.allowance = Math.min(this.allowance, before);
    // Judged on the backlog before this frame: one huge frame to a caught-up reader is not a stall.
    if (this.live && before > this.allowance + HARD_LIMIT_FACTOR * this.opts.maxBufferBytes) return this.drop(before);
    this.out.write(text);
    const behind = this.out.writableLength;
    if (behind > this.opts.maxBufferBytes && !this.stallTimer) {
      this.stallTimer = setTimeout(() => {
        this.stallTimer = undefined;
        if (this.out.writableLength > this.opts.maxBufferBytes) this.drop(this.out.writableLength);
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
    this.off?.();
    if (abort) this.out.destroy();
    else this.out.end();
  }
}
