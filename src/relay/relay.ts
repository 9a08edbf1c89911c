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
import { RelayMesh, type MeshMessage } from './mesh.js';
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
  /** Relays sharing routing: redis://HOST:PORT/DB (docs/cloud-bridge.md#several-relays). */
  store?: string | undefined;
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
  // With --store: clients of other relays whose server is here (key "relay rcid" → our cid), and
  // our clients whose server is on another relay (rcid → socket).
  const remoteIn = new Map<string, number>();
  const remoteOut = new Map<number, WebSocket>();
  const remoteHandlers = new Map<number, (payload: Buffer) => void>();
  let nextRcid = 1;
  const mesh = opts.store ? await RelayMesh.connect(opts.store, log, (m) => fromMesh(m)) : undefined;

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
    mesh?.claim(route);
    log.info({ route, ...table.counts() }, 'server attached');
    ws.on('message', (data) => {
      const f = decodeRelayFrame(toBuffer(data));
      const link = f ? table.client(f.cid) : undefined;
      if (!f || !link || link.route !== route) return;
      if (f.op === RELAY_OP.data) link.send(f.payload);
      else if (f.op === RELAY_OP.close) link.close(RELAY_CLOSE.refused, 'closed by ferret');
    });
    ws.on('close', () => {
      const gone = table.detachServer(route, ws);
      if (table.server(route) === undefined) mesh?.release(route);
      for (const c of gone) c.close(RELAY_CLOSE.serverGone, 'ferret went away');
      log.info({ route, ...table.counts() }, 'server detached');
    });
  }

  /** A client of this relay whose server is here: its frames go straight to the server's socket. */
  function attachLocal(route: string, onFrame: (handler: (payload: Buffer) => void) => void, link: { send(p: Buffer): void; close(code: number, why: string): void }): number {
    const srv = table.server(route)!;
    const l = table.addClient(route, () => link);
    srv.send(encodeRelayFrame(RELAY_OP.open, l.cid), { binary: true });
    onFrame((payload) => table.server(route)?.send(encodeRelayFrame(RELAY_OP.data, l.cid, payload), { binary: true }));
    return l.cid;
  }

  function detachLocal(cid: number): void {
    const l = table.client(cid);
    if (!l) return;
    table.removeClient(cid);
    table.server(l.route)?.send(encodeRelayFrame(RELAY_OP.close, cid), { binary: true });
  }

  function clientSide(ws: WebSocket, route: string): void {
    watch(ws);
    // Frames that arrive while the route is looked up (in Redis) wait here, in order.
    const early: Buffer[] = [];
    let forward: ((payload: Buffer) => void) | undefined;
    let onClose = () => {};
    ws.on('message', (data) => (forward ? forward(toBuffer(data)) : early.push(toBuffer(data))));
    ws.on('close', () => onClose());
    const start = (f: (payload: Buffer) => void) => {
      forward = f;
      for (const b of early.splice(0)) f(b);
    };
    if (table.server(route)) {
      const cid = attachLocal(route, start, { send: (p) => ws.send(p, { binary: true }), close: (code, why) => ws.close(code, why) });
      onClose = () => detachLocal(cid);
      return;
    }
    if (!mesh) return ws.close(RELAY_CLOSE.noServer, 'no ferret on this route now');
    void mesh.owner(route).then(
      (owner) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (!owner) return ws.close(RELAY_CLOSE.noServer, 'no ferret on this route now');
        const rcid = nextRcid++;
        remoteOut.set(rcid, ws);
        mesh.send(owner, { kind: RelayMesh.KIND.open, rcid, text: `${mesh.id} ${route}`, payload: Buffer.alloc(0) });
        start((payload) => mesh.send(owner, { kind: RelayMesh.KIND.data, rcid, text: mesh.id, payload }));
        onClose = () => {
          remoteOut.delete(rcid);
          mesh.send(owner, { kind: RelayMesh.KIND.close, rcid, text: mesh.id, payload: Buffer.alloc(0) });
        };
      },
      (err: unknown) => {
        log.warn({ err }, 'relay: route lookup failed');
        ws.close(RELAY_CLOSE.noServer, 'route lookup failed');
      },
    );
  }

  /** A frame from another relay over Redis: a client of theirs for a server here, or a server's answer for a client here. */
  function fromMesh(m: MeshMessage): void {
    const K = RelayMesh.KIND;
    if (m.kind === K.deliver || m.kind === K.end) {
      const ws = remoteOut.get(m.rcid);
      if (!ws) return;
      if (m.kind === K.deliver) ws.send(m.payload, { binary: true });
      else ws.close(m.payload.length >= 2 ? m.payload.readUInt16BE(0) : RELAY_CLOSE.serverGone, 'closed by ferret');
      return;
    }
    const [from = '', route = ''] = m.text.split(' ');
    const key = `${from} ${m.rcid}`;
    if (m.kind === K.open) {
      let cid = 0;
      const end = (code: number) => {
        const p = Buffer.alloc(2);
        p.writeUInt16BE(code);
        remoteIn.delete(key);
        if (cid) {
          table.removeClient(cid);
          remoteHandlers.delete(cid);
        }
        mesh?.send(from, { kind: K.end, rcid: m.rcid, text: '', payload: p });
      };
      if (!table.server(route)) return end(RELAY_CLOSE.noServer);
      let handler: (payload: Buffer) => void = () => {};
      cid = attachLocal(route, (h) => (handler = h), {
        send: (payload) => mesh?.send(from, { kind: K.deliver, rcid: m.rcid, text: '', payload }),
        close: (code) => end(code),
      });
      remoteIn.set(key, cid);
      remoteHandlers.set(cid, (p) => handler(p));
    } else {
      const cid = remoteIn.get(key);
      if (cid === undefined) return;
      if (m.kind === K.data) remoteHandlers.get(cid)?.(m.payload);
      else {
        remoteIn.delete(key);
        remoteHandlers.delete(cid);
        detachLocal(cid);
      }
    }
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
        void mesh?.close();
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
