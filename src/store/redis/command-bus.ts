import { randomBytes } from 'node:crypto';
import { FerretError, isErrorCode, isFerretError } from '../../protocol/index.js';
import type { FleetCall } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';

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
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout }>();
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

  /** Sends a call to `owner` and resolves with its answer (`timeoutMs` undefined: as long as it takes, a turn). */
  async call(owner: string, call: FleetCall, timeoutMs?: number): Promise<unknown> {
    const id = randomBytes(8).toString('hex');
    const answer = new Promise<unknown>((resolve, reject) => {
      const entry: { resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout } = { resolve, reject };
      if (timeoutMs !== undefined) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new FerretError('writer_unreachable', `ferret instance ${owner}, which runs session ${call.sessionId}, did not answer within ${timeoutMs} ms`, { owner }));
        }, timeoutMs);
        entry.timer.unref();
      }
      this.pending.set(id, entry);
    });
    const wire: Wire = { t: 'call', id, from: this.instanceId, call };
    const heard = await this.conn.client.publish(this.keys.commands(owner), JSON.stringify(wire));
    if (heard === 0) {
      this.settle(id, { t: 'reply', id, ok: false, error: { code: 'writer_unreachable', message: `ferret instance ${owner}, which runs session ${call.sessionId}, does not answer; another takes it over once its lease runs out: try again shortly`, data: { owner } } });
    }
    return answer;
  }

  private onMessage(raw: string): void {
    let m: Wire;
    try {
      m = JSON.parse(raw) as Wire;
    } catch {
      return;
    }
    if (m.t === 'reply') return this.settle(m.id, m);
    if (m.t !== 'call' || typeof m.from !== 'string') return;
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
    else p.reject(new FerretError(isErrorCode(m.error.code) ? m.error.code : 'internal', m.error.message, m.error.data));
  }

  async close(): Promise<void> {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new FerretError('storage_unavailable', 'the fleet store is closing'));
      this.pending.delete(id);
    }
    await this.sub.close(500);
  }
}
