// The remote side of ferret's cloud bridge (docs/cloud-bridge.md): a `fetch` that reaches a
// ferret server through a relay, end-to-end encrypted, so the web console and the typed client
// (createFerretClient({ fetch: tunnel.fetch })) work unchanged from a phone or a remote bot.
// WebCrypto only (browsers, Node 20); the relay sees routes, sizes and times, never a byte of
// the API. The framing and key schedule match src/transports/bridge/crypto.ts and peer.ts.

const enc = new TextEncoder();
const dec = new TextDecoder();

export function toB64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromB64url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A pairing link (`https://relay/#pair=ROUTE.SECRET`) → the relay's WebSocket URL, the route and the secret; undefined if it is not one. */
export function parsePairingLink(link) {
  const u = new URL(link);
  const m = /^#pair=([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(u.hash);
  if (!m) return undefined;
  return { relay: `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}`, route: m[1], secret: m[2] };
}

/** One direction's AES-256-GCM key from K and both nonces (HKDF-SHA256). */
async function directionKey(secret, salt, dir) {
  const base = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode(`ferret-bridge/1 ${dir}`) }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

function seqBytes(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

function iv(seq) {
  const b = new Uint8Array(12);
  b.set(seq, 4);
  return b;
}

/** Seals and opens one connection's frames in order (seq ‖ AES-GCM(ciphertext ‖ tag), seq as AAD). */
export class FrameCipher {
  constructor(sendKey, receiveKey) {
    this.sendKey = sendKey;
    this.receiveKey = receiveKey;
    this.sent = 0n;
    this.received = 0n;
  }

  static async derive(secret, clientNonce, serverNonce) {
    const salt = new Uint8Array(32);
    salt.set(clientNonce, 0);
    salt.set(serverNonce, 16);
    return new FrameCipher(await directionKey(secret, salt, 'c2s'), await directionKey(secret, salt, 's2c'));
  }

  /** Seals the next frame; call in order (the sequence number is taken at call time). */
  async seal(plain) {
    const seq = seqBytes(this.sent++);
    const body = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: iv(seq), additionalData: seq }, this.sendKey, plain));
    const out = new Uint8Array(8 + body.length);
    out.set(seq, 0);
    out.set(body, 8);
    return out;
  }

  /** Opens the next frame; throws on a frame out of sequence or one that fails authentication. */
  async open(frame) {
    if (frame.length < 24) throw new Error('bridge: frame too short');
    const seq = frame.subarray(0, 8);
    const n = new DataView(seq.buffer, seq.byteOffset, 8).getBigUint64(0);
    if (n !== this.received) throw new Error(`bridge: frame out of sequence (${n}, expected ${this.received})`);
    let plain;
    try {
      plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: iv(seq), additionalData: seq }, this.receiveKey, frame.subarray(8));
    } catch {
      throw new Error('bridge: frame failed authentication');
    }
    this.received++;
    return new Uint8Array(plain);
  }
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A tunnel to one ferret server. Give it a pairing secret the first time (it pairs, and hands the
 * device key it gets to `onDevice` to keep), or a device it paired before. `fetch` connects on
 * first use and again after a cut; requests running when the connection drops fail like a
 * network error, so callers that resume (the event stream, with Last-Event-ID) just retry.
 */
export class BridgeTunnel {
  constructor(opts) {
    this.opts = opts;
    this.WebSocket = opts.WebSocket ?? globalThis.WebSocket;
    this.device = opts.device;
    this.connecting = undefined;
    this.conn = undefined;
    this.nextId = 1;
    this.fetch = this.fetch.bind(this);
  }

  /** Opens (or reuses) an authenticated connection. */
  connect() {
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    return (this.connecting ??= this.dial().finally(() => (this.connecting = undefined)));
  }

