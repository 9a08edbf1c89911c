// End-to-end encryption between ferret and one remote client (docs/cloud-bridge.md#encryption).
// Both sides add a random 16-byte nonce in the clear hello; from the shared key K (the pairing
// secret or a device key) each derives two AES-256-GCM keys with HKDF-SHA256 (salt = client
// nonce ‖ server nonce), one per direction, so a connection's keys are new every time and an old
// connection's frames mean nothing on a new one. A frame is seq (8 bytes, big-endian, also the
// AAD and the low 8 bytes of the IV) ‖ ciphertext ‖ tag; a receiver takes only the next seq, so a
// replayed, dropped or reordered frame is refused as surely as an altered one.
// The browser side (clients/typescript/src/bridge.mjs) does the same with WebCrypto.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export const NONCE_BYTES = 16;
const TAG_BYTES = 16;
const SEQ_BYTES = 8;

export type Direction = 'c2s' | 's2c';

/** The key of one direction of one connection. */
export function directionKey(secret: Buffer, clientNonce: Buffer, serverNonce: Buffer, dir: Direction): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.concat([clientNonce, serverNonce]), `ferret-bridge/1 ${dir}`, 32));
}

export const newNonce = (): Buffer => randomBytes(NONCE_BYTES);

function iv(seq: Buffer): Buffer {
  return Buffer.concat([Buffer.alloc(4), seq]);
}

/** Seals frames in order: each call uses the next sequence number. */
export class Sealer {
  private seq = 0n;
  constructor(private readonly key: Buffer) {}

  seal(plain: Buffer): Buffer {
    const seq = Buffer.alloc(SEQ_BYTES);
    seq.writeBigUInt64BE(this.seq++);
    const c = createCipheriv('aes-256-gcm', this.key, iv(seq));
    c.setAAD(seq);
    const body = Buffer.concat([c.update(plain), c.final()]);
    return Buffer.concat([seq, body, c.getAuthTag()]);
  }
}

export class FrameRefused extends Error {}

/** Opens frames in order: a frame out of sequence, or one that fails authentication, throws FrameRefused. */
export class Opener {
  private seq = 0n;
  constructor(private readonly key: Buffer) {}

  open(frame: Buffer): Buffer {
    if (frame.length < SEQ_BYTES + TAG_BYTES) throw new FrameRefused('frame too short');
    const seq = frame.subarray(0, SEQ_BYTES);
    const n = seq.readBigUInt64BE();
    if (n !== this.seq) throw new FrameRefused(n < this.seq ? `replayed frame (seq ${n}, expected ${this.seq})` : `frame out of order (seq ${n}, expected ${this.seq})`);
    const d = createDecipheriv('aes-256-gcm', this.key, iv(seq));
    d.setAAD(seq);
    d.setAuthTag(frame.subarray(frame.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([d.update(frame.subarray(SEQ_BYTES, frame.length - TAG_BYTES)), d.final()]);
    } catch {
      throw new FrameRefused('frame failed authentication (altered, or sealed with another key)');
    }
    this.seq++;
    return plain;
  }
}

export const b64url = (b: Buffer): string => b.toString('base64url');
export const fromB64url = (s: string): Buffer => Buffer.from(s, 'base64url');
