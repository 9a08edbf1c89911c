// `chimera ferret relay`: pairs remote clients with bridged ferret servers and moves their opaque
// frames (docs/cloud-bridge.md). A server dials /v1/serve with its route key (the relay keeps
// only the hash, the route); a client dials /v1/connect?route=…; the relay wraps each client
// frame with the client's connection id for the server and unwraps the server's replies. It
// never holds a key, so it sees routes, sizes and times, nothing else. Also serves the console.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { decodeRelayFrame, encodeRelayFrame, RELAY_CLOSE, RELAY_OP } from '../protocol/index.js';
import { RoutingTable } from './routing.js';
import { loadStatic, PAGE_HEADERS } from './static-files.js';

export interface RelayOptions {
  host: string;
  port: number;
  logger: Logger;
  /** The built console (dist/console); none = the relay serves no page. */
  consoleDir: string | undefined;
  /** Largest frame either side may send; default 4 MiB. */
  maxFrameBytes?: number;
  /** Ping interval; a socket that misses two pongs is dropped. Default 20 s. */
  heartbeatMs?: number;
}

export interface Relay {
  url: string;
  server: Server;
  counts(): { servers: number; clients: number };
  close(): Promise<void>;
}

const ROUTE = /^[A-Za-z0-9_-]{22}$/;
const routeOf = (key: string): string => createHash('sha256').update(Buffer.from(key, 'base64url')).digest('base64url').slice(0, 22);
const toBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

export async function startRelay(opts: RelayOptions): Promise<Relay> {
  const log = opts.logger.child({ part: 'relay' });
  const files = loadStatic(opts.consoleDir);
  const table = new RoutingTable();
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxFrameBytes ?? 4 * 1024 * 1024, perMessageDeflate: false });
  const alive = new WeakMap<WebSocket, boolean>();

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, ...table.counts() }));
      return;
    }
    const file = req.method === 'GET' || req.method === 'HEAD' ? files.get(path) : undefined;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(files.size ? 'not found\n' : 'this relay serves no console (dist/console is not built)\n');
      return;
    }
    res.writeHead(200, { ...PAGE_HEADERS, 'content-type': file.type, 'content-length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  });

  const refuse = (socket: Duplex, status: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    if (url.pathname === '/v1/serve') {
      const key = req.headers['x-ferret-route-key'];
      if (typeof key !== 'string' || key.length < 40) return refuse(socket, '401 Unauthorized');
      wss.handleUpgrade(req, socket, head, (ws) => serveSide(ws, routeOf(key)));
    } else if (url.pathname === '/v1/connect') {
      const route = url.searchParams.get('route') ?? '';
      if (!ROUTE.test(route)) return refuse(socket, '400 Bad Request');
      wss.handleUpgrade(req, socket, head, (ws) => clientSide(ws, route));
    } else refuse(socket, '404 Not Found');
  });

  function watch(ws: WebSocket): void {
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('error', (err) => log.debug({ err }, 'socket error'));
  }

  function serveSide(ws: WebSocket, route: string): void {
    watch(ws);
    const old = table.attachServer(route, ws);
    old?.close(RELAY_CLOSE.serverGone, 'replaced by a newer connection');
    log.info({ route, ...table.counts() }, 'server attached');
    ws.on('message', (data) => {
      const f = decodeRelayFrame(toBuffer(data));
      const link = f ? table.client(f.cid) : undefined;
      if (!f || !link || link.route !== route) return;
      if (f.op === RELAY_OP.data) link.socket.send(f.payload, { binary: true });
      else if (f.op === RELAY_OP.close) link.socket.close(RELAY_CLOSE.refused, 'closed by ferret');
    });
    ws.on('close', () => {
      for (const c of table.detachServer(route, ws)) c.socket.close(RELAY_CLOSE.serverGone, 'ferret went away');
      log.info({ route, ...table.counts() }, 'server detached');
    });
  }

  function clientSide(ws: WebSocket, route: string): void {
    const srv = table.server(route);
    if (!srv) {
      ws.close(RELAY_CLOSE.noServer, 'no ferret on this route now');
      return;
    }
    watch(ws);
    const link = table.addClient(route, ws);
    srv.send(encodeRelayFrame(RELAY_OP.open, link.cid), { binary: true });
    ws.on('message', (data) => {
      const to = table.server(route);
      if (to) to.send(encodeRelayFrame(RELAY_OP.data, link.cid, toBuffer(data)), { binary: true });
    });
    ws.on('close', () => {
      table.removeClient(link.cid);
      table.server(route)?.send(encodeRelayFrame(RELAY_OP.close, link.cid), { binary: true });
    });
  }

  // Dead peers (a phone that slept, a laptop that lost its network) are dropped after two missed pongs.
  const beat = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, opts.heartbeatMs ?? 20_000);
  beat.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | undefined;
  return {
    url: `ws://${host}:${addr.port}`,
    server,
    counts: () => table.counts(),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        clearInterval(beat);
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
