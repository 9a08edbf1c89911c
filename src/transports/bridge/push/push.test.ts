import { describe, expect, it } from 'vitest';
import { decryptPush, startPushService, verifyVapid } from '../../../../test/support/push-service.js';
import { encryptPush } from './encrypt.js';
import { sendPush } from './sender.js';
import { newVapidKeys, vapidAuthorization } from './vapid.js';

// RFC 8291 §5 and Appendix A, the worked example.
const RFC = {
  plaintext: 'When I grow up, I want to be a watermelon',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  body: 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};
const b = (s: string) => Buffer.from(s, 'base64url');

describe('Web Push', () => {
  it('encrypts RFC 8291’s example to the very bytes the RFC gives', () => {
    const body = encryptPush({ p256dh: RFC.uaPublic, auth: RFC.auth }, Buffer.from(RFC.plaintext), { asPrivate: b(RFC.asPrivate), salt: b(RFC.salt) });
    expect(body.toString('base64url')).toBe(RFC.body);
    expect(decryptPush(body, b(RFC.uaPrivate), b(RFC.auth)).toString()).toBe(RFC.plaintext);
  });

  it('uses a fresh sender key and salt for every message, and only the subscriber can read it', () => {
    const keys = { p256dh: RFC.uaPublic, auth: RFC.auth };
    const one = encryptPush(keys, Buffer.from('x'));
    const two = encryptPush(keys, Buffer.from('x'));
    expect(one.subarray(0, 86).equals(two.subarray(0, 86))).toBe(false);
    expect(decryptPush(one, b(RFC.uaPrivate), b(RFC.auth)).toString()).toBe('x');
    expect(() => decryptPush(one, b(RFC.asPrivate), b(RFC.auth))).toThrow();
  });

  it('names the bad key of a subscription', () => {
    expect(() => encryptPush({ p256dh: 'AAAA', auth: RFC.auth }, Buffer.from('x'))).toThrow(/keys\.p256dh/);
    expect(() => encryptPush({ p256dh: RFC.uaPublic, auth: 'AAAA' }, Buffer.from('x'))).toThrow(/keys\.auth/);
  });

  it('signs a VAPID JWT (ES256) for the endpoint’s origin that verifies with the key it names', () => {
    const vapid = newVapidKeys();
    const header = vapidAuthorization(vapid, 'https://push.example.net/w/abc?x=1', 'mailto:ops@example.org');
    const { key, claims } = verifyVapid(header, 'https://push.example.net');
    expect(key).toBe(vapid.publicKey);
    expect(claims.sub).toBe('mailto:ops@example.org');
    const other = newVapidKeys();
    const forged = header.replace(/k=[\w-]+$/, `k=${other.publicKey}`);
    expect(() => verifyVapid(forged, 'https://push.example.net')).toThrow(/does not verify/);
  });

  it('delivers to a push service speaking the protocol, and reports a dropped subscription as gone', async () => {
    const svc = await startPushService();
    try {
      const sub = svc.subscribe();
      const vapid = newVapidKeys();
      const msg = { ttl: 60, urgency: 'high' as const, topic: 'abc', body: { v: 1, kind: 'permission' } };
      expect(await sendPush(sub, msg, vapid, 'mailto:ops@example.org')).toBe('sent');
      expect(svc.refused).toEqual([]);
      expect(svc.received).toHaveLength(1);
      expect(JSON.parse(svc.received[0]!.text)).toEqual({ v: 1, kind: 'permission' });
      expect(svc.received[0]!.headers).toMatchObject({ ttl: '60', urgency: 'high', topic: 'abc', 'content-encoding': 'aes128gcm' });
      svc.drop(sub.endpoint);
      expect(await sendPush(sub, msg, vapid, 'mailto:ops@example.org')).toBe('gone');
    } finally {
      await svc.close();
    }
  });
});
