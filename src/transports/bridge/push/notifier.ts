// Web Push for the moments the agent waits for a person. What is sent, and to whom:
// - a permission request: to every device that opted in, console open or not (a phone in a
//   pocket keeps its socket for a while; the service worker stays quiet when a console window
//   of that origin is visible, so nobody gets both);
// - a finished turn: only to devices with no live bridge connection (nobody is watching).
// The payload says what happened and which session (its random id), nothing more: no title
// (it is made from the prompt), no tool, path, command or code. The console fetches the rest
// through the encrypted bridge when the person taps the notification.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Sessions } from '../../../core/index.js';
import type { SessionEvent } from '../../../protocol/index.js';
import { loadIdentity, setDevicePush, vapidKeys } from '../identity.js';
import { sendPush, type PushMessage } from './sender.js';

export interface PushNotifierOptions {
  manager: Sessions;
  home: string;
  logger: Logger;
  /** Whether a device has a live, authenticated bridge connection now. */
  connected(deviceId: string): boolean;
  /** RFC 8292's `sub`: how a push service reaches whoever runs this server. */
  subject?: string;
  fetch?: typeof fetch;
}

/** What the service worker receives (console/sw.js). */
export interface PushBody {
  v: 1;
  kind: 'permission' | 'turn_end';
  sessionId: string;
  stopReason?: string;
}

const topic = (kind: string, sessionId: string): string => createHash('sha256').update(`${kind}:${sessionId}`).digest('base64url').slice(0, 32);

function messageFor(e: SessionEvent): { msg: PushMessage; everyone: boolean } | undefined {
  if (e.type === 'permission_requested') {
    const body: PushBody = { v: 1, kind: 'permission', sessionId: e.sessionId };
    return { msg: { ttl: 3600, urgency: 'high', topic: topic('permission', e.sessionId), body }, everyone: true };
  }
  if (e.type === 'turn_end') {
    const body: PushBody = { v: 1, kind: 'turn_end', sessionId: e.sessionId, stopReason: e.data.stopReason };
    return { msg: { ttl: 600, urgency: 'normal', topic: topic('turn', e.sessionId), body }, everyone: false };
  }
  return undefined;
}

/** Starts listening; the returned function stops. */
export function startPushNotifier(opts: PushNotifierOptions): () => void {
  const log = opts.logger.child({ part: 'push' });
  const subject = opts.subject ?? 'mailto:ferret@example.invalid';
  const deliver = async (msg: PushMessage, everyone: boolean): Promise<void> => {
    const id = loadIdentity(opts.home);
    const targets = id.devices.filter((d) => d.push && (everyone || !opts.connected(d.id)));
    if (targets.length === 0) return;
    const vapid = id.vapid ?? vapidKeys(opts.home);
    await Promise.all(
      targets.map(async (d) => {
        const result = await sendPush(d.push!, msg, vapid, subject, opts.fetch);
        if (result === 'gone') {
          setDevicePush(opts.home, d.id, null);
          log.info({ device: d.id }, 'push: the browser dropped its subscription; forgotten');
        } else if (result !== 'sent') log.warn({ device: d.id, error: result.error }, 'push: not delivered');
        else log.debug({ device: d.id }, 'push: sent');
      }),
    );
  };
  return opts.manager.observe((e) => {
    const m = messageFor(e);
    if (m) void deliver(m.msg, m.everyone).catch((err: unknown) => log.error({ err }, 'push: failed'));
  });
}
