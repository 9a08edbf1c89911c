// One prompt in a new session, with the permission question it raises answered (or not asked
// for): what the approval e2e tests share.
import type { FerretClient, Json } from './ferret-client.mjs';

export interface AnsweredTurn {
  sid: string;
  /** The permission question, when one was awaited and answered. */
  asked: Json | undefined;
}

export async function answeredTurn(srv: FerretClient, text: string, answer?: string): Promise<AnsweredTurn> {
  const sid = (await srv.call('session/new', {}))['sessionId'] as string;
  const reply = srv.call('session/message', { sessionId: sid, text });
  let asked: Json | undefined;
  if (answer) {
    asked = (await srv.waitFor((x) => x['params']?.kind === 'permission_request', 20_000))['params'] as Json;
    await srv.call('permission/respond', { sessionId: sid, id: asked['id'], decision: answer });
  }
  await reply;
  return { sid, asked };
}
