import { randomBytes } from 'node:crypto';
import { FerretError, isErrorCode, isFerretError } from '../../protocol/index.js';
import type { FleetCall } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';

/** How often a call that waits `whileAlive` checks that its server still listens. */
const ALIVE_CHECK_MS = 500;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
  /** Set for a call that fails once its server stops listening (the server it waits on, the session). */
  watched?: { owner: string; sessionId: string };
}

type Wire =
  | { t: 'call'; id: string; from: string; call: FleetCall }
  | { t: 'reply'; id: string; ok: true; result: unknown }
  | { t: 'reply'; id: string; ok: false; error: { code: string; message: string; data?: Record<string, unknown> } };

/**
 * Commands one fleet server sends another over Redis pub/sub (a channel per server): a call for
 * a session the receiver writes, answered on the caller's channel with the receiver's answer or
 * its error (code and message as they are). A server that is gone has no subscriber: the call
 * fails at once, naming it.
 */
export class CommandBus {
  private readonly pending = new Map<string, Pending>();
  private aliveTimer: NodeJS.Timeout | undefined;
  private handler: ((call: FleetCall) => Promise<unknown>) | undefined;

  private constructor(
    private readonly conn: RedisConnection,
    private readonly sub: RedisConnection,
    private readonly keys: RedisKeys,
    readonly instanceId: string,
  ) {}

  static async start(conn: RedisConnection, keys: RedisKeys, instanceId: string): Promise<CommandBus> {
    const sub = await conn.duplicate('ferret-commands');
    const bus = new CommandBus(conn, sub, keys, instanceId);
    sub.client.on('message', (_channel: string, raw: string) => bus.onMessage(raw));
    await sub.client.subscribe(keys.commands(instanceId));
    return bus;
  }

  /** Serves the calls other servers send here. */
  serve(handler: (call: FleetCall) => Promise<unknown>): void {
    this.handler = handler;
  }

  /**
   * Sends a call to `owner` and resolves with its answer (`timeoutMs` undefined: as long as it
   * takes, a turn). With `whileAlive`, the call fails once `owner` no longer listens on its
   * channel (killed, its connection to Redis gone) instead of waiting for an answer that never comes.
   */
  async call(owner: string, call: FleetCall, timeoutMs?: number, opts: { whileAlive?: boolean } = {}): Promise<unknown> {
    const id = randomBytes(8).toString('hex');
    const answer = new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { resolve, reject };
      if (timeoutMs !== undefined) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new FerretError('writer_unreachable', `ferret instance ${owner}, which runs session ${call.sessionId}, did not answer within ${timeoutMs} ms`, { owner }));
        }, timeoutMs);
        entry.timer.unref();
      }
      if (opts.whileAlive) entry.watched = { owner, sessionId: call.sessionId };
      this.pending.set(id, entry);
    });
    const wire: Wire = { t: 'call', id, from: this.instanceId, call };
    const heard = await this.conn.client.publish(this.keys.commands(owner), JSON.stringify(wire));
    if (heard === 0) this.fail(id, owner, call.sessionId);
    else if (opts.whileAlive) this.watchAlive();
    return answer;
  }

  /** A call whose server does not listen (gone): `session_busy` naming it, to retry once another takes the session over. */
  private fail(id: string, owner: string, sessionId: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(new FerretError('writer_unreachable', `ferret instance ${owner}, which runs session ${sessionId}, does not answer; another takes it over once its lease runs out: try again shortly`, { owner }));
  }

  /** While calls wait `whileAlive`, checks every ALIVE_CHECK_MS that their servers still listen. */
  private watchAlive(): void {
    if (this.aliveTimer) return;
    this.aliveTimer = setInterval(() => void this.checkAlive(), ALIVE_CHECK_MS);
    this.aliveTimer.unref();
  }

  private async checkAlive(): Promise<void> {
    const watched = [...this.pending].filter(([, p]) => p.watched);
    if (watched.length === 0) {
      clearInterval(this.aliveTimer);
      this.aliveTimer = undefined;
      return;
    }
    const owners = [...new Set(watched.map(([, p]) => p.watched!.owner))];
    let counts: unknown[];
    try {
      counts = (await this.conn.client.pubsub('NUMSUB', ...owners.map((o) => this.keys.commands(o))));
    } catch {
      return; // Redis away: nothing known about the servers; the next check tells
    }
    const gone = new Set(owners.filter((_, i) => Number(counts[2 * i + 1]) === 0));
    for (const [id, p] of watched) if (gone.has(p.watched!.owner)) this.fail(id, p.watched!.owner, p.watched!.sessionId);
  }

  private onMessage(raw: string): void {
    let m: Wire;
    try {
      m = JSON.parse(raw) as Wire;
    } catch {
      return;
    }
    // Anything can be published on the channel: a message that is not an object of ours is
    // dropped here (a `null` used to throw in the listener and end the process).
    if (typeof m !== 'object' || m === null || typeof (m as { id?: unknown }).id !== 'string') return;
    if (m.t === 'reply') {
      if (typeof (m as { ok?: unknown }).ok !== 'boolean') return;
      return this.settle(m.id, m);
    }
    if (m.t !== 'call' || typeof m.from !== 'string' || typeof m.call !== 'object' || m.call === null) return;
    void this.answer(m);
  }

  private async answer(m: Extract<Wire, { t: 'call' }>): Promise<void> {
    let reply: Wire;
    try {
      if (!this.handler) throw new FerretError('writer_unreachable', `ferret instance ${this.instanceId} serves no commands`);
      reply = { t: 'reply', id: m.id, ok: true, result: (await this.handler(m.call)) ?? null };
    } catch (err) {
      const e = isFerretError(err) ? err : new FerretError('internal', (err as Error).message);
      reply = { t: 'reply', id: m.id, ok: false, error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) } };
    }
    await this.conn.client.publish(this.keys.commands(m.from), JSON.stringify(reply)).catch(() => undefined);
  }

  private settle(id: string, m: Extract<Wire, { t: 'reply' }>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve(m.result);
    // A code this version does not know (a server of another version in the fleet) is an internal error here.
    else {
      const e = typeof m.error === 'object' && m.error !== null ? m.error : { code: 'internal', message: 'the other server sent a malformed error' };
      p.reject(new FerretError(isErrorCode(e.code) ? e.code : 'internal', String(e.message), e.data));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.aliveTimer);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new FerretError('storage_unavailable', 'the fleet store is closing'));
      this.pending.delete(id);
    }
    await this.sub.close(500);
  }
}
