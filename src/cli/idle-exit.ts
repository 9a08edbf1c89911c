// `serve --idle-exit SECONDS`: a server an editor starts detached (so a window reload does not end
// a running turn) must not outlive every window. A client is an open HTTP request (SSE streams and
// ACP-over-HTTP readers are open requests) or an editor on stdin. With none for the period:
// - no turn runs (or every running turn waits on a person, who has no window to answer in: a
//   permission question, a write held for review) → those turns are stopped and the server exits;
// - a turn is working (the model streams, a command runs) → it may finish, up to a ceiling of
//   TURN_CEILING_FACTOR periods with no client, then it is stopped too.
// A window that comes back within the period finds its turn as it left it.

import type { TurnActivity } from '../core/index.js';

/** A working turn with no client keeps the server up for at most this many idle periods (120 s → 30 min). */
export const TURN_CEILING_FACTOR = 15;

export interface IdleProbe {
  /** Requests open on the HTTP server now. */
  openRequests(): number;
  /** What the running turns do now. */
  turns(): TurnActivity;
  /** An editor is attached on stdio. */
  stdioOpen(): boolean;
}

/** Why the server goes, and whether turns still run (the caller stops them first, saying why). */
export interface IdleExit {
  why: string;
  /** Running turns to stop: they waited on a person, or worked past the ceiling. */
  stopTurns?: string;
}

/** Checks a few times per period; calls `exit` once, when the rules above say the server may go. */
export function watchIdle(probe: IdleProbe, idleMs: number, exit: (e: IdleExit) => void, now: () => number = Date.now): () => void {
  const s = span(idleMs);
  const ceiling = span(idleMs * TURN_CEILING_FACTOR);
  let noClientSince = now();
  /** Since when nothing kept the server: no client and no working turn. */
  let quietSince = now();
  const tick = () => {
    const t = now();
    if (probe.openRequests() > 0 || probe.stdioOpen()) noClientSince = quietSince = t;
    const turns = probe.turns();
    if (turns === 'working') quietSince = t;
    let e: IdleExit | undefined;
    if (t - quietSince >= idleMs) {
      e = turns === 'waiting' ? { why: `no client for ${s} while every running turn waited on a person`, stopTurns: `Stopped: this turn waited on a person, and no window was connected for ${s}; the server exits (serve --idle-exit).` } : { why: `idle for ${s} with no client` };
    } else if (turns === 'working' && t - noClientSince >= idleMs * TURN_CEILING_FACTOR) {
      e = { why: `a turn worked ${ceiling} with no client`, stopTurns: `Stopped: this turn ran ${ceiling} with no window connected, the most an unattended turn may (${TURN_CEILING_FACTOR} × the ${s} of serve --idle-exit); the server exits.` };
    }
    if (e) {
      clearInterval(timer);
      exit(e);
    }
  };
  const timer = setInterval(tick, Math.max(50, Math.min(5000, idleMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}

/** 120 s → "2 min", 1.5 s → "1.5 s". */
function span(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 100) / 10} s`;
}
