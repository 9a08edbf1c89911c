import type { ServerResponse } from 'node:http';
import type { Channel } from './channel.js';
import { SseStream, sseFrame } from '../sse/sse-stream.js';

/** Messages kept for a reader that reconnects with Last-Event-ID (and for one not yet attached). */
const REPLAY_MESSAGES = 4096;
const REPLAY_BYTES = 8 * 1024 * 1024;
/** An SSE comment this often keeps proxies and the client's own timers from cutting a quiet stream. */
const KEEPALIVE_MS = 15_000;

interface Queued {
  seq: number;
  text: string;
}

const responseKey = (msg: unknown): string | undefined => {
  if (typeof msg !== 'object' || msg === null || 'method' in msg) return undefined;
  if (!('result' in msg) && !('error' in msg)) return undefined;
  const id = (msg as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
};

/**
 * One client-named connection of the path-scoped ACP-over-HTTP profile (`/acp/{id}`): what the
 * client POSTs is read as if from stdin; what ferret sends goes out on the connection's SSE stream
 * (numbered, kept for replay), except the answer to a POSTed request while no SSE reader is
 * attached, which is that POST's body. With a reader attached every answer travels on the stream,
 * so it can never overtake the updates sent before it (the POST then ends with an empty 200).
 */
export class PathConnection implements Channel {
  private handler: ((line: string | null) => void) | undefined;
  private onClosed: (() => void) | undefined;
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private nextSeq = 1;
  /** The last seq written to any reader: a reader that gives no Last-Event-ID gets what follows. */
  private written = 0;
  private reader: ServerResponse | undefined;
  /** POSTed requests waiting for their answer, by JSON id. */
  private readonly waiting = new Map<string, ServerResponse>();
  private closed = false;
  /** The client has sent initialize: until then only initialize is taken (a stray name is not a connection). */
  initialized = false;
  private flushed: Promise<void> = Promise.resolve();
  lastActive = Date.now();

  constructor(readonly id: string) {}

  onLine(handler: (line: string | null) => void, onClose: () => void): void {
    this.handler = handler;
    this.onClosed = onClose;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Nobody is reading or waiting: the connection may be let go once it has been quiet a while. */
  get idle(): boolean {
    return this.reader === undefined && this.waiting.size === 0;
  }

  /** A reader is attached and its socket still open. */
  get reading(): boolean {
    return this.reader !== undefined && !this.reader.destroyed;
  }

  /** A request id already waiting on another POST (JSON-RPC ids must be unique while in flight). */
  isWaiting(key: string): boolean {
    return this.waiting.has(key);
  }

  /** A POSTed message: a request's POST is answered later by send(); others were answered 202 by the caller. */
  receive(text: string, requestKey: string | undefined, res: ServerResponse | undefined): void {
    this.lastActive = Date.now();
    if (requestKey !== undefined && res !== undefined) {
      this.waiting.set(requestKey, res);
      // The client went away before the answer: it then travels on the stream (replayable).
      res.on('close', () => {
        if (this.waiting.get(requestKey) === res) this.waiting.delete(requestKey);
      });
    }
    this.handler?.(text);
  }

  send(message: unknown): void {
    if (this.closed) return;
    const text = JSON.stringify(message);
    const key = responseKey(message);
    const post = key === undefined ? undefined : this.waiting.get(key);
    if (post && key !== undefined) {
      this.waiting.delete(key);
      if (this.reader === undefined) {
        post.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(text);
        return;
      }
      post.writeHead(200, { 'cache-control': 'no-store' }).end();
    }
    this.enqueue(text);
  }

  /** Settles once the stream's last write was handed to the OS (or the stream went away). */
  drain(): Promise<void> {
    return this.flushed;
  }

  backlog(): number {
    return this.reader?.writableLength ?? 0;
  }

  /** A GET: this reader replaces any earlier one (a reconnect: that one is dead to its client) and first gets what it missed. */
  attach(res: ServerResponse, lastEventId: number | undefined): void {
    this.lastActive = Date.now();
    this.detach(true);
    new SseStream(res, { cacheControl: 'no-store', heartbeatMs: KEEPALIVE_MS, heartbeat: 'keepalive' }).comment('ferret acp stream');
    this.reader = res;
    const from = lastEventId ?? this.written;
    for (const q of this.queue) if (q.seq > from) this.write(q);
    res.on('close', () => {
      if (this.reader !== res) return;
      this.reader = undefined;
      this.lastActive = Date.now();
    });
  }

  /** DELETE, idle expiry or server close: as if stdin closed; waiting POSTs and the reader end. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach(false);
    for (const res of this.waiting.values()) {
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ title: 'the ACP connection was closed', status: 404 }));
    }
    this.waiting.clear();
    this.onClosed?.();
  }

  /**
   * Lets the reader go: ended (a replaced one destroyed at once, so a stalled socket cannot keep
   * its writes, and what waits on them, pending; an ended one is destroyed if it does not finish).
   */
  private detach(replaced: boolean): void {
    const r = this.reader;
    this.reader = undefined;
    this.flushed = Promise.resolve();
    if (!r) return;
    if (replaced) return void r.destroy();
    r.end();
    setTimeout(() => r.destroy(), 1000).unref();
  }

  private enqueue(text: string): void {
    const q = { seq: this.nextSeq++, text };
    this.queue.push(q);
    this.queuedBytes += text.length;
    while (this.queue.length > REPLAY_MESSAGES || (this.queuedBytes > REPLAY_BYTES && this.queue.length > 1)) {
      this.queuedBytes -= this.queue.shift()!.text.length;
    }
    if (this.reader) this.write(q);
  }

  private write(q: Queued): void {
    const r = this.reader!;
    // The write's callback runs once it is flushed, or with an error when the socket is gone.
    this.flushed = new Promise((resolve) => r.write(sseFrame(q.seq, 'message', q.text), () => resolve()));
    this.written = Math.max(this.written, q.seq);
  }
}
