// The HTTP API through the bridge: a remote client's request, decrypted, is injected into a
// Fastify app of its own (transports/http's buildApp, never listening) and its answer streamed
// back, SSE included. That app has no server token: its only door is this tunnel, and a request
// reaches it only after the device proved its key (peer.ts). The token is never sent anywhere.
import type { Logger } from 'pino';
import type { SandboxMode, Sessions } from '../../core/index.js';
import { buildApp } from '../http/app.js';
import type { ZodApp } from '../http/context.js';

/** What the tunnel passes on of a client's headers: what the API reads, nothing a browser adds about itself. */
const REQUEST_HEADERS = new Set(['accept', 'content-type', 'last-event-id', 'if-none-match']);
/** What never goes back: hop-by-hop headers, and cookies (the bridge has no login). */
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'connection', 'transfer-encoding', 'keep-alive', 'content-length']);

export interface TunnelRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

export interface TunnelReply {
  head(status: number, headers: Record<string, string>): void;
  data(chunk: string): void;
  end(error?: string): void;
}

export interface HttpTunnelOptions {
  manager: Sessions;
  logger: Logger;
  version: string;
  sandbox: SandboxMode;
  ideSchema: boolean;
}

export class HttpTunnel {
  private constructor(private readonly app: ZodApp) {}

  static async create(opts: HttpTunnelOptions): Promise<HttpTunnel> {
    const { app } = await buildApp({
      manager: opts.manager,
      logger: opts.logger.child({ transport: 'bridge' }),
      version: opts.version,
      sandbox: opts.sandbox,
      ideSchema: opts.ideSchema,
      heartbeatMs: 15_000,
      maxBufferBytes: 1024 * 1024,
      stallMs: 5000,
      retryMs: 1000,
      bodyLimit: 1024 * 1024,
      token: undefined,
      hosts: () => undefined,
    });
    await app.ready();
    return new HttpTunnel(app);
  }

  /** Runs one request; the returned function ends it early (the client went away or aborted). */
  request(req: TunnelRequest, reply: TunnelReply): () => void {
    const controller = new AbortController();
    let destroy: (() => void) | undefined;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      reply.end(error);
    };
    const headers: Record<string, string> = { host: 'bridge.ferret' };
    for (const [k, v] of Object.entries(req.headers)) if (REQUEST_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
    void this.app
      .inject({
        method: req.method as 'GET',
        url: req.path,
        headers,
        ...(req.body !== undefined ? { payload: req.body } : {}),
        payloadAsStream: true,
        signal: controller.signal,
      })
      .then((res) => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !DROPPED_RESPONSE_HEADERS.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
        reply.head(res.statusCode, out);
        const raw = res.raw.res as unknown as { destroy(): void };
        destroy = () => raw.destroy();
        const stream = res.stream();
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => reply.data(chunk));
        stream.on('end', () => finish());
        stream.on('error', (err) => finish(err.message));
        if (done) raw.destroy();
      })
      .catch((err: unknown) => finish(err instanceof Error ? err.message : String(err)));
    return () => {
      if (done) return;
      done = true;
      controller.abort();
      destroy?.();
    };
  }

  close(): Promise<void> {
    return this.app.close();
  }
}
