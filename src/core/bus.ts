import type { SessionEvent } from '../protocol/index.js';
import { historyOmissions } from './history-policy.js';

export type Listener = (event: SessionEvent) => void;

export interface SubscribeOptions {
  /**
   * Asked between chunks of a replay read from the log: a promise makes the replay wait (the
   * reader's backpressure: an SSE socket that has not drained, a pipe that is full).
   */
  pace?: () => Promise<void> | undefined;
  /**
   * A history replay: what history-policy.ts leaves out of the events up to the session's last
   * seq when subscribing (the chunks an assistant `message` repeats, the progress a command's end
   * repeats) is left out, from memory as from the log; live events never are.
   */
  omitRepeatedChunks?: boolean;
}

/** Unsubscribes when called. */
export interface Subscription {
  (): void;
  /**
   * Settles once the replay is done and the listener is live: at once when the replay came from
   * memory (or there was none), later when older events were read from the log in chunks.
   */
  readonly caughtUp: Promise<void>;
}

/** Reads the durable log after a seq, in chunks (flushing what is queued first). */
export type ReadOlder = (afterSeq: number, opts?: { omitRepeatedChunksUpTo?: number }) => AsyncIterable<{ events: SessionEvent[] }>;

function subscription(off: () => void, caughtUp: Promise<void>): Subscription {
  return Object.assign(() => off(), { caughtUp });
}

/**
 * Per-session fan-out with replay. Delivery is synchronous and in seq order; a listener that
 * must not block the session (an SSE reader) buffers on its own side. A replay the memory window
 * covers is delivered at once; an older one is read from the log in chunks, each awaited, and
 * the listener joins the live stream in the same tick the replay reaches the window, so nothing
 * is missed or repeated and a long log never holds the event loop.
 */
export class EventBus {
  private readonly ring: SessionEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private replaying = 0;
  private last: number;

  constructor(
    private readonly readOlder: ReadOlder,
    private readonly windowSize = 4096,
    private readonly onListenerError: (err: unknown) => void = () => {},
    lastSeq = 0,
  ) {
    this.last = lastSeq;
  }

  publish(event: SessionEvent): void {
    this.ring.push(event);
    this.last = event.seq;
    if (this.ring.length > this.windowSize * 2) this.ring.splice(0, this.ring.length - this.windowSize);
    for (const l of this.listeners) this.deliver(l, event);
  }

  /** Listeners, and replays still reading: a session with either has a client. */
  get busy(): boolean {
    return this.listeners.size > 0 || this.replaying > 0;
  }

  /** Whether memory holds every event after `seq`. */
  private covers(seq: number): boolean {
    if (seq >= this.last) return true;
    const first = this.ring[0];
    return first !== undefined && first.seq <= seq + 1;
  }

  /**
   * Subscribe; with afterSeq the listener first receives everything after it (see `caughtUp`).
   * Without, only what is published from now on.
   */
  subscribe(listener: Listener, afterSeq?: number, opts: SubscribeOptions = {}): Subscription {
    if (afterSeq === undefined || this.covers(afterSeq)) {
      if (afterSeq !== undefined) this.fromRing(listener, afterSeq, opts.omitRepeatedChunks ? this.last : 0);
      this.listeners.add(listener);
      return subscription(() => this.listeners.delete(listener), Promise.resolve());
    }
    const state = { active: true };
    this.replaying++;
    const caughtUp = this.replay(listener, afterSeq, opts, state).finally(() => this.replaying--);
    return subscription(() => {
      state.active = false;
      this.listeners.delete(listener);
    }, caughtUp);
  }

  /** The ring's events after `after`, leaving out what the history rule omits up to `omitUpTo`. */
  private fromRing(listener: Listener, after: number, omitUpTo: number): number {
    let cursor = after;
    const skip = omitUpTo > 0 ? historyOmissions(this.ring, omitUpTo) : undefined;
    for (let i = 0; i < this.ring.length; i++) {
      const e = this.ring[i]!;
      if (e.seq <= cursor) continue;
      cursor = e.seq;
      if (skip?.[i]) continue;
      this.deliver(listener, e);
    }
    return cursor;
  }

  private async replay(listener: Listener, after: number, opts: SubscribeOptions, state: { active: boolean }): Promise<void> {
    let cursor = after;
    const omitUpTo = opts.omitRepeatedChunks ? this.last : 0;
    while (state.active && !this.covers(cursor)) {
      const before = cursor;
      for await (const chunk of this.readOlder(cursor, omitUpTo ? { omitRepeatedChunksUpTo: omitUpTo } : undefined)) {
        if (!state.active) return;
        for (const e of chunk.events) {
          if (e.seq <= cursor) continue;
          this.deliver(listener, e);
          cursor = e.seq;
        }
        if (this.covers(cursor)) break;
        const wait = opts.pace?.();
        if (wait) await wait;
        if (!state.active) return;
      }
      // The log reaches the window's start (readOlder flushes first); no progress means no more to read.
      if (cursor === before) break;
    }
    if (!state.active) return;
    // One synchronous step from here: the window's rest, then live. Nothing can be published between.
    this.fromRing(listener, cursor, omitUpTo);
    this.listeners.add(listener);
  }

  private deliver(l: Listener, e: SessionEvent): void {
    try {
      l(e);
    } catch (err) {
      this.onListenerError(err);
    }
  }

  /** Seed the memory window with the tail of a loaded log. */
  seed(events: SessionEvent[]): void {
    this.ring.push(...events);
    const last = events.at(-1);
    if (last && last.seq > this.last) this.last = last.seq;
  }
}
