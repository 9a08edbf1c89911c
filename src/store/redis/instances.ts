import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';

/** What an instance says about itself: where the rest of the fleet reaches its HTTP server. */
export interface InstanceInfo {
  url: string;
}

/**
 * Live instances and their addresses: a key per instance with a TTL it renews every third of
 * it. An instance that dies stops renewing; its key is gone after the TTL, as its leases are.
 * A command for a session another instance owns is sent to that instance's address.
 */
export class InstanceRegistry {
  private timer: NodeJS.Timeout | undefined;
  private info: InstanceInfo | undefined;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    readonly instanceId: string,
    private readonly ttlMs: number,
  ) {}

  /** Publishes this instance's address (and keeps it published until close). */
  async advertise(info: InstanceInfo): Promise<void> {
    this.info = info;
    await this.renew();
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (!this.info) return;
    await this.conn.client.set(this.keys.instance(this.instanceId), JSON.stringify(this.info), 'PX', this.ttlMs);
  }

  /** A live instance's address, or undefined when it is gone (or never said). */
  async lookup(id: string, timeoutMs: number): Promise<InstanceInfo | undefined> {
    const raw = await this.conn.timed(timeoutMs, `looking up ferret instance ${id}`, () => this.conn.client.get(this.keys.instance(id)));
    if (!raw) return undefined;
    try {
      const v = JSON.parse(raw) as { url?: unknown };
      return typeof v.url === 'string' ? { url: v.url } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stops renewing and removes the address (a clean stop: peers stop forwarding here at once). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.info) return;
    this.info = undefined;
    await this.conn.client.del(this.keys.instance(this.instanceId)).catch(() => undefined);
  }
}
