// VAPID (RFC 8292): ferret signs each push request with its own P-256 key, so a push service
// accepts messages for a subscription only from the server whose public key the browser
// subscribed with. The key pair is made once and kept in the bridge identity (mode 0600).
import { createECDH, createPrivateKey, sign, type KeyObject } from 'node:crypto';

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url: the browser's applicationServerKey and the `k=` parameter. */
  publicKey: string;
  /** The 32-byte scalar, base64url. */
  privateKey: string;
}

export function newVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: ecdh.getPrivateKey().toString('base64url') };
}

function signingKey(keys: VapidKeys): KeyObject {
  const pub = Buffer.from(keys.publicKey, 'base64url');
  return createPrivateKey({
    key: { kty: 'EC', crv: 'P-256', x: pub.subarray(1, 33).toString('base64url'), y: pub.subarray(33, 65).toString('base64url'), d: keys.privateKey },
    format: 'jwk',
  });
}

const part = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * The `Authorization` header for one push service: an ES256 JWT whose audience is the
 * endpoint's origin, valid 12 hours (the RFC allows at most 24), and ferret's public key.
 */
export function vapidAuthorization(keys: VapidKeys, endpoint: string, subject: string, now = Date.now()): string {
  const unsigned = `${part({ typ: 'JWT', alg: 'ES256' })}.${part({ aud: new URL(endpoint).origin, exp: Math.floor(now / 1000) + 12 * 3600, sub: subject })}`;
  // JWS wants r ‖ s (64 bytes), not DER.
  const sig = sign('sha256', Buffer.from(unsigned), { key: signingKey(keys), dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `vapid t=${unsigned}.${sig}, k=${keys.publicKey}`;
}
