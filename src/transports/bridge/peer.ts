// One remote client behind the relay, from its clear hello to its encrypted requests.
// hello (clear): {v:1, kind:'pair'|'device', device?, nonce} → the server's {v:1, nonce}; then
// every frame is sealed (crypto.ts). A pairing connection must first send {t:'pair', name} and
// gets its device key back ({t:'paired'}); a device connection sends {t:'hi'} and gets {t:'ready'}.
// Then {t:'req'} → {t:'head'}, {t:'data'}…, {t:'end'}; {t:'abort'} ends a request early.
// {t:'push', id, subscription} (or null) turns this device's Web Push on (off) → {t:'pushed', id};
// `paired` and `ready` carry ferret's VAPID public key (`push`) for the browser to subscribe with.
// Anything that does not decrypt, arrives out of order or does not parse closes the connection.
import { z } from 'zod';
import { directionKey, FrameRefused, fromB64url, newNonce, Opener, Sealer, b64url, NONCE_BYTES } from './crypto.js';
import type { HttpTunnel } from './http-tunnel.js';
import { PushSubscriptionInput } from './push/sender.js';

const Hello = z.object({
  v: z.literal(1),
  kind: z.enum(['pair', 'device']),
  device: z.string().max(64).optional(),
  nonce: z.string().refine((s) => fromB64url(s).length === NONCE_BYTES, `nonce must be ${NONCE_BYTES} bytes, base64url`),
});

const Inner = z.discriminatedUnion('t', [
  z.object({ t: z.literal('pair'), name: z.string().max(80) }),
  z.object({ t: z.literal('hi') }),
  z.object({
    t: z.literal('req'),
    id: z.number().int().nonnegative(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
    path: z.string().startsWith('/').max(4096),
    headers: z.record(z.string(), z.string()).default({}),
    body: z.string().optional(),
  }),
  z.object({ t: z.literal('abort'), id: z.number().int().nonnegative() }),
  // Validated apart (pushed answers a bad one with its reason, the connection stays).
  z.object({ t: z.literal('push'), id: z.number().int().nonnegative(), subscription: z.unknown() }),
]);

/** What a peer asks of the bridge: keys, a new device, the tunnel. */
export interface PeerHost {
  /** The key for a hello, or undefined to refuse it (an unknown or revoked device). */
  keyFor(kind: 'pair' | 'device', device: string | undefined): Buffer | undefined;
  pairDevice(name: string): { id: string; key: string };
  /** ferret's VAPID public key, for the browser's applicationServerKey. */
  pushKey(): string;
  /** Keeps (null: forgets) a device's push subscription. */
  setPush(device: string, subscription: PushSubscriptionInput | null): void;
  tunnel: HttpTunnel;
  send(frame: Buffer): void;
  /** Ends the connection at the relay (refused or done). */
  drop(why: string): void;
}

export class Peer {
  private sealer: Sealer | undefined;
  private opener: Opener | undefined;
  private kind: 'pair' | 'device' = 'device';
  private authed = false;
  /** The device this connection speaks for, once known (undefined: a pairing not finished). */
  device: string | undefined;
  private readonly requests = new Map<number, () => void>();

  constructor(private readonly host: PeerHost) {}

  get ready(): boolean {
    return this.authed;
  }

  receive(payload: Buffer): void {
    try {
      if (!this.opener) this.hello(payload);
      else this.frame(this.opener.open(payload));
    } catch (err) {
      this.host.drop(err instanceof FrameRefused ? err.message : `bad frame: ${(err as Error).message}`);
    }
  }

  private hello(payload: Buffer): void {
    const h = Hello.parse(JSON.parse(payload.toString('utf8')));
    const key = this.host.keyFor(h.kind, h.device);
    if (!key) throw new FrameRefused(h.kind === 'device' ? 'unknown or revoked device' : 'pairing closed');
    const serverNonce = newNonce();
    const clientNonce = fromB64url(h.nonce);
    this.kind = h.kind;
    if (h.kind === 'device') this.device = h.device;
    this.opener = new Opener(directionKey(key, clientNonce, serverNonce, 'c2s'));
    this.sealer = new Sealer(directionKey(key, clientNonce, serverNonce, 's2c'));
    this.host.send(Buffer.from(JSON.stringify({ v: 1, nonce: b64url(serverNonce) })));
  }

  private frame(plain: Buffer): void {
    const m = Inner.parse(JSON.parse(plain.toString('utf8')));
    if (!this.authed) {
      // The first sealed frame proves the key; it must say what the connection is for.
      if (m.t === 'pair' && this.kind === 'pair') {
        const d = this.host.pairDevice(m.name);
        this.device = d.id;
        this.authed = true;
        this.post({ t: 'paired', device: d.id, key: d.key, push: this.host.pushKey() });
      } else if (m.t === 'hi' && this.kind === 'device') {
        this.authed = true;
        this.post({ t: 'ready', push: this.host.pushKey() });
      } else throw new FrameRefused(`a ${this.kind} connection must open with ${this.kind === 'pair' ? 'pair' : 'hi'}`);
      return;
    }
    if (m.t === 'req') {
      const id = m.id;
      this.requests.get(id)?.();
      const cancel = this.host.tunnel.request(
        { method: m.method, path: m.path, headers: m.headers, body: m.body },
        {
          head: (status, headers) => this.post({ t: 'head', id, status, headers }),
          data: (chunk) => this.post({ t: 'data', id, chunk }),
          end: (error) => {
            this.requests.delete(id);
            this.post(error ? { t: 'end', id, error } : { t: 'end', id });
          },
        },
      );
      this.requests.set(id, cancel);
    } else if (m.t === 'push') {
      const parsed = m.subscription === null ? { success: true as const, data: null } : PushSubscriptionInput.safeParse(m.subscription);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        this.post({ t: 'pushed', id: m.id, ok: false, error: `subscription.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` });
      } else {
        this.host.setPush(this.device!, parsed.data);
        this.post({ t: 'pushed', id: m.id, ok: true });
      }
    } else if (m.t === 'abort') {
      this.requests.get(m.id)?.();
      this.requests.delete(m.id);
    }
  }

  private post(msg: object): void {
    if (this.sealer) this.host.send(this.sealer.seal(Buffer.from(JSON.stringify(msg))));
  }

  /** The connection is gone: its requests (SSE streams) end here. */
  close(): void {
    for (const cancel of this.requests.values()) cancel();
    this.requests.clear();
    this.sealer = undefined;
  }
}
