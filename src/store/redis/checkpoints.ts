import { checkpointAtOrBefore, type Checkpoint } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { SessionSeal } from './session-seal.js';

/**
 * A checkpoint as stored (the member of the sorted set, `<mac> <json>`, its seq the score), or
 * undefined if it is not one a server of this fleet wrote for this session (reported), or not at
 * the seq it is filed under.
 */
export function parseCheckpoint(seal: SessionSeal, member: string, score: number, where: string): Checkpoint | undefined {
  const json = seal.openRecord('checkpoint', member, where);
  if (json === undefined) return undefined;
  try {
    const c = JSON.parse(json) as Checkpoint;
    if (Number.isInteger(c.seq) && c.seq === score && Number.isInteger(c.at) && typeof c.folds === 'object' && c.folds !== null) return c;
  } catch {
    /* not ours */
  }
  return undefined;
}

/**
 * A session's checkpoints: a sorted set by seq in Redis (any instance can find the one at or
 * before a seq, ZREVRANGEBYSCORE), and the writer's copy in memory, read once when the session
 * is opened, so `checkpointAtOrBefore` answers synchronously as the interface wants.
 */
export class CheckpointList {
  private cps: Checkpoint[] = [];
  /** Whether the key may exist (a reset of an empty, never-written list sends nothing). */
  private stored = false;

  constructor(
    private readonly conn: RedisConnection,
    private readonly key: string,
    private readonly seal: SessionSeal,
  ) {}

  /** Reads every checkpoint (once, when the writer opens the session). */
  async load(): Promise<void> {
    const members = await this.conn.client.zrange(this.key, 0, '-1', 'WITHSCORES');
    const out: Checkpoint[] = [];
    for (let i = 0; i + 1 < members.length; i += 2) {
      const c = parseCheckpoint(this.seal, members[i]!, Number(members[i + 1]), this.key);
      if (c && (out.length === 0 || c.seq > out.at(-1)!.seq)) out.push(c);
    }
    this.cps = out;
    this.stored = members.length > 0;
  }

  add(cp: Checkpoint): void {
    const last = this.cps.at(-1);
    if (last && cp.seq <= last.seq) return;
    this.cps.push(cp);
    this.stored = true;
    // A checkpoint only saves reading: a failed write costs a longer read later, nothing else.
    this.conn.client.zadd(this.key, cp.seq, this.seal.sealRecord('checkpoint', JSON.stringify(cp))).catch(() => undefined);
  }

  atOrBefore(seq: number): Checkpoint | undefined {
    return checkpointAtOrBefore(this.cps, seq);
  }

  /** Drops every checkpoint after `seq` (a cut tail). */
  cutAfter(seq: number): void {
    if (!this.cps.some((c) => c.seq > seq)) return;
    this.cps = this.cps.filter((c) => c.seq <= seq);
    this.conn.client.zremrangebyscore(this.key, `(${seq}`, '+inf').catch(() => undefined);
  }

  reset(): void {
    if (this.cps.length === 0 && !this.stored) return;
    this.cps = [];
    this.stored = false;
    // Commands on one connection run in order: a checkpoint added after this reset is kept.
    this.conn.client.del(this.key).catch(() => undefined);
  }
}

/** Any instance: the checkpoint at or before `seq` straight from Redis (a reader that is not the writer). */
export async function readCheckpoint(conn: RedisConnection, key: string, seal: SessionSeal, seq: number): Promise<Checkpoint | undefined> {
  const r = await conn.client.zrevrangebyscore(key, seq, '-inf', 'WITHSCORES', 'LIMIT', 0, 1);
  return r[0] === undefined ? undefined : parseCheckpoint(seal, r[0], Number(r[1]), key);
}
