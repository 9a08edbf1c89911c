// `serve --idle-exit SECONDS`: a server an editor starts detached (so a window reload does not end
// a running turn) must not outlive every window forever. It ends once nobody has been connected
// and no turn has run for the whole period: no open HTTP request (SSE streams and ACP-over-HTTP
// readers are open requests), stdin not open for an editor, no session running a turn.

export interface IdleProbe {
  /** Requests open on the HTTP server now. */
  openRequests(): number;
  /** A session this process holds runs a turn. */
  readonly running: boolean;
  /** An editor is attached on stdio. */
  stdioOpen(): boolean;
}

/** Checks a few times per period; calls `exit` once, after `idleMs` with nothing connected or running. */
export function watchIdle(probe: IdleProbe, idleMs: number, exit: () => void, now: () => number = Date.now): () => void {
  let quietSince = now();
  const tick = () => {
    const busy = probe.openRequests() > 0 || probe.running || probe.stdioOpen();
    if (busy) quietSince = now();
    else if (now() - quietSince >= idleMs) {
      clearInterval(timer);
      exit();
    }
  };
  const timer = setInterval(tick, Math.max(50, Math.min(5000, idleMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}
