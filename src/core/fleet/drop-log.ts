import type { Logger } from 'pino';
import type { Dropped } from '../../store/redis/index.js';

/** At most this many drops of one kind are logged one by one per window; the rest are counted. */
const BURST = 20;
const WINDOW_MS = 10_000;

/**
 * Logs what the fleet's trust boundary dropped (a message, a lease record or an audit line that
 * failed its check): each one as a warning, so a person sees an attack or a server with another
 * secret, but a flood (someone publishing in a loop) becomes one line per window with a count
 * instead of filling the disk. Counted per kind (message, lease record, log entry…): a flood of
 * one kind must not hide the first drops of another from the person reading the log.
 */
export class DropLog {
  private windowStart = 0;
  private readonly inWindow = new Map<string, number>();
  private suppressed = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  report(d: Dropped): void {
    const t = this.now();
    if (t - this.windowStart >= WINDOW_MS) {
      this.flush();
      this.windowStart = t;
      this.inWindow.clear();
    }
    const n = (this.inWindow.get(d.what) ?? 0) + 1;
    this.inWindow.set(d.what, n);
    if (n > BURST) {
      this.suppressed++;
      this.flushTimer ??= setTimeout(() => this.flush(), WINDOW_MS);
      this.flushTimer.unref();
      return;
    }
    this.logger.warn({ what: d.what, why: d.why, where: d.where, ...(d.sample !== undefined ? { sample: d.sample } : {}) }, `fleet: dropped a ${d.what} that failed its check: ${d.why}`);
  }

  /** The count of drops not logged one by one, once per window. */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.suppressed > 0) this.logger.warn({ dropped: this.suppressed, windowMs: WINDOW_MS }, 'fleet: more messages and records failed their check and were dropped (not logged one by one)');
    this.suppressed = 0;
  }
}
