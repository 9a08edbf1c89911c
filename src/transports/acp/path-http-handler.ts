import type { IncomingMessage, ServerResponse } from 'node:http';
import { AcpConnection, type AcpServerOptions } from './connection.js';
import type { AcpHttpHandler } from './http-stream.js';
import { PathConnection } from './path-connection.js';

export interface PathHandlerOptions extends AcpServerOptions {
  /** The largest POST body accepted (one JSON-RPC message). */
  bodyLimit: number;
  /** How many client-named connections may be open at once. */
  maxConnections?: number;
  /** A connection nobody reads or waits on is closed after this long (its sessions live on). */
  idleMs?: number;
}

/** The mount prefix: the connection's name follows it. */
export const ACP_PATH_PREFIX = '/acp/';
const ID = /^[A-Za-z0-9._~-]{1,128}$/;

const problem = (res: ServerResponse, status: number, title: string): void => {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ title, status }));
};

/** What a POSTed envelope is, to answer it the profile's way (a request waits, the rest is 202). */
const requestKey = (msg: unknown): string | undefined => {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return undefined;
  const m = msg as { id?: unknown; method?: unknown };
  if (typeof m.method !== 'string') return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? JSON.stringify(m.id) : undefined;
};

const readBody = (req: IncomingMessage, limit: number): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined); // too large
      } else parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });

/**
 * ACP v1 over the path-scoped streamable-HTTP profile that acp-http-client (Sandbox Agent) speaks:
 * the client names its connection in the path (`/acp/{id}`), POSTs one JSON-RPC message at a time
 * (a request's answer is the POST's body, or comes on the stream), reads ferret's messages from
 * `GET /acp/{id}` (SSE, `id:` numbered, Last-Event-ID replay) and ends it with `DELETE`. No header
 * carries an identity. A connection is made by its first POST or GET (the client sends both at
 * once, in no fixed order) and is an ordinary ACP connection on the same core as every other.
 */
export function createAcpPathHandler(opts: PathHandlerOptions): AcpHttpHandler {
  const conns = new Map<string, PathConnection>();
  const maxConnections = opts.maxConnections ?? 128;
  const idleMs = opts.idleMs ?? 10 * 60_000;
  const running = new Set<Promise<void>>();

  const open = (id: string): PathConnection | undefined => {
    const known = conns.get(id);
    if (known && !known.isClosed) return known;
    if (conns.size >= maxConnections) return undefined;
    const conn = new PathConnection(id);
    conns.set(id, conn);
    const run = new AcpConnection(conn, opts).run().finally(() => {
      running.delete(run);
      if (conns.get(id) === conn) conns.delete(id);
    });
    running.add(run);
    return conn;
  };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of conns.values()) if (c.idle && now - c.lastActive > idleMs) c.close();
  }, Math.min(idleMs, 60_000)).unref();

  const post = async (id: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return problem(res, 415, 'Content-Type must be application/json');
    const body = await readBody(req, opts.bodyLimit);
    if (body === undefined) return problem(res, 413, `the message is larger than ${opts.bodyLimit} bytes`);
    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch {
      return problem(res, 400, 'the body is not JSON');
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return problem(res, 400, 'the body must be one JSON-RPC message (an object)');
    // Only initialize starts a connection: a name this server has not seen initialized (a restart,
    // a balancer that sent the client elsewhere) is refused rather than spoken to in another dialect.
    const init = (msg as { method?: unknown }).method === 'initialize';
    const known = conns.get(id);
    if (!init && !(known && !known.isClosed && known.initialized)) return problem(res, 404, `no ACP connection ${id} on this server: send initialize first`);
    // Initialize again on a name whose client still reads its stream: another client took the name.
    if (init && known?.initialized && known.reading) return problem(res, 409, `ACP connection ${id} is in use by another client: pick a name of your own (a random one)`);
    const conn = open(id);
    if (!conn) return problem(res, 503, `too many ACP connections (${maxConnections}); DELETE one you no longer use`);
    if (init) conn.initialized = true;
    const key = requestKey(msg);
    if (key !== undefined && conn.isWaiting(key)) return problem(res, 409, `request id ${key} is already in flight on this connection`);
    if (key === undefined) res.writeHead(202).end();
    // The connection classifies the text as stdin's lines are (bad JSON-RPC gets a JSON-RPC error).
    conn.receive(body, key, key === undefined ? undefined : res);
  };

  return {
    handle(req, res) {
      const path = (req.url ?? '').split('?')[0]!;
      let id = '';
      try {
        id = decodeURIComponent(path.slice(ACP_PATH_PREFIX.length));
      } catch {
        // a bad %-escape: no such name
      }
      if (!ID.test(id)) return problem(res, 404, 'an ACP connection is named by 1-128 letters, digits or ._~- after /acp/');
      switch (req.method) {
        case 'POST':
          return void post(id, req, res).catch(() => problem(res, 400, 'the request could not be read'));
        case 'GET': {
          if (!String(req.headers.accept ?? '').includes('text/event-stream')) return problem(res, 406, 'GET needs Accept: text/event-stream');
          const conn = open(id);
          if (!conn) return problem(res, 503, `too many ACP connections (${maxConnections})`);
          const raw = req.headers['last-event-id'];
          const last = Number(raw);
          // A second stream without Last-Event-ID while the first is open is another client on the same name.
          if (raw === undefined && conn.reading) return problem(res, 409, `ACP connection ${id} already has a reader: pick a name of your own (a random one)`);
          return conn.attach(res, Number.isSafeInteger(last) && last >= 0 ? last : undefined);
        }
        case 'DELETE': {
          const conn = conns.get(id);
          if (!conn) return problem(res, 404, `no ACP connection ${id}`);
          conn.close();
          return void res.writeHead(204).end();
        }
        case undefined:
        default:
          res.setHeader('allow', 'GET, POST, DELETE');
          return problem(res, 405, `${req.method} is not served on /acp/{id}`);
      }
    },
    async close() {
      clearInterval(sweep);
      for (const c of conns.values()) c.close();
      await Promise.all(running);
    },
  };
}
