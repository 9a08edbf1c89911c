import { FerretError } from '../../protocol/index.js';
import type { Logger } from 'pino';
import type { FleetCall } from '../../store/session-store.js';
import { runCommand } from '../sessions/session-commands.js';
import { LocalSession } from '../session/local-session.js';
import type { LiveSession } from '../sessions/live-session.js';
import { FollowedSession } from './followed-session.js';

/** What serving a call needs of the session table. */
export interface ServedSessions {
  open(id: string): Promise<LiveSession>;
  close(id: string): Promise<void>;
}

/**
 * A command another fleet server sent for a session this one writes (its follower's client):
 * run here as if a client of this server sent it (the one runner: sessions/session-commands.ts). A session this server only follows is refused,
 * naming its writer (the sender then learns who writes it).
 */
export async function servedCall(sessions: ServedSessions, instanceId: string, call: FleetCall, logger: Logger): Promise<unknown> {
  const s = await sessions.open(call.sessionId);
  const local = s instanceof FollowedSession ? s.local : s instanceof LocalSession ? s : undefined;
  if (!local) {
    const owner = s instanceof FollowedSession ? s.writtenBy : undefined;
    throw new FerretError('session_elsewhere', `session ${call.sessionId} is not written by ferret instance ${instanceId}`, { owner });
  }
  if (call.op === 'close') return sessions.close(call.sessionId).then(() => null);
  return runCommand(local, call, logger);
}