  /**
   * Dials until connected or connectTimeoutMs (default 10 s) passes: ferret may be between two
   * connections to the relay (a restart, a network change). A refusal (4403: a revoked device, a
   * wrong secret, a bad frame) is final.
   */
  async dial() {
    const end = Date.now() + (this.opts.connectTimeoutMs ?? 10_000);
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      try {
        return await this.open();
      } catch (err) {
        if (err.refused || Date.now() + wait > end) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  async open() {
    const secret = this.device ? fromB64url(this.device.key) : this.opts.secret ? fromB64url(this.opts.secret) : undefined;
    if (!secret) throw new Error('bridge: neither a pairing secret nor a paired device');
    const kind = this.device ? 'device' : 'pair';
    const ws = new this.WebSocket(`${this.opts.relay}/v1/connect?route=${this.opts.route}`);
    ws.binaryType = 'arraybuffer';
    const conn = { ws, cipher: undefined, closed: false, streams: new Map(), chain: Promise.resolve(), sendChain: Promise.resolve() };
    const clientNonce = crypto.getRandomValues(new Uint8Array(16));
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (why, refused = false) => {
        conn.closed = true;
        const err = new TypeError(`bridge: ${why}`);
        err.refused = refused;
        if (!settled) {
          settled = true;
          reject(err);
        }
        for (const s of conn.streams.values()) s.fail(err);
        conn.streams.clear();
        try {
          ws.close();
        } catch {
          /* already closing */
        }
      };
      ws.onopen = () => ws.send(enc.encode(JSON.stringify({ v: 1, kind, ...(this.device ? { device: this.device.id } : {}), nonce: toB64url(clientNonce) })));
      ws.onerror = () => fail('the relay connection failed');
      ws.onclose = (ev) =>
        fail(
          ev.code === 4404 ? 'ferret is not connected to the relay now' : ev.code === 4403 ? 'ferret refused this device (revoked, or a wrong pairing secret)' : `the relay connection closed (${ev.code})`,
          ev.code === 4403,
        );
      ws.onmessage = (ev) => {
        const data = new Uint8Array(ev.data);
        // Frames are opened one after another: decryption is asynchronous, the order is not.
        conn.chain = conn.chain.then(async () => {
          if (conn.closed) return;
          if (!conn.cipher) {
            const hello = JSON.parse(dec.decode(data));
            conn.cipher = await FrameCipher.derive(secret, clientNonce, fromB64url(hello.nonce));
            await this.post(conn, kind === 'pair' ? { t: 'pair', name: this.opts.name ?? 'browser' } : { t: 'hi' });
            return;
          }
          const msg = JSON.parse(dec.decode(await conn.cipher.open(data)));
          if (msg.t === 'paired') {
            this.device = { id: msg.device, key: msg.key };
            this.opts.onDevice?.(this.device);
          }
          if (msg.t === 'paired' || msg.t === 'ready') {
            if (typeof msg.push === 'string') this.pushKey = msg.push;
            settled = true;
            this.conn = conn;
            resolve(conn);
            return;
          }
          conn.streams.get(msg.id)?.on(msg);
        }).catch((e) => fail(e instanceof Error ? e.message : String(e)));
      };
    });
  }

  post(conn, msg) {
    // Sealed in call order (the cipher takes the seq synchronously), sent in that order too.
    const sealed = conn.cipher.seal(enc.encode(JSON.stringify(msg)));
    conn.sendChain = conn.sendChain.then(async () => {
      const frame = await sealed;
      if (!conn.closed) conn.ws.send(frame);
    });
    return conn.sendChain;
  }

  /** A fetch over the tunnel: same-origin paths (or absolute URLs, whose path is used). */
  async fetch(input, init = {}) {
    const req = typeof input === 'object' && 'url' in input ? input : undefined;
    // Only the path and query travel; the base is a placeholder for relative paths.
    const url = new URL(req ? req.url : String(input), 'bridge:/');
    const method = (init.method ?? req?.method ?? 'GET').toUpperCase();
    const headers = {};
    new Headers(init.headers ?? req?.headers ?? {}).forEach((v, k) => (headers[k] = v));
    // openapi-fetch hands over a Request with its body inside; a plain call gives init.body.
    const body =
      init.body !== undefined && init.body !== null ? String(init.body) : req && method !== 'GET' && method !== 'HEAD' ? await req.text() : undefined;
    const signal = init.signal ?? req?.signal;
    if (signal?.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError');
    const conn = await this.connect();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let controller;
      const stream = new ReadableStream({
        start: (c) => (controller = c),
        cancel: () => {
          conn.streams.delete(id);
          if (!conn.closed) void this.post(conn, { t: 'abort', id });
        },
      });
      const onAbort = () => {
        const err = signal.reason ?? new DOMException('aborted', 'AbortError');
        entry.fail(err);
        conn.streams.delete(id);
        if (!conn.closed) void this.post(conn, { t: 'abort', id });
      };
      let headed = false;
      const entry = {
        on: (msg) => {
          if (msg.t === 'head') {
            headed = true;
            const nullBody = NULL_BODY.has(msg.status) || method === 'HEAD';
            resolve(new Response(nullBody ? null : stream, { status: msg.status, headers: msg.headers }));
          } else if (msg.t === 'data') controller.enqueue(enc.encode(msg.chunk));
          else if (msg.t === 'end') {
            conn.streams.delete(id);
            signal?.removeEventListener('abort', onAbort);
            if (msg.error) entry.fail(new TypeError(`bridge: ${msg.error}`));
            else controller.close();
          }
        },
        fail: (err) => {
          if (!headed) reject(err);
          else {
            try {
              controller.error(err);
            } catch {
              /* already closed */
            }
          }
        },
      };
      conn.streams.set(id, entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.post(conn, { t: 'req', id, method, path: url.pathname + url.search, headers, ...(body !== undefined ? { body } : {}) });
    });
  }

  /**
   * Turns Web Push on for this device (a PushSubscription, or its toJSON()), or off with null.
   * Resolves when ferret kept it; rejects with ferret's reason (a bad endpoint or key).
   * `pushKey` (ferret's VAPID public key, base64url) is known once connected.
   */
  async setPush(subscription) {
    const conn = await this.connect();
    const id = this.nextId++;
    const sub = subscription && typeof subscription.toJSON === 'function' ? subscription.toJSON() : subscription;
    return new Promise((resolve, reject) => {
      conn.streams.set(id, {
        on: (msg) => {
          if (msg.t !== 'pushed') return;
          conn.streams.delete(id);
          if (msg.ok) resolve();
          else reject(new Error(`bridge: ${msg.error}`));
        },
        fail: reject,
      });
      void this.post(conn, { t: 'push', id, subscription: sub });
    });
  }

  /** Ends the connection (running requests fail). */
  close() {
    this.conn?.ws.close();
    this.conn = undefined;
  }
}
