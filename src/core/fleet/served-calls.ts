import { FerretError } from '../../protocol/index.js';
import type { FleetCall } from '../../store/session-store.js';
import { LocalSession } from '../session/local-session.js';
import type { LiveSession } from '../sessions/live-session.js';
import { FollowedSession } from './followed-session.js';

/**
 * A command another fleet server sent for a session this one writes (its follower's client):
 * run here as if a client of this server sent it. A session this server only follows is refused,
 * naming its writer (the sender then learns who writes it).
 */
export async function servedCall(sessions: { open(id: string): Promise<LiveSession> }, instanceId: string, call: FleetCall): Promise<unknown> {
  const s = await sessions.open(call.sessionId);
  const local = s instanceof FollowedSession ? s.local : s instanceof LocalSession ? s : undefined;
  if (!local) {
    const owner = s instanceof FollowedSession ? s.writtenBy : undefined;
    throw new FerretError('session_busy', `session ${call.sessionId} is not written by ferret instance ${instanceId}`, { owner });
  }
  switch (call.op) {
    case 'startTurn':
      // The follower chose the turn id: it tells its client's turn by it.
      return local.startTurn(call.text, { origin: call.origin, turnId: call.turnId }).done;
    case 'cancel':
      return local.cancel();
    case 'respondPermission':
      return local.respondPermission(call.requestId, call.decision, call.by);
    case 'setMode':
      return local.setMode(call.mode);
    case 'setModel':
      return local.setModel(call.model);
    case 'setApproval':
      return local.setApproval(call.preset);
  }
}
