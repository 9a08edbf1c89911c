import type { ServerResponse } from 'node:http';

// The one place that writes Server-Sent Events responses: the HTTP API's session events and ACP
// over HTTP's `/acp/{name}` stream both open theirs here. It is a leaf both transports may import
// (they never import each other): it knows Node's response and the SSE text format, nothing of ours.

export interface SseStreamOptions {
  /** `Cache-Control` of the stream. */
  cacheControl: 'no-cache' | 'no-store';
  /** A comment line sent this often (ms) keeps proxies and the client's timers from cutting a quiet stream. */
  heartbeatMs: number;
  /** The heartbeat comment's text. */
  heartbeat: string;
  /** Headers set on the response before (a framework's own, to carry over). */
  headers?: Record<string, number | string | string[] | undefined>;
}

/** One frame: `id:`, `event:` and one `data:` line (the text must hold no newline: JSON does not). */
export function sseFrame(id: string | number, event: string, data: string): string {
  return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}

/**
 * Opens an SSE response: the stream headers and status 200 are written at once, the heartbeat
 * runs until the socket closes. The caller writes frames to `out` itself (its own pacing and
 * backlog rules); `onClose` runs once when the client goes away or the stream ends.
 */
export class SseStream {
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    readonly out: ServerResponse,
    opts: SseStreamOptions,
  ) {
    out.setHeader('Content-Type', 'text/event-stream');
    out.setHeader('Cache-Control', opts.cacheControl);
    out.setHeader('Connection', 'keep-alive');
    out.setHeader('X-Accel-Buffering', 'no'); // no buffering in nginx
    for (const [name, value] of Object.entries(opts.headers ?? {})) if (value !== undefined) out.setHeader(name, value);
    out.writeHead(200);
    this.heartbeat = setInterval(() => {
      if (!out.destroyed && !out.writableEnded) out.write(`: ${opts.heartbeat}\n\n`);
    }, opts.heartbeatMs).unref();
    out.on('close', () => clearInterval(this.heartbeat));
  }

  /** A comment line (clients ignore it): the stream's greeting, a `retry:` field with it. */
  comment(text: string, retryMs?: number): void {
    this.out.write(`: ${text}\n${retryMs !== undefined ? `retry: ${retryMs}\n` : ''}\n`);
  }

  /** Runs once when the socket closes (the client went away, or the stream ended). */
  onClose(cb: () => void): void {
    if (this.out.destroyed) return cb();
    this.out.once('close', cb);
  }

  /** Ends the stream (the heartbeat stops with the socket). */
  end(): void {
    clearInterval(this.heartbeat);
    this.out.end();
  }
}
