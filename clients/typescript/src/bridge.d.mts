import type { FetchLike } from './sse.mjs';

/** A device a server paired: its id and the key it proves itself with (keep it secret, like a password). */
export interface BridgeDevice {
  id: string;
  key: string;
}

export interface BridgeTunnelOptions {
  /** The relay's WebSocket URL (ws:// or wss://, no path). */
  relay: string;
  /** The server's route (from the pairing link). */
  route: string;
  /** The pairing secret (from the link's fragment): for a device not paired yet. */
  secret?: string;
  /** A device paired before (from onDevice): used instead of the secret. */
  device?: BridgeDevice;
  /** The name the server lists the device under (`chimera ferret bridge devices`). */
  name?: string;
  /** Called once after pairing with the device to keep for next time. */
  onDevice?: (device: BridgeDevice) => void;
  /** How long fetch keeps dialling while ferret is not on the relay (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** A WebSocket constructor (the `ws` package on Node 20, which has no global one). */
  WebSocket?: unknown;
}

export declare function toB64url(bytes: Uint8Array): string;
export declare function fromB64url(text: string): Uint8Array;
/** `https://relay/#pair=ROUTE.SECRET` → its parts; undefined if the URL is not a pairing link. */
export declare function parsePairingLink(link: string): { relay: string; route: string; secret: string } | undefined;

/** One connection's frame cipher (exported for tests of the wire format). */
export declare class FrameCipher {
  static derive(secret: Uint8Array, clientNonce: Uint8Array, serverNonce: Uint8Array): Promise<FrameCipher>;
  seal(plain: Uint8Array): Promise<Uint8Array>;
  open(frame: Uint8Array): Promise<Uint8Array>;
}

/** A fetch that reaches a ferret server through its relay, end-to-end encrypted. */
export declare class BridgeTunnel {
  constructor(opts: BridgeTunnelOptions);
  /** The paired device, once known. */
  readonly device: BridgeDevice | undefined;
  readonly fetch: FetchLike;
  /** ferret's VAPID public key (base64url), the browser's applicationServerKey; known once connected. */
  readonly pushKey: string | undefined;
  /** Turns Web Push on for this device (a PushSubscription or its JSON), or off with null; rejects with ferret's reason. */
  setPush(subscription: PushSubscriptionLike | null): Promise<void>;
  close(): void;
}

/** What a browser's PushSubscription.toJSON() gives. */
export interface PushSubscriptionLike {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}
