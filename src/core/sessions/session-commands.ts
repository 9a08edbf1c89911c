import type { Logger } from 'pino';
import type { SessionCommand, SessionHandle, StartedTurn, TurnOptions } from '../api.js';
import { promptExtras } from '../session/turn-queue.js';

export type { CommandAnswer, SessionCommand } from '../api.js';

/** A session this server writes: a turn may be given the id its sender chose. */
type Written = SessionHandle & { startTurn(text: string, opts?: TurnOptions & { turnId?: string | undefined }): StartedTurn };

// The commands a client waits on the answer of (the HTTP API's), run in one place whether they
// came from this server's own client or from another fleet server's (over the command channel):
// the answer an HTTP client gets is the same whichever server it reached.

/** How long a command other than a turn may take to be answered by the server that writes the session. */
export const COMMAND_WAIT_MS = 30_000;

/**
 * Runs a command on a session this server writes. `close` is the manager's (a session leaves
 * memory), the rest the session's own methods.
 */
export async function runCommand(s: Written, call: Exclude<SessionCommand, { op: 'close' }>, logger: Logger): Promise<unknown> {
  switch (call.op) {
    case 'startTurn':
      return s.startTurn(call.text, { origin: call.origin, ...(call.turnId !== undefined ? { turnId: call.turnId } : {}), ...promptExtras(call) }).done;
    case 'beginTurn': {
      const { turnId, done } = s.startTurn(call.text, { origin: call.origin, ...promptExtras(call) });
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
    case 'setReasoning':
      return s.setReasoning(call.effort);
    case 'setApproval':
      return s.setApproval(call.preset);
    case 'rename':
      return s.rename(call.title);
  }
}
