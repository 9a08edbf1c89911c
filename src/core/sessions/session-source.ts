import type { LiveSession } from './live-session.js';

/**
 * Where the table gets a session that is not in memory. A single server writes every session it
 * opens (LocalOpener); a fleet server decides per session whether to write it or follow the
 * server that does (core/fleet/). The table itself knows neither.
 */
export interface SessionSource {
  /** Loads a session that is not in memory; `write: false` is a read (a fleet leaves a session no one writes to the next command). */
  open(id: string, write: boolean): Promise<LiveSession>;
  /** Whether a live session must be looked at again before a use (a followed one: caught up, or taken over). */
  stale(s: LiveSession): boolean;
  /** That second look; the same session, moved on. */
  revisit(s: LiveSession, write: boolean): Promise<LiveSession>;
  /** This server's name in its fleet (undefined: a single server). */
  readonly instance: string | undefined;
  /** Where to send a command for this session (undefined: it is served here). */
  forwardTarget(s: LiveSession | undefined): Promise<{ instance: string; url: string | undefined } | undefined>;
}
