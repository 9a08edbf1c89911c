// The bridged server's one connection to its relay: dialled out (no listening port), kept with
// pings, and dialled again with jittered exponential backoff after a relay restart, a network
// drop or a sleep. It moves relay frames; what they mean is bridge.ts's and peer.ts's.
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';

export interface DialerEvents {
  attached(): void;
  frame(data: Buffer): void;
  /** The connection ended (or never came up); `why` is what the status shows as lastError. */
  detached(why: string): void;
}

export interface DialerOptions {
  relay: string;
  routeKey: string;
  logger: Logger;
  /** Ping interval; a relay that misses two is taken for gone. Default 15 s. */
  heartbeatMs?: number;
  /** Backoff bounds (ms): the first retry waits up to minMs, doubling to maxMs. Defaults 250 / 15 000. */
  minMs?: number;
  maxMs?: number;
}

const toBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

export class Dialer {
  private ws: WebSocket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private beat: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  /** Dial attempts since the bridge was last attached. */
  reconnects = 0;

  constructor(
    private readonly opts: DialerOptions,
    private readonly on: DialerEvents,
  ) {}

  start(): void {
    this.dial();
  }

  send(frame: Buffer): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(frame, { binary: true });
  }

  private dial(): void {
    if (this.closed) return;
    const url = new URL('/v1/serve', this.opts.relay).toString();
    const ws = new WebSocket(url, { headers: { 'x-ferret-route-key': this.opts.routeKey }, perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.ws = ws;
    let missed = 0;
    let failure = 'connection closed';
    ws.on('open', () => {
      this.failures = 0;
      this.reconnects = 0;
      this.on.attached();
      this.beat = setInterval(() => {
        if (++missed > 2) return ws.terminate();
        ws.ping();
      }, this.opts.heartbeatMs ?? 15_000);
      this.beat.unref();
    });
    ws.on('pong', () => (missed = 0));
    ws.on('message', (data) => {
      missed = 0;
      this.on.frame(toBuffer(data));
    });
    ws.on('unexpected-response', (_req, res) => {
      failure = `the relay answered ${res.statusCode} to /v1/serve`;
      ws.terminate();
    });
    ws.on('error', (err) => (failure = err.message || String(err)));
    ws.on('close', (code, reason) => {
      clearInterval(this.beat);
      if (this.ws !== ws) return;
      this.ws = undefined;
      const why = reason.length ? `${reason.toString()} (${code})` : failure;
      this.on.detached(why);
      if (!this.closed) this.retry();
    });
  }

  private retry(): void {
    const min = this.opts.minMs ?? 250;
    const cap = Math.min(this.opts.maxMs ?? 15_000, min * 2 ** this.failures++);
    // Half fixed, half random: many servers cut off by one relay restart do not come back in step.
    const wait = cap / 2 + Math.random() * (cap / 2);
    this.reconnects++;
    this.opts.logger.debug({ waitMs: Math.round(wait), attempt: this.reconnects }, 'bridge: dialling the relay again');
    // Not unref'd: a server with only the bridge must stay up while it waits to dial again.
    this.timer = setTimeout(() => this.dial(), wait);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.beat);
    this.ws?.close(1001, 'ferret is stopping');
    this.ws = undefined;
  }
}
