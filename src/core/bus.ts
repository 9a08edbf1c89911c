import type { SessionEvent } from '../protocol/index.js';

export type Listener = (event: SessionEvent) => void;

/**
 * Per-session fan-out with replay. Delivery is synchronous and in seq order; a listener
 * that must not block the session (an SSE reader) buffers on its own side. Events older
 * than the in-memory window are fetched from the durable log.
 */
export class EventBus {
  private readonly ring: SessionEvent[] = [];
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly readOlder: (afterSeq: number) => SessionEvent[],
    private readonly windowSize = 4096,
    private readonly onListenerError: (err: unknown) => void = () => {},
  ) {}

  publish(event: SessionEvent): void {
    this.ring.push(event);
    if (this.ring.length > this.windowSize * 2) this.ring.splice(0, this.ring.length - this.windowSize);
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /** Events with seq > afterSeq, from memory when the window covers them, else from the log. */
  since(afterSeq: number): SessionEvent[] {
    const first = this.ring[0];
    if (first && first.seq <= afterSeq + 1) return this.ring.filter((e) => e.seq > afterSeq);
    // readOlder flushes the writer first, so the log reaches at least where the window starts.
    const fromLog = this.readOlder(afterSeq);
    const lastLogged = fromLog.at(-1)?.seq ?? afterSeq;
    return fromLog.concat(this.ring.filter((e) => e.seq > lastLogged));
  }

  /**
   * Subscribe; with afterSeq the listener first receives everything after it. Replay and
   * live delivery cannot interleave because both run synchronously on this thread.
   */
  subscribe(listener: Listener, afterSeq?: number): () => void {
    if (afterSeq !== undefined) for (const e of this.since(afterSeq)) listener(e);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Seed the memory window with the tail of a loaded log. */
  seed(events: SessionEvent[]): void {
    this.ring.push(...events);
  }
}
