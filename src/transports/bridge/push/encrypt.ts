// RFC 8291 message encryption for Web Push (Content-Encoding: aes128gcm, RFC 8188), with
// node:crypto alone. The browser's subscription gives its P-256 public key (p256dh) and a
// 16-byte auth secret; each message uses a fresh sender key pair and salt, so only that
// browser can read it and the push service (Google, Mozilla, Apple) carries ciphertext.
import { createCipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/** One record is all a push message needs; 4096 is what push services accept as a body. */
const RECORD_SIZE = 4096;
const HEADER_BYTES = 16 + 4 + 1 + 65;
/** The most plaintext one message holds: the record, less the tag and the delimiter octet. */
export const MAX_PLAINTEXT = RECORD_SIZE - HEADER_BYTES - 16 - 1;

export interface PushKeys {
  /** The browser's public key: 65 bytes, uncompressed P-256, base64url. */
  p256dh: string;
  /** The browser's auth secret: 16 bytes, base64url. */
  auth: string;
}

/** Fixed sender key and salt: only for checking against RFC 8291's worked example. */
export interface FixedInputs {
  asPrivate: Buffer;
  salt: Buffer;
}

const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer, len: number): Buffer => Buffer.from(hkdfSync('sha256', ikm, salt, info, len));

/** Checks the subscription keys' sizes, naming the field that is wrong. */
export function checkKeys(keys: PushKeys): { uaPublic: Buffer; auth: Buffer } {
  const uaPublic = Buffer.from(keys.p256dh, 'base64url');
  const auth = Buffer.from(keys.auth, 'base64url');
  if (uaPublic.length !== 65 || uaPublic[0] !== 4) throw new Error('keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)');
  if (auth.length !== 16) throw new Error('keys.auth must be 16 bytes, base64url');
  return { uaPublic, auth };
}

/** The body of a push message: header (salt, record size, sender key) ‖ the one sealed record. */
export function encryptPush(keys: PushKeys, plaintext: Buffer, fixed?: FixedInputs): Buffer {
  const { uaPublic, auth } = checkKeys(keys);
  if (plaintext.length > MAX_PLAINTEXT) throw new Error(`a push message holds at most ${MAX_PLAINTEXT} bytes`);
  const ecdh = createECDH('prime256v1');
  if (fixed) ecdh.setPrivateKey(fixed.asPrivate);
  else ecdh.generateKeys();
  const asPublic = ecdh.getPublicKey();
  const salt = fixed?.salt ?? randomBytes(16);
  const shared = ecdh.computeSecret(uaPublic);
  // RFC 8291 §3.4: the auth secret and both public keys bind the input key to this subscription.
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = hkdf(shared, auth, keyInfo, 32);
  const cek = hkdf(ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12);
  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  // 0x02 marks the last (and only) record; no padding.
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.update(Buffer.from([2])), cipher.final(), cipher.getAuthTag()]);
  const header = Buffer.alloc(HEADER_BYTES);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header.writeUInt8(65, 20);
  asPublic.copy(header, 21);
  return Buffer.concat([header, sealed]);
}
