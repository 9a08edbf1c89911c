// Who is connected to this relay: one bridged server per route, any number of clients per route,
// each client known to its server by a connection id. A client is a link with send/close: a
// WebSocket here, or (with --store) a client of another relay, reached over Redis (mesh.ts).
// Nothing here is read from a frame's payload; the table dies with the process (stateless by
// design: both sides reconnect after a restart).
import type { WebSocket } from 'ws';

export interface ClientLink {
  cid: number;
  route: string;
  send(payload: Buffer): void;
  close(code: number, reason: string): void;
}

export class RoutingTable {
  private readonly servers = new Map<string, WebSocket>();
  private readonly clients = new Map<number, ClientLink>();
  private nextCid = 1;

  server(route: string): WebSocket | undefined {
    return this.servers.get(route);
  }

  /** A server takes its route; an older connection for it (a ferret that reconnected before the relay noticed) is returned to be closed. */
  attachServer(route: string, socket: WebSocket): WebSocket | undefined {
    const old = this.servers.get(route);
    this.servers.set(route, socket);
    return old === socket ? undefined : old;
  }

  /** The server left: its clients, to be closed (they reconnect and find it again). */
  detachServer(route: string, socket: WebSocket): ClientLink[] {
    if (this.servers.get(route) !== socket) return [];
    this.servers.delete(route);
    return [...this.clients.values()].filter((c) => c.route === route);
  }

  addClient(route: string, make: (cid: number) => Omit<ClientLink, 'cid' | 'route'>): ClientLink {
    const cid = this.nextCid;
    this.nextCid = this.nextCid >= 0xffffffff ? 1 : this.nextCid + 1;
    const link = { cid, route, ...make(cid) };
    this.clients.set(cid, link);
    return link;
  }

  client(cid: number): ClientLink | undefined {
    return this.clients.get(cid);
  }

  removeClient(cid: number): void {
    this.clients.delete(cid);
  }

  counts(): { servers: number; clients: number } {
    return { servers: this.servers.size, clients: this.clients.size };
  }
}
