import type { AgentMode, ApprovalPreset, TurnResult } from '../protocol/index.js';
import type { FleetCall } from '../store/session-store.js';
import type { Logger } from 'pino';
import type { Session } from './session.js';

// The commands a client waits on the answer of (the HTTP API's), run in one place whether they
// came from this server's own client or from another fleet server's (over the command channel):
// the answer an HTTP client gets is the same whichever server it reached.

type WithoutSession<T> = T extends unknown ? Omit<T, 'sessionId'> : never;

/** A command for a session, as a transport sends it (the session named apart). */
export type SessionCommand = WithoutSession<FleetCall>;

/** What each command answers with. */
export interface CommandAnswers {
  startTurn: TurnResult;
  beginTurn: { turnId: string };
  cancel: boolean;
  respondPermission: null;
  setMode: AgentMode;
  setModel: string;
  setApproval: { old: ApprovalPreset; new: ApprovalPreset };
  close: null;
}

export type CommandAnswer<C extends SessionCommand> = CommandAnswers[C['op']];

/** How long a command other than a turn may take to be answered by the server that writes the session. */
export const COMMAND_WAIT_MS = 30_000;

/**
 * Runs a command on a session this server writes. `close` is the manager's (a session leaves
 * memory), the rest the session's own methods.
 */
export async function runCommand(s: Session, call: Exclude<SessionCommand, { op: 'close' }>, logger: Logger): Promise<unknown> {
  switch (call.op) {
    case 'startTurn':
      return s.startTurn(call.text, call.origin, call.turnId).done;
    case 'beginTurn': {
      const { turnId, done } = s.startTurn(call.text, call.origin);
      done.catch((err: unknown) => logger.error({ err, sessionId: s.id, turnId }, 'turn failed'));
      return { turnId };
    }
    case 'cancel':
      return s.cancel();
    case 'respondPermission':
      s.respondPermission(call.requestId, call.decision, call.by);
      return null;
    case 'setMode':
      return s.setMode(call.mode);
    case 'setModel':
      return s.setModel(call.model);
    case 'setApproval':
      return s.setApproval(call.preset);
  }
}
