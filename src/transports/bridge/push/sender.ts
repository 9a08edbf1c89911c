// Sends one Web Push message (RFC 8030) to a browser's push service: the encrypted body
// (encrypt.ts), ferret's VAPID signature (vapid.ts), a TTL and an urgency. A 404 or 410 means
// the browser dropped the subscription: the caller forgets it.
import { isIP } from 'node:net';
import { z } from 'zod';
import { checkKeys, encryptPush } from './encrypt.js';
import { vapidAuthorization, type VapidKeys } from './vapid.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A subscription as a browser's PushSubscription.toJSON() gives it. The endpoint must be https
 * (plain http only to loopback, for tests): ferret POSTs to it, so it must not be a way into the
 * LAN for whoever holds a device key.
 */
export const PushSubscriptionInput = z.object({
  endpoint: z
    .string()
    .max(2048)
    .refine((s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'https:' ? !(isIP(u.hostname.replace(/^\[|\]$/g, '')) && !LOOPBACK.has(u.hostname)) : u.protocol === 'http:' && LOOPBACK.has(u.hostname);
      } catch {
        return false;
      }
    }, 'endpoint must be an https URL of a push service (http only to loopback)'),
  keys: z
    .object({ p256dh: z.string().max(200), auth: z.string().max(100) })
    .superRefine((k, ctx) => {
      try {
        checkKeys(k);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInput>;

export interface PushMessage {
  /** Seconds the push service may hold it for an offline browser. */
  ttl: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A newer message with the same topic replaces one not yet delivered (≤ 32 base64url chars). */
  topic?: string;
  body: object;
}

export type SendResult = 'sent' | 'gone' | { error: string };

export async function sendPush(sub: PushSubscriptionInput, msg: PushMessage, vapid: VapidKeys, subject: string, doFetch: typeof fetch = fetch): Promise<SendResult> {
  const body = encryptPush(sub.keys, Buffer.from(JSON.stringify(msg.body)));
  try {
    const res = await doFetch(sub.endpoint, {
      method: 'POST',
      headers: {
        TTL: String(msg.ttl),
        Urgency: msg.urgency,
        ...(msg.topic ? { Topic: msg.topic } : {}),
        'Content-Encoding': 'aes128gcm',
        'Content-Type': 'application/octet-stream',
        Authorization: vapidAuthorization(vapid, sub.endpoint, subject),
      },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status === 404 || res.status === 410) return 'gone';
    if (res.status >= 200 && res.status < 300) return 'sent';
    return { error: `push service answered ${res.status}` };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
