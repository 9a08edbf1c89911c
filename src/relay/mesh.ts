// Relays sharing routing through Redis (`chimera ferret relay --store redis://…`): a relay that
// holds a bridged server claims its route (a key with a short lease, renewed while attached);
// a client that reaches another relay is carried to the owner over the owner's pub/sub channel,
// frame by frame, still opaque. Redis learns routes, relay ids and ciphertext, nothing else.
// Uses the fleet's Redis connection set-up (store/redis/connection.ts).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { RedisConnection } from '../store/redis/connection.js';

const PREFIX = 'ferret:relay:';
const LEASE_S = 30;
/** Message kinds on a relay's channel: toward the server's relay (open, data, close) and back toward the client's (deliver, end). */
const KIND = { open: 1, data: 2, close: 3, deliver: 4, end: 5 } as const;

export interface MeshMessage {
  kind: (typeof KIND)[keyof typeof KIND];
  rcid: number;
  /** open: "fromRelay route"; data/close: the relay the client is on; deliver/end: ''. */
  text: string;
  payload: Buffer;
}

function encode(m: MeshMessage): Buffer {
  const text = Buffer.from(m.text);
  const head = Buffer.alloc(7);
  head.writeUInt8(m.kind, 0);
  head.writeUInt32BE(m.rcid, 1);
  head.writeUInt16BE(text.length, 5);
  return Buffer.concat([head, text, m.payload]);
}

function decode(b: Buffer): MeshMessage | undefined {
  if (b.length < 7) return undefined;
  const len = b.readUInt16BE(5);
  return { kind: b.readUInt8(0) as MeshMessage['kind'], rcid: b.readUInt32BE(1), text: b.subarray(7, 7 + len).toString(), payload: b.subarray(7 + len) };
}

export class RelayMesh {
  readonly id = randomBytes(6).toString('hex');
  private readonly leases = new Map<string, NodeJS.Timeout>();

  private constructor(
    private readonly conn: RedisConnection,
    private readonly sub: RedisConnection,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, log: Logger, onMessage: (m: MeshMessage) => void): Promise<RelayMesh> {
    const conn = await RedisConnection.create({ url, name: 'ferret-relay' });
    const sub = await conn.duplicate('ferret-relay-sub');
    const mesh = new RelayMesh(conn, sub, log);
    await conn.whenReady(10_000, 'the relay store');
    sub.client.on('messageBuffer', (_channel: Buffer, message: Buffer) => {
      const m = decode(message);
      if (m) onMessage(m);
    });
    await sub.client.subscribe(PREFIX + mesh.id);
    return mesh;
  }

  /** This relay serves the route now: claimed, and renewed until released. */
  claim(route: string): void {
    const set = () => void this.conn.client.set(PREFIX + 'route:' + route, this.id, 'EX', LEASE_S).catch((err: unknown) => this.log.warn({ err }, 'relay: claiming a route failed'));
    set();
    clearInterval(this.leases.get(route));
    const t = setInterval(set, (LEASE_S * 1000) / 3);
    t.unref();
    this.leases.set(route, t);
  }

  release(route: string): void {
    clearInterval(this.leases.get(route));
    this.leases.delete(route);
    // Only our own claim: another relay may hold the route by now.
    void this.conn.client.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, PREFIX + 'route:' + route, this.id).catch(() => undefined);
  }

  /** The relay that holds the route's server, if any (never this one: the caller looked locally first). */
  async owner(route: string): Promise<string | undefined> {
    const id = await this.conn.client.get(PREFIX + 'route:' + route);
    return id && id !== this.id ? id : undefined;
  }

  send(to: string, m: MeshMessage): void {
    void this.conn.client.publish(PREFIX + to, encode(m)).catch((err: unknown) => this.log.warn({ err }, 'relay: publishing a frame failed'));
  }

  static readonly KIND = KIND;

  async close(): Promise<void> {
    for (const route of [...this.leases.keys()]) this.release(route);
    await this.sub.close(500);
    await this.conn.close(1000);
  }
}
