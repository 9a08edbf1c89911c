// The cloud bridge's shared vocabulary (docs/cloud-bridge.md): what `session/bridgeStatus`,
// `_ferret/bridgeStatus` and GET /session/:id/bridge answer, the relay URL rule, and the frames
// the relay moves between a bridged server and its remote clients. Pure: no sockets, no crypto.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

export const BridgeStatusSchema = lazySchema(() =>
  z.object({
    /** Whether this server holds a live connection to its relay now. */
    attached: z.boolean(),
    /** The relay this server dials (ws:// or wss://); null: no bridge configured. */
    relay: z.string().nullable(),
    /** The link a new device opens to pair (its secret rides in the fragment); null: no bridge. */
    pairingUrl: z.string().nullable(),
    /** Remote devices connected through the relay now. */
    devices: z.number().int().nonnegative(),
    /** Why the last connection to the relay failed or ended, if it did. */
    lastError: z.string().nullable(),
    /** Attempts to reconnect since the last time the bridge was attached. */
    reconnects: z.number().int().nonnegative(),
  }),
);
export type BridgeStatus = z.infer<typeof BridgeStatusSchema>;

/** What a server with no bridge answers. */
export const NO_BRIDGE: BridgeStatus = { attached: false, relay: null, pairingUrl: null, devices: 0, lastError: null, reconnects: 0 };

/** Why a relay URL is refused, or undefined: ws:// only to loopback (a plain socket elsewhere is readable on the way), else wss://. */
export function relayUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL: give the relay as wss://HOST[:PORT] (ws:// only for 127.0.0.1 or localhost)`;
  }
  if (u.protocol === 'wss:') return undefined;
  if (u.protocol !== 'ws:') return `the relay URL must start with wss:// (or ws:// for loopback), not ${u.protocol}`;
  const h = u.hostname.replace(/^\[|\]$/g, '');
  const loopback = h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
  return loopback ? undefined : `plain ws:// is allowed only to a loopback relay; use wss://${u.host}`;
}

/** The page a person opens to pair: the relay's own origin over http(s), the secret in the fragment (never sent to the relay). */
export function pairingUrl(relay: string, route: string, secret: string): string {
  const u = new URL(relay);
  const origin = `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}`;
  return `${origin}/#pair=${route}.${secret}`;
}

// Frames between a bridged server and its relay (one binary WebSocket message each):
// [op: 1 byte][client connection id: 4 bytes, big-endian][payload]. The relay tells the server a
// client came (open) or went (close); data carries a client's bytes, which the relay never reads.
export const RELAY_OP = { open: 1, data: 2, close: 3 } as const;
export type RelayOp = (typeof RELAY_OP)[keyof typeof RELAY_OP];

export function encodeRelayFrame(op: RelayOp, cid: number, payload?: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(op, 0);
  head.writeUInt32BE(cid >>> 0, 1);
  return payload && payload.length > 0 ? Buffer.concat([head, payload]) : head;
}

export function decodeRelayFrame(buf: Buffer): { op: RelayOp; cid: number; payload: Buffer } | undefined {
  if (buf.length < 5) return undefined;
  const op = buf.readUInt8(0);
  if (op !== RELAY_OP.open && op !== RELAY_OP.data && op !== RELAY_OP.close) return undefined;
  return { op, cid: buf.readUInt32BE(1), payload: buf.subarray(5) };
}

/** WebSocket close codes the relay uses toward clients: no server on that route (try again later), a bad request. */
export const RELAY_CLOSE = { noServer: 4404, badRequest: 4400, serverGone: 4410, refused: 4403 } as const;
