import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through on [::1]:PORT to 127.0.0.1:PORT (the same port number, so the server's Host
 * check accepts `[::1]:PORT`). The browser talks to the console through it, and `cut()` is a real
 * network cut: every connection dropped, new ones refused until it is over.
 */
export class CuttableProxy {
  private readonly server: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  private down = false;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(port: number): Promise<CuttableProxy> {
    const holder: { proxy?: CuttableProxy } = {};
    const server = createServer((client) => holder.proxy!.accept(client, port));
    const proxy = (holder.proxy = new CuttableProxy(server));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '::1', () => resolve());
    });
    return proxy;
  }

  private accept(client: Socket, port: number): void {
    if (this.down) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Drops every connection and refuses new ones for `ms`. */
  async cut(ms: number): Promise<void> {
    this.down = true;
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    await new Promise((r) => setTimeout(r, ms));
    this.down = false;
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
