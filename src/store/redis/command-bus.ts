import { randomBytes } from 'node:crypto';
import { FerretError, isErrorCode, isFerretError } from '../../protocol/index.js';
import type { FleetCall } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import { BusMessageSchema, type BusMessage } from './bus-messages.js';
import type { FleetTrust } from './fleet-trust.js';

/** How often a call that waits `whileAlive` checks that its server still listens. */
const ALIVE_CHECK_MS = 500;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
  /** The server the call went to: only its reply settles it. */
  owner: string;
  /** Set for a call that fails once its server stops listening (the server it waits on, the session). */
  watched?: { owner: string; sessionId: string };
}

type Call = Extract<BusMessage, { t: 'call' }>;
type Reply = Exclude<BusMessage, Call>;

/**
 * Commands one fleet server sends another over Redis pub/sub (a channel per server): a call for
 * a session the receiver writes, answered on the caller's channel with the receiver's answer or
 * its error (code and message as they are). A server that is gone has no subscriber: the call
 * fails at once, naming it.
 *
 * Every message is sealed with the fleet secret (fleet-trust.ts): one that is not (published by
 * anything else with access to Redis), altered, replayed, stale or of the wrong shape is dropped
 * and reported, never acted on; a reply settles only the call it answers, from the server it
 * was sent to.
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
    private readonly trust: FleetTrust,
  ) {}

  static async start(conn: RedisConnection, keys: RedisKeys, instanceId: string, trust: FleetTrust): Promise<CommandBus> {
    const sub = await conn.duplicate('ferret-commands');
    const bus = new CommandBus(conn, sub, keys, instanceId, trust);
    sub.client.on('message', (channel: unknown, raw: unknown) => bus.onMessage(channel, raw));
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
      const entry: Pending = { resolve, reject, owner };
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
    const channel = this.keys.commands(owner);
    const heard = await this.conn.client.publish(channel, this.trust.seal(channel, { t: 'call', id, from: this.instanceId, call }));
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

  /**
   * A message on this server's channel. Whatever it holds, it never throws (an exception here
   * would be uncaught: one `PUBLISH` could stop every server): what fails its check is dropped.
   */
  private onMessage(channel: unknown, raw: unknown): void {
    try {
      const mine = this.keys.commands(this.instanceId);
      if (channel !== mine) return;
      const body = this.trust.open(mine, raw);
      if (!body) return;
      const m = BusMessageSchema.safeParse(body);
      if (!m.success) {
        const issue = m.error.issues[0];
        this.trust.dropped({ what: 'bus message', why: `signed, but not a call or reply this server knows (${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid'})`, where: mine });
        return;
      }
      if (m.data.t === 'reply') return this.settle(m.data, mine);
      void this.answer(m.data);
    } catch (err) {
      this.trust.dropped({ what: 'bus message', why: `could not be handled: ${(err as Error).message}`, where: String(channel) });
    }
  }

  private async answer(m: Call): Promise<void> {
    let reply: Record<string, unknown>;
    try {
      if (!this.handler) throw new FerretError('writer_unreachable', `ferret instance ${this.instanceId} serves no commands`);
      reply = { t: 'reply', id: m.id, from: this.instanceId, ok: true, result: (await this.handler(m.call)) ?? null };
    } catch (err) {
      const e = isFerretError(err) ? err : new FerretError('internal', (err as Error).message);
      reply = { t: 'reply', id: m.id, from: this.instanceId, ok: false, error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) } };
    }
    const channel = this.keys.commands(m.from);
    try {
      await this.conn.client.publish(channel, this.trust.seal(channel, reply));
    } catch {
      /* the caller times out or sees this server gone */
    }
  }

  private settle(m: Reply, where: string): void {
    const p = this.pending.get(m.id);
    if (!p) return; // answered already, timed out, or a call this server never made
    if (m.from !== p.owner) {
      this.trust.dropped({ what: 'bus message', why: `a reply to call ${m.id} from ${m.from}, which it was not sent to (${p.owner})`, where });
      return;
    }
    this.pending.delete(m.id);
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
