import type { SandboxMode } from '../../protocol/index.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { LocalOpener } from '../sessions/local-opener.js';
import type { SessionSource } from '../sessions/session-source.js';
import type { SessionDeps } from '../turn-host.js';

// What createCore takes in fleet mode (its `fleet` option, built by connectFleetStore). Only this
// type is imported statically: the code behind it loads with the Redis store, in fleet mode only.

/** A fleet this server belongs to, as the core uses it. */
export interface Fleet {
  /** This server's name in the fleet. */
  readonly instanceId: string;
  /** Where the table gets sessions: written here, or followed from the server that writes them. */
  source(deps: SessionDeps, local: LocalOpener, sandbox: SandboxMode): SessionSource;
  /** Serves the commands other servers send here for the sessions this one writes. */
  serve(sessions: { open(id: string): Promise<LiveSession> }): void;
}
