// A loopback Web Push service that speaks the real protocol (RFC 8030 delivery, RFC 8291
// payload encryption, RFC 8292 VAPID): it hands out subscriptions whose private keys it keeps,
// like a browser would, and for each POST checks the headers, verifies the VAPID JWT against
// the `k=` key, decrypts the body as the browser would, and keeps what it read.
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ReceivedPush {
  subscription: string;
  headers: IncomingMessage['headers'];
  /** The VAPID public key (`k=`) that signed it. */
  vapidKey: string;
  claims: { aud: string; exp: number; sub: string };
  /** The decrypted payload, as text. */
  text: string;
  /** The raw body, as it crossed the wire. */
  body: Buffer;
}

interface Sub {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  gone: boolean;
}

const hkdf = (ikm: Buffer, salt: Buffer, info: string | Buffer, len: number): Buffer => Buffer.from(hkdfSync('sha256', ikm, salt, info, len));

/** RFC 8291 decryption with the subscription's private key (one record, as push messages are). */
export function decryptPush(body: Buffer, uaPrivate: Buffer, auth: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body.readUInt8(20);
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid must be the 65-byte sender key, was ${idlen}`);
  if (record.length > rs) throw new Error('record longer than the record size');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const uaPublic = ecdh.getPublicKey();
  const ikm = hkdf(ecdh.computeSecret(asPublic), auth, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]), 32);
  const cek = hkdf(ikm, salt, 'Content-Encoding: aes128gcm\0', 16);
  const nonce = hkdf(ikm, salt, 'Content-Encoding: nonce\0', 12);
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([d.update(record.subarray(0, record.length - 16)), d.final()]);
  // Strip padding back to the delimiter; 0x02 = the last record.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end);
}

/** Checks `Authorization: vapid t=JWT, k=KEY`: ES256 over header.claims with KEY, aud = our origin, exp within 24 h. */
export function verifyVapid(header: string | undefined, origin: string): { key: string; claims: ReceivedPush['claims'] } {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [h, c, s] = m[1]!.split('.') as [string, string, string];
  const key = Buffer.from(m[2]!, 'base64url');
  const pub = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: key.subarray(1, 33).toString('base64url'), y: key.subarray(33).toString('base64url') }, format: 'jwk' });
  const head = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string };
  if (head.alg !== 'ES256') throw new Error(`alg ${head.alg}`);
  if (!verify('sha256', Buffer.from(`${h}.${c}`), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as ReceivedPush['claims'];
  const now = Date.now() / 1000;
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Error(`exp ${claims.exp} not within 24 h`);
  if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error(`sub ${claims.sub}`);
  return { key: m[2]!, claims };
}

export interface PushService {
  origin: string;
  received: ReceivedPush[];
  /** Refusals, each with why (a bad header, a signature, a body that did not decrypt). */
  refused: string[];
  /** A new subscription, as PushSubscription.toJSON() gives it. */
  subscribe(): { endpoint: string; keys: { p256dh: string; auth: string } };
  /** The browser unsubscribed: later messages get 410. */
  drop(endpoint: string): void;
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const subs = new Map<string, Sub>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      const sub = id ? subs.get(id) : undefined;
      if (req.method !== 'POST' || !sub) return void res.writeHead(404).end();
      if (sub.gone) return void res.writeHead(410).end();
      try {
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${req.headers['content-encoding']}`);
        if (!/^\d+$/.test(String(req.headers['ttl'] ?? ''))) throw new Error(`TTL ${req.headers['ttl']}`);
        const { key, claims } = verifyVapid(req.headers.authorization, origin);
        const body = Buffer.concat(chunks);
        const text = decryptPush(body, sub.ecdh.getPrivateKey(), sub.auth).toString('utf8');
        received.push({ subscription: `${origin}/push/${id}`, headers: req.headers, vapidKey: key, claims, text, body });
        res.writeHead(201, { location: `${origin}/message/${randomBytes(6).toString('hex')}` }).end();
      } catch (err) {
        refused.push((err as Error).message);
        res.writeHead(400).end((err as Error).message);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    received,
    refused,
    subscribe: () => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const id = randomBytes(8).toString('hex');
      const auth = randomBytes(16);
      subs.set(id, { ecdh, auth, gone: false });
      return { endpoint: `${origin}/push/${id}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    drop: (endpoint) => {
      const s = subs.get(endpoint.split('/').at(-1)!);
      if (s) s.gone = true;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
