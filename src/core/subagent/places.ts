/**
 * A fixed number of places (a counting semaphore): `take` waits for a free one, first come first
 * served, and gives up when its signal aborts. Subagents of one session take one each.
 */
export class Places {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  /** A release function once a place is held; undefined when the signal aborted first. */
  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return undefined;
    if (this.free > 0) {
      this.free--;
      return this.releaser();
    }
    const got = await new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(wake);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.waiting.push(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return got ? this.releaser() : undefined;
  }

  /** Hands the place straight to the next waiter, so a newcomer never jumps the queue. */
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
