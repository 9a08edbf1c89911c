import type { StartedTurn, TurnOptions } from '../api.js';

/** What a prompt carries besides its text, only the fields it has: passed on unchanged by queues and the fleet. */
export function promptExtras(o: TurnOptions): Pick<TurnOptions, 'mentions' | 'images'> {
  return { ...(o.mentions?.length ? { mentions: o.mentions } : {}), ...(o.images?.length ? { images: o.images } : {}) };
}

/** What a queued prompt watches and starts: a session, written here or followed. */
export interface QueueHost {
  readonly status: 'idle' | 'running';
  /** Waits for the running turn, if any, to end. */
  settled(): Promise<void>;
  /** Settles when the client's MCP servers are connected (its tools belong to the turn). */
  clientReady(origin: string | undefined): Promise<void>;
  startTurn(text: string, opts: TurnOptions): StartedTurn;
}

/**
 * Prompts waiting for the running turn (ACP v1 has no "busy" answer, so a prompt sent while a
 * turn runs waits and then starts). One that is withdrawn while it waits answers 'cancelled'
 * without running. The ferret dialect and HTTP never queue: they are refused with `session_busy`.
 */
export class TurnQueue {
  /** Each waiting prompt's controller, and the client that sent it. */
  private readonly waiting = new Map<AbortController, string | undefined>();

  constructor(private readonly host: QueueHost) {}

  async start(text: string, origin: string | undefined, extras: TurnOptions = {}): Promise<StartedTurn | 'cancelled'> {
    const waiting = new AbortController();
    this.waiting.set(waiting, origin);
    try {
      await untilAborted(this.host.clientReady(origin), waiting.signal);
      for (;;) {
        if (waiting.signal.aborted) return 'cancelled';
        if (this.host.status === 'running') {
          await untilAborted(this.host.settled(), waiting.signal); // a cancelled (or another client's) turn unwinds first
          continue;
        }
        return this.host.startTurn(text, { origin, ...promptExtras(extras) });
      }
    } finally {
      this.waiting.delete(waiting);
    }
  }

  /** Withdraws the origin's waiting prompts; false when none waited. */
  withdraw(origin: string): boolean {
    let any = false;
    for (const [w, o] of this.waiting) {
      if (o !== origin) continue;
      w.abort();
      any = true;
    }
    return any;
  }
}

/** Resolves when `p` settles or `signal` aborts, whichever comes first. */
function untilAborted(p: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}
