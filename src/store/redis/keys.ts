/**
 * Every key the fleet store uses, under one prefix (default `ferret:`), so several fleets (or
 * tests) can share one Redis database. A session's keys carry its id in braces (a Redis Cluster
 * hash tag): the scripts that touch several of them stay on one slot.
 *
 *   <p>s:{ID}:log          stream: the session's events, entry id `<seq>-0`, one field `e` (the event's JSON)
 *   <p>s:{ID}:lease        string: the writer's token, set only if absent, with a TTL it renews
 *   <p>s:{ID}:epoch        counter: bumped by every new lease (a token carries it: fencing)
 *   <p>s:{ID}:cps          sorted set: checkpoints (score seq, member the checkpoint's JSON)
 *   <p>s:{ID}:snap         string: the snapshot's header (state, folds, mark)
 *   <p>s:{ID}:snap:items   list: the snapshot's items, one JSON each
 *   <p>s:{ID}:snap:next    list: a snapshot's items being written (renamed over snap:items when whole)
 *   <p>s:{ID}:cut          list: entries a load could not read, taken off the stream's tail (`<id> <value>`)
 *   <p>metas               hash: session id → its meta JSON (GET /session across the fleet)
 *   <p>metas:order         sorted set (all scores 0, by member): `<inverted updatedAt>:<id>`, newest first
 *   <p>metas:pos           hash: session id → its member in metas:order
 *   <p>audit               stream: every permission decision (the audit log)
 *   <p>audit:persisted     hash: [workspace, sandbox, tool, key] → the latest person's always/never line
 *   <p>cmd:ID              pub/sub channel: commands sent to instance ID, and answers to its own
 */
export class RedisKeys {
  constructor(readonly prefix = 'ferret:') {}

  private s(id: string, what: string): string {
    return `${this.prefix}s:{${id}}:${what}`;
  }

  log(id: string): string {
    return this.s(id, 'log');
  }
  lease(id: string): string {
    return this.s(id, 'lease');
  }
  epoch(id: string): string {
    return this.s(id, 'epoch');
  }
  checkpoints(id: string): string {
    return this.s(id, 'cps');
  }
  snapshot(id: string): string {
    return this.s(id, 'snap');
  }
  snapshotItems(id: string): string {
    return this.s(id, 'snap:items');
  }
  snapshotNext(id: string): string {
    return this.s(id, 'snap:next');
  }
  cut(id: string): string {
    return this.s(id, 'cut');
  }

  get metas(): string {
    return `${this.prefix}metas`;
  }
  get metaOrder(): string {
    return `${this.prefix}metas:order`;
  }
  get metaPos(): string {
    return `${this.prefix}metas:pos`;
  }
  get audit(): string {
    return `${this.prefix}audit`;
  }
  get auditPersisted(): string {
    return `${this.prefix}audit:persisted`;
  }
  /** pub/sub channel: the commands sent to a server, and the answers to the ones it sent. */
  commands(id: string): string {
    return `${this.prefix}cmd:${id}`;
  }
}

/** A stream entry id `<seq>-0` back to its seq (NaN if it is not one of ours). */
export function seqOf(id: string): number {
  const dash = id.indexOf('-');
  return Number(dash < 0 ? id : id.slice(0, dash));
}
