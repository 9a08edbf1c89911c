import type { RedisConnection } from './connection.js';
import type { FleetTrust } from './fleet-trust.js';
import type { RedisKeys } from './keys.js';
import { runScript } from './scripts.js';

/**
 * One writer per session across the fleet, instead of the pid lock: a key set only if absent,
 * with a TTL the owner renews every third of it (a Lua check-and-extend) and deletes when it is
 * done (check-and-delete). An owner that dies stops renewing and the session is free after the
 * TTL. Every write of the log checks the token too (scripts.ts), so an owner that lost its lease
 * (paused past the TTL, cut off from Redis while another took over) cannot write.
 *
 * A token is `<instance>|<seal>#<epoch>`: the seal (fleet-trust.ts) binds the instance to the
 * session under the fleet secret, so a token written by anything else names nobody: no server
 * sends a command to it or names it as the owner.
 */
export class SessionLease {
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;
  private released = false;
  private lostTo: string | undefined;
  /** Until when (ms since epoch, local clock) the lease is surely ours: the last renewal's send time + TTL. */
  validUntil: number;
  /** Told once when a renewal finds another owner (its instance id; '' when the key was gone and the session taken and left since). */
  onLost: ((owner: string) => void) | undefined;

  private constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly trust: FleetTrust,
    readonly sessionId: string,
    readonly token: string,
    readonly epoch: string,
    readonly ttlMs: number,
    sentAt: number,
  ) {
    this.validUntil = sentAt + ttlMs;
  }

  /**
   * Takes the session's lease if nobody holds it; also answers where its log ends (its last seq).
   * `{ owner }` names the instance that holds it; `{ forged }`: the lease holds a record no server
   * of this fleet wrote (reported; nobody is named).
   */
  static async acquire(
    conn: RedisConnection,
    keys: RedisKeys,
    trust: FleetTrust,
    id: string,
    instance: string,
    ttlMs: number,
  ): Promise<{ lease: SessionLease; top: number } | { owner: string } | { forged: true }> {
    const sentAt = Date.now();
    const r = (await runScript(conn.client, 'acquire', [keys.log(id), keys.lease(id), keys.epoch(id)], [trust.claim(id, instance), ttlMs])) as [number, string, string?, number?];
    if (r[0] !== 1) {
      const owner = trust.ownerOf(id, String(r[1]), keys.lease(id));
      return owner === undefined ? { forged: true } : { owner };
    }
    const lease = new SessionLease(conn, keys, trust, id, String(r[1]), String(r[2]), ttlMs, sentAt);
    lease.startRenewing();
    return { lease, top: Number(r[3] ?? 0) };
  }

  get lost(): boolean {
    return this.lostTo !== undefined;
  }

  /** The owner that took the session from us, once lost. */
  get lostToOwner(): string | undefined {
    return this.lostTo;
  }

  /** What an append/cut/commit script needs to check this lease: keys after the log's, and ARGV token, epoch, ttl. */
  get fence(): { keys: [string, string]; args: [string, string, number] } {
    return { keys: [this.keys.lease(this.sessionId), this.keys.epoch(this.sessionId)], args: [this.token, this.epoch, this.ttlMs] };
  }

  private startRenewing(): void {
    const every = Math.max(50, Math.floor(this.ttlMs / 3));
    this.timer = setInterval(() => void this.renew(), every);
    this.timer.unref();
  }

  /** One renewal (skipped while the previous one still waits, e.g. for Redis to come back). True while the lease is ours. */
  async renew(): Promise<boolean> {
    if (this.released || this.lostTo !== undefined) return false;
    if (this.renewing) return true;
    this.renewing = true;
    const sentAt = Date.now();
    try {
      const r = Number(await runScript(this.conn.client, 'renew', this.fence.keys, this.fence.args));
      if (this.released) return false;
      if (r === 1 || r === 2) {
        this.validUntil = sentAt + this.ttlMs;
        return true;
      }
      const cur = await this.conn.client.get(this.keys.lease(this.sessionId)).catch(() => null);
      this.markLost(cur ? this.ownerIn(cur) : '');
      return false;
    } catch {
      return true; // the connection: the next renewal tries again (the scripts fence every write meanwhile)
    } finally {
      this.renewing = false;
    }
  }

  /** The instance a token read from Redis names ('' when no server of the fleet wrote it: reported). */
  ownerIn(token: string): string {
    return this.trust.ownerOf(this.sessionId, token, this.keys.lease(this.sessionId)) ?? '';
  }

  /** Called by a write that found another owner: stops renewing and tells onLost once. */
  markLost(owner: string): void {
    if (this.lostTo !== undefined || this.released) return;
    this.lostTo = owner;
    clearInterval(this.timer);
    this.onLost?.(owner);
  }

  /** Stops renewing and deletes the lease if it is still ours (sent after every write queued before it). */
  async release(): Promise<boolean> {
    if (this.released) return false;
    this.released = true;
    clearInterval(this.timer);
    if (this.lostTo !== undefined) return false;
    try {
      return Number(await runScript(this.conn.client, 'release', [this.keys.lease(this.sessionId)], [this.token])) === 1;
    } catch {
      return false; // it expires by itself
    }
  }
}
