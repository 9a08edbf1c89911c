import { appendFileSync, mkdirSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { SessionMetaSchema, type SessionMeta } from '../protocol/index.js';
import { eventlogRoot, eventsFile, metaFile, SESSION_DIR_PREFIX } from './paths.js';
import type { ListOptions, MetaPage } from './session-store.js';
import { readWholeLines } from './whole-lines.js';

const CHUNK_BYTES = 256 * 1024;
/** Files read at once when sessions are missing from the index (an index made by an older ferret). */
const READ_CONCURRENCY = 32;
const DEFAULT_PAGE = 1000;
/** meta.json files written at once. */
const META_CONCURRENCY = 32;

const byNewest = (a: SessionMeta, b: SessionMeta) =>
  a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;

/** A cursor is where a page ended, in the list's order: (updatedAt, sessionId) of its last entry. */
function encodeCursor(m: SessionMeta): string {
  return Buffer.from(JSON.stringify([m.updatedAt, m.sessionId])).toString('base64url');
}

function decodeCursor(c: string): SessionMeta | undefined {
  try {
    const [updatedAt, sessionId] = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown[];
    if (typeof updatedAt !== 'string' || typeof sessionId !== 'string') return undefined;
    return { updatedAt, sessionId } as SessionMeta;
  } catch {
    return undefined;
  }
}

export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

/**
 * Every session's summary, kept in memory and in `eventlog/index.jsonl` (one line per change,
 * appended in the background; the last line of a session wins). A process reads the file once,
 * then only what other processes appended since; a session folder the index does not know (one
 * made by an older ferret, or a lost line) is found by listing the folder when its mtime moves,
 * and its meta.json (written when the session is made) or else its log's head is read then. The
 * index line of every later change is what lists it.
 */
export class MetaIndex {
  private readonly metas = new Map<string, SessionMeta>();
  private readonly file: string;
  private readBytes = 0;
  /** The inode of the file read so far: a compaction replaces the file. */
  private ino = -1;
  private lines = 0;
  private loaded: Promise<void> | undefined;
  private dirMtime = -1;
  private sorted: SessionMeta[] | undefined;
  private queue: string[] = [];
  private scheduled = false;
  private compacting = false;
  /** Lines this process appended while a compaction was writing its copy: appended again after it. */
  private duringCompaction: string[] = [];
  /** meta.json files still to write, one per session (the newest summary wins). */
  private readonly metaWrites = new Map<string, SessionMeta>();
  private metaWriting: Promise<void> | undefined;
  private dirMade = false;

  constructor(private readonly home: string) {
    this.file = join(eventlogRoot(home), 'index.jsonl');
  }

  /**
   * Records a change (an index line; none when nothing changed, so callers may put freely);
   * `file` also rewrites the session's meta.json (made, or let go).
   */
  put(meta: SessionMeta, file = false): void {
    const changed = this.set(meta);
    if (changed) this.queue.push(JSON.stringify(meta) + '\n');
    if (file) this.metaWrites.set(meta.sessionId, meta);
    if (changed || file) this.schedule();
  }

  /**
   * Whether the session's summary changed. A line read from the file never takes a session back
   * in time: it may be one of ours, read back after a newer change was made here.
   */
  private set(meta: SessionMeta, fromFile = false): boolean {
    const had = this.metas.get(meta.sessionId);
    if (had && fromFile && had.updatedAt > meta.updatedAt) return false;
    if (had && had.updatedAt === meta.updatedAt && JSON.stringify(had) === JSON.stringify(meta)) return false;
    this.metas.set(meta.sessionId, meta);
    this.sorted = undefined;
    return true;
  }

  /** A deleted session: gone from the list here, and a tombstone line tells other processes. */
  /** Drops a queued meta.json write of this session and waits for one in flight: its folder is about to go. */
  async dropMetaWrite(id: string): Promise<void> {
    this.metaWrites.delete(id);
    await this.metaWriting?.catch(() => undefined);
  }

  remove(id: string): void {
    this.metas.delete(id);
    this.metaWrites.delete(id);
    this.sorted = undefined;
    this.queue.push(JSON.stringify({ sessionId: id, deleted: true }) + '\n');
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /**
   * Writes the queued index lines, once per tick in one synchronous append (as the event log does:
   * the index is as durable as the logs), and the meta.json files in the background.
   */
  flush(): Promise<void> {
    this.scheduled = false;
    const lines = this.queue.join('');
    this.queue = [];
    if (lines) {
      if (this.compacting) this.duringCompaction.push(lines);
      try {
        if (!this.dirMade) mkdirSync(eventlogRoot(this.home), { recursive: true, mode: 0o700 });
        this.dirMade = true;
        appendFileSync(this.file, lines, { mode: 0o600 });
      } catch {
        /* the index is a cache: the folders and their logs are the truth */
      }
    }
    if (this.metaWrites.size && !this.metaWriting) {
      this.metaWriting = this.writeMetas().finally(() => (this.metaWriting = undefined));
    }
    return this.metaWriting ?? Promise.resolve();
  }

  /**
   * Writes every pending meta.json, META_CONCURRENCY at a time, until none is left (what is put
   * meanwhile is taken in the next round). One chain link per write fell behind by thousands of
   * sessions on a busy server (each link waits a few turns of the event loop), so a crash found
   * most sessions without one.
   */
  private async writeMetas(): Promise<void> {
    while (this.metaWrites.size) {
      const batch = [...this.metaWrites.values()].slice(0, META_CONCURRENCY);
      for (const m of batch) this.metaWrites.delete(m.sessionId);
      await Promise.all(batch.map((m) => writeMeta(this.home, m)));
    }
  }

  /** One page, newest first. Reads what other processes added since the last call. */
  async page(opts: ListOptions): Promise<MetaPage> {
    await this.refresh();
    const all = (this.sorted ??= [...this.metas.values()].sort(byNewest));
    let start = 0;
    if (opts.cursor) {
      const after = decodeCursor(opts.cursor);
      if (!after) throw new BadCursorError(`cursor: not a cursor of this server: ${JSON.stringify(opts.cursor)}`);
      // The first entry that sorts after the cursor's (binary search on the sorted list).
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (byNewest(all[mid]!, after) <= 0) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    const limit = Math.max(1, opts.limit ?? DEFAULT_PAGE);
    const metas: SessionMeta[] = [];
    let i = start;
    for (; i < all.length && metas.length < limit; i++) if (!opts.filter || opts.filter(all[i]!)) metas.push(all[i]!);
    let more = false;
    for (let j = i; j < all.length; j++) {
      if (!opts.filter || opts.filter(all[j]!)) {
        more = true;
        break;
      }
    }
    return { metas, ...(more && metas.length ? { nextCursor: encodeCursor(metas.at(-1)!) } : {}) };
  }

  private refresh(): Promise<void> {
    // One refresh at a time, in order; one that failed (a read error) fails its own call only.
    const run = (this.loaded ?? Promise.resolve()).catch(() => undefined).then(() => this.catchUp());
    this.loaded = run;
    return run;
  }

  private async catchUp(): Promise<void> {
    void this.flush();
    let size = 0;
    let ino = -1;
    try {
      ({ size, ino } = await fsp.stat(this.file));
    } catch {
      /* no index yet */
    }
    if (ino !== this.ino || size < this.readBytes) {
      // Another file (a compaction renamed its copy over it, here or in another process), or cut
      // short: read it again from the start. Its size alone does not tell: the copy may be longer
      // than what was read of the old one.
      this.ino = ino;
      this.readBytes = 0;
      this.lines = 0;
    }
    if (size > this.readBytes) await this.readIndex(size);
    await this.scanFolders();
    if (this.lines > 2 * this.metas.size + 1000) await this.compact();
  }

  private async readIndex(size: number): Promise<void> {
    const fh = await fsp.open(this.file, 'r');
    try {
      // A half-written last line is left for next time.
      await readWholeLines(fh, this.readBytes, size, CHUNK_BYTES, async (text, bytes) => {
        this.readBytes += bytes;
        for (const line of text.split('\n')) {
          if (!line) continue;
          this.lines++;
          try {
            const raw = JSON.parse(line) as { sessionId?: unknown; deleted?: unknown };
            if (raw.deleted === true && typeof raw.sessionId === 'string') {
              this.metas.delete(raw.sessionId); // a tombstone: the session was deleted
              this.sorted = undefined;
              continue;
            }
            const m = SessionMetaSchema.safeParse(raw);
            if (m.success) this.set(m.data, true);
          } catch {
            /* a damaged line: the folder scan finds the session again */
          }
        }
        await new Promise((r) => setImmediate(r));
      });
    } finally {
      await fh.close();
    }
  }

  /** Sessions whose folders the index does not know yet: from their meta.json, else their log's head; then added. */
  private async scanFolders(): Promise<void> {
    const root = eventlogRoot(this.home);
    let mtime: number;
    try {
      mtime = (await fsp.stat(root)).mtimeMs;
    } catch {
      return;
    }
    if (mtime === this.dirMtime) return;
    this.dirMtime = mtime;
    let names: string[];
    try {
      names = await fsp.readdir(root);
    } catch {
      return;
    }
    const missing = names.filter((n) => n.startsWith(SESSION_DIR_PREFIX) && !this.metas.has(n.slice(SESSION_DIR_PREFIX.length)));
    for (let i = 0; i < missing.length; i += READ_CONCURRENCY) {
      const metas = await Promise.all(missing.slice(i, i + READ_CONCURRENCY).map((n) => findMeta(this.home, n.slice(SESSION_DIR_PREFIX.length))));
      for (const m of metas) {
        if (!m || this.metas.has(m.sessionId)) continue;
        this.set(m);
        this.queue.push(JSON.stringify(m) + '\n');
      }
    }
    if (this.queue.length) void this.flush();
  }

  /** Rewrites the index with one line per session when it has grown to more than twice that. */
  private async compact(): Promise<void> {
    const text = [...this.metas.values()].map((m) => JSON.stringify(m) + '\n').join('');
    const tmp = `${this.file}.${process.pid}.tmp`;
    this.compacting = true;
    this.duringCompaction = [];
    try {
      await fsp.writeFile(tmp, text, { mode: 0o600 });
      const { ino } = await fsp.stat(tmp);
      await fsp.rename(tmp, this.file);
      // What this process appended meanwhile went to the old file: append it to the new one.
      const again = this.duringCompaction.join('');
      if (again) appendFileSync(this.file, again, { mode: 0o600 });
      // Read on from the end of the copy: what was appended after it (ours) is read back, harmlessly.
      this.ino = ino;
      this.readBytes = Buffer.byteLength(text);
      this.lines = this.metas.size;
    } catch {
      /* keep the long one */
    } finally {
      this.compacting = false;
      this.duringCompaction = [];
    }
  }
}

async function writeMeta(home: string, m: SessionMeta): Promise<void> {
  const file = metaFile(home, m.sessionId);
  try {
    await fsp.writeFile(`${file}.tmp`, JSON.stringify(m), { mode: 0o600 });
    await fsp.rename(`${file}.tmp`, file);
  } catch {
    /* a session folder that went away */
  }
}

/** A session's summary from its meta.json, else (a crash before it was written) from the head of its log. */
async function findMeta(home: string, id: string): Promise<SessionMeta | undefined> {
  return (await readMetaFile(home, id)) ?? (await metaFromLog(home, id));
}

/** cwd, model and mode from session_created, the title from the first prompt, updatedAt from the file's mtime. */
async function metaFromLog(home: string, id: string): Promise<SessionMeta | undefined> {
  try {
    const file = eventsFile(home, id);
    const fh = await fsp.open(file, 'r');
    let head: string;
    let mtime: Date;
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.toString('utf8', 0, bytesRead);
      mtime = (await fh.stat()).mtime;
    } finally {
      await fh.close();
    }
    const lines = head.split('\n');
    const first = JSON.parse(lines[0]!) as { type?: string; ts?: number; data?: Record<string, unknown> };
    if (first.type !== 'session_created' || !first.data || typeof first.ts !== 'number') return undefined;
    let title: string | undefined;
    for (const l of lines.slice(1, -1)) {
      if (!l.includes('"type":"turn_start"')) continue;
      try {
        const t = (JSON.parse(l) as { data?: { text?: unknown } }).data?.text;
        if (typeof t === 'string' && !t.startsWith('/')) title = t.split('\n')[0]!.slice(0, 80);
      } catch {
        /* a line cut by the 64 KB window */
      }
      break;
    }
    // The title the core set (session_info) wins over the first prompt's line.
    for (const l of lines.slice(1, -1)) {
      if (!l.includes('"type":"session_info"')) continue;
      try {
        const t = (JSON.parse(l) as { data?: { title?: unknown } }).data?.title;
        if (typeof t === 'string') title = t;
      } catch {
        /* a line cut by the 64 KB window */
      }
    }
    const parsed = SessionMetaSchema.safeParse({
      sessionId: id,
      cwd: first.data['cwd'],
      model: first.data['model'],
      mode: first.data['mode'],
      ...(title !== undefined ? { title } : {}),
      createdAt: new Date(first.ts).toISOString(),
      updatedAt: mtime.toISOString(),
      costUsd: 0,
    });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function readMetaFile(home: string, id: string): Promise<SessionMeta | undefined> {
  try {
    const parsed = SessionMetaSchema.safeParse(JSON.parse(await fsp.readFile(metaFile(home, id), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
