import { SessionMetaSchema, type SessionMeta } from '../../protocol/index.js';
import { BadCursorError } from '../session-index.js';
import type { ListOptions, MetaPage } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import { queueScript } from './scripts.js';
import type { SessionSeal } from './session-seal.js';

const DEFAULT_PAGE = 1000;
/** Order members fetched at a time when a filter may skip many. */
const SCAN_BATCH = 256;
/** Date's range is ±8.64e15 ms: `MAX - ms` fits in 17 digits, so members sort by it as text. */
const MAX_MS = 8_640_000_000_000_000;
const INV_DIGITS = 17;

/** A session's member in the newest-first order: `<MAX - updatedAt ms, 17 digits>:<id>` (newest first, then id ascending). */
export function orderMember(updatedAt: string, sessionId: string): string {
  const ms = Date.parse(updatedAt);
  return `${String(MAX_MS - (Number.isFinite(ms) ? ms : 0)).padStart(INV_DIGITS, '0')}:${sessionId}`;
}

const idOf = (member: string) => member.slice(INV_DIGITS + 1);

/** The same cursor as the file store's index: where a page ended, (updatedAt, sessionId) of its last entry. */
function encodeCursor(m: SessionMeta): string {
  return Buffer.from(JSON.stringify([m.updatedAt, m.sessionId])).toString('base64url');
}

function decodeCursor(c: string): { updatedAt: string; sessionId: string } | undefined {
  try {
    const [updatedAt, sessionId] = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown[];
    if (typeof updatedAt !== 'string' || typeof sessionId !== 'string') return undefined;
    return { updatedAt, sessionId };
  } catch {
    return undefined;
  }
}

/** A stored summary (`<mac> <json>`) if a server of this fleet wrote it for session `id` (else reported), and it is one. */
function parseMeta(seal: SessionSeal, stored: string | null, where: string): SessionMeta | undefined {
  if (!stored) return undefined;
  const json = seal.openRecord('session summary', stored, where);
  if (json === undefined) return undefined;
  try {
    const m = SessionMetaSchema.safeParse(JSON.parse(json));
    return m.success && m.data.sessionId === seal.sessionId ? m.data : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    t.unref();
  });

/**
 * Every session's summary across the fleet: a hash of metas, and a sorted set whose members
 * sort newest first, so a page from a cursor is one ZRANGEBYLEX from the cursor's member (no
 * instance holds the whole list). Puts are queued and written once per tick in one pipeline,
 * the latest per session; a write Redis did not take is sent again when it is back.
 */
export class RedisMetaIndex {
  private queue = new Map<string, SessionMeta>();
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  /** Session ids this instance knows exist (made or listed here): what a synchronous `exists` can answer from. */
  readonly known = new Set<string>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly readTimeoutMs: number,
    /** Signs and checks a session's records (the fleet secret). */
    private readonly seal: (id: string) => SessionSeal,
  ) {}

  put(meta: SessionMeta): void {
    this.known.add(meta.sessionId);
    this.queue.set(meta.sessionId, meta);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Writes what is queued; resolves when Redis has every put made so far. */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.queue.size === 0) return this.writing;
    const batch = [...this.queue.values()];
    this.queue.clear();
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: SessionMeta[]): Promise<void> {
    const k = this.keys;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      const p = this.conn.client.pipeline();
      for (const m of batch) queueScript(p, 'putMeta', [k.metas, k.metaOrder, k.metaPos], [m.sessionId, this.seal(m.sessionId).sealRecord('session summary', JSON.stringify(m)), orderMember(m.updatedAt, m.sessionId)]);
      let failed: SessionMeta[];
      try {
        const res = (await p.exec()) ?? [];
        failed = batch.filter((_, i) => res[i]?.[0]);
      } catch {
        failed = batch;
      }
      // A put queued since supersedes the one that failed.
      batch = failed.filter((m) => !this.queue.has(m.sessionId));
      if (batch.length === 0) return;
      if (this.conn.health.state === 'closed') return;
      await this.conn.whenReady(Infinity).catch(() => undefined);
      await sleep(delay);
    }
  }

  /** One page, newest first (updatedAt, then id), from the fleet's index; what this instance put is in it. */
  async page(opts: ListOptions): Promise<MetaPage> {
    let from = '-';
    if (opts.cursor) {
      const after = decodeCursor(opts.cursor);
      if (!after) throw new BadCursorError(`cursor: not a cursor of this server: ${JSON.stringify(opts.cursor)}`);
      from = `(${orderMember(after.updatedAt, after.sessionId)}`;
    }
    const what = 'listing sessions';
    await this.conn.timed(this.readTimeoutMs, what, () => this.flush());
    const limit = Math.max(1, opts.limit ?? DEFAULT_PAGE);
    const batch = opts.filter ? Math.max(limit + 1, SCAN_BATCH) : limit + 1;
    const metas: SessionMeta[] = [];
    let more = false;
    const c = this.conn.client;
    scan: for (;;) {
      const members = await this.conn.timed(this.readTimeoutMs, what, () => c.zrangebylex(this.keys.metaOrder, from, '+', 'LIMIT', 0, batch));
      if (members.length === 0) break;
      const ids = members.map(idOf);
      const jsons = await this.conn.timed(this.readTimeoutMs, what, () => c.hmget(this.keys.metas, ...ids));
      for (let i = 0; i < ids.length; i++) {
        const m = parseMeta(this.seal(ids[i]!), jsons[i] ?? null, this.keys.metas);
        if (!m) continue; // a member whose meta went away meanwhile
        this.known.add(m.sessionId);
        if (opts.filter && !opts.filter(m)) continue;
        if (metas.length < limit) metas.push(m);
        else {
          more = true;
          break scan;
        }
      }
      if (members.length < batch) break;
      from = `(${members[members.length - 1]!}`;
    }
    return { metas, ...(more && metas.length ? { nextCursor: encodeCursor(metas.at(-1)!) } : {}) };
  }

  /** One session's summary from the fleet's index. */
  async get(id: string): Promise<SessionMeta | undefined> {
    const m = parseMeta(this.seal(id), await this.conn.timed(this.readTimeoutMs, 'reading a session summary', () => this.conn.client.hget(this.keys.metas, id)), this.keys.metas);
    if (m) this.known.add(id);
    return m;
  }
}
