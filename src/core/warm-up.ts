/** One thing to load or start ahead of need (a module, the shell parser, the bubblewrap probe). */
export interface WarmStep {
  name: string;
  run(): Promise<unknown>;
}

/**
 * Runs warm-up steps in the background once the server has been quiet for `quietMs`, one step
 * at a time, each only after another quiet spell: an answer is never queued behind a warm-up
 * step that started after its request arrived. A step that fails is skipped (the first real use
 * pays for it, as it would have anyway). The steps' promises are shared with real use (cached
 * imports and probes), so a tool call that comes mid-step waits for the rest of it only.
 */
export class Warmer {
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private running = false;
  private stopped = false;

  constructor(
    private readonly steps: WarmStep[],
    private readonly busy: () => boolean,
    private readonly quietMs = 50,
    private readonly onError: (step: string, err: unknown) => void = () => {},
    private readonly onDone: () => void = () => {},
  ) {}

  /** Something happened: the quiet spell starts again. */
  poke(): void {
    if (this.stopped || this.next >= this.steps.length) return;
    clearTimeout(this.timer);
    if (this.running) return; // re-armed when the running step ends
    this.timer = setTimeout(() => void this.step(), this.quietMs);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    if (this.stopped || this.running) return;
    if (this.busy()) return this.poke();
    const s = this.steps[this.next++];
    if (!s) return;
    this.running = true;
    try {
      await s.run();
    } catch (err) {
      this.onError(s.name, err);
    } finally {
      this.running = false;
    }
    if (this.next >= this.steps.length) this.onDone();
    this.poke();
  }

  /** Whether every step has run. */
  get done(): boolean {
    return this.next >= this.steps.length && !this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
