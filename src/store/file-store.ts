import { appendFileSync, existsSync, readFileSync, rmSync, truncateSync, writeFileSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { FerretError, type SessionEvent, type SessionMeta } from '../protocol/index.js';
import { linePrefix } from './codec.js';
import { EventLogWriter } from './event-log.js';
import { logFds, type FdPool } from './fd-pool.js';
import { LineScanner } from './line-scanner.js';
import { loadedSnapshot } from './loaded-snapshot.js';
import { eventsFile, sessionDir } from './paths.js';
import { askHandoff, lockSession, watchHandoff } from './session-lock.js';
import { MetaIndex } from './session-index.js';
import {
  checkpointAtOrBefore,
  type Checkpoint,
  type EventChunk,
  type EventReader,
  type ListOptions,
  type LoadedSnapshot,
  type LogMark,
  type MetaPage,
  type ReadDamage,
  type ReadOptions,
  type SessionLog,
  type SessionStore,
  type StateSnapshot,
  type StoreStatus,
} from './session-store.js';
import { readWholeLines } from './whole-lines.js';

/** Bytes read per chunk by default: a thousand-odd events, a few ms of work each. */
const CHUNK_BYTES = 128 * 1024;
/** Schema-validated reads (a load folding the log) do ~5 µs per event: smaller chunks keep each turn of the loop short. */
const VALIDATED_CHUNK_BYTES = 32 * 1024;
const SNAPSHOT_VERSION = 2;
/** Bytes of snapshot text written at a time. */
const SNAPSHOT_BATCH = 256 * 1024;

const snapshotFile = (home: string, id: string) => join(sessionDir(home, id), 'snapshot.json');
const checkpointsFile = (home: string, id: string) => join(sessionDir(home, id), 'checkpoints.jsonl');

/**
 * Sessions as files under $CHIMERA_HOME/eventlog/ferret-<id>/: `events.jsonl` (the log, append
 * only), `checkpoints.jsonl` (every few thousand events: where that seq ends in the log, and the
 * folds' states there), `snapshot.json` (the whole folded state at a mark, rewritten as the log
 * grows: a header line, then the history one message a line), `meta.json` (the summary) and
 * `lock` (the writer's pid). `eventlog/index.jsonl` holds
 * every summary for session/list.
 */
export class FileSessionStore implements SessionStore {
  private readonly index: MetaIndex;

  constructor(
    readonly home: string,
    private readonly pool: FdPool = logFds,
  ) {
    this.index = new MetaIndex(home);
  }

  exists(id: string): boolean {
    return existsSync(eventsFile(this.home, id));
  }

  open(id: string, onError: (err: Error) => void, onHandoffAsked?: () => void): SessionLog | { owner: number } {
    const dir = sessionDir(this.home, id);
    const lock = lockSession(dir);
    if ('owner' in lock) return lock;
    const unwatch = onHandoffAsked ? watchHandoff(dir, onHandoffAsked) : () => {};
    const release = () => {
      unwatch();
      lock.release();
    };
    try {
      return new FileSessionLog(this.home, id, this.pool, release, onError);
    } catch (err) {
      release();
      throw err;
    }
  }

  askHandoff(id: string): () => void {
    return askHandoff(sessionDir(this.home, id));
  }

  localFolder(id: string): string | undefined {
    return sessionDir(this.home, id);
  }

  putMeta(meta: SessionMeta, final = false): void {
    this.index.put(meta, final);
  }

  listMetas(opts: ListOptions): Promise<MetaPage> {
    return this.index.page(opts);
  }

  flush(): Promise<void> {
    return this.index.flush();
  }

  status(): StoreStatus {
    return { store: 'file' };
  }

  async remove(id: string): Promise<void> {
    const dir = sessionDir(this.home, id);
    if (!existsSync(dir)) throw new FerretError('session_not_found', `no session ${id}`);
    // Another process (a second server on this home) writing it keeps it.
    const lock = lockSession(dir);
    if ('owner' in lock) throw new FerretError('session_elsewhere', `session ${id} is open in another ferret process (pid ${lock.owner}); close it there first`, { owner: String(lock.owner) });
    // The folder goes before the index entry: a process listing meanwhile cannot find it again.
    try {
      await this.index.dropMetaWrite(id); // the session closed just now: its meta.json must not land mid-delete
      await removeFolder(dir);
    } finally {
      lock.release();
    }
    this.index.remove(id);
    await this.index.flush();
  }

  /** A local disk is always there (a failing write is reported by the log, as it happens). */
  unavailable(): FerretError | undefined {
    return undefined;
  }
}

class FileSessionLog implements SessionLog {
  private readonly writer: EventLogWriter;
  private readonly path: string;
  private cps: Checkpoint[] | undefined;
  private snapshotting: Promise<void> = Promise.resolve();
  private closed = false;
  /** Marks are byte offsets, known once flush() writes (synchronously). */
  readonly marksKnown = 'flushed';

  constructor(
    private readonly home: string,
    private readonly id: string,
    pool: FdPool,
    private readonly release: () => void,
    onError: (err: Error) => void,
  ) {
    this.path = eventsFile(home, id);
    this.writer = new EventLogWriter(this.path, onError, pool);
  }

  append(event: SessionEvent): void {
    this.writer.append(event);
  }

  flush(): void {
    this.writer.flush();
  }

  /** Writes synchronously: flush, then where the log stands (behind the last seq only while writes fail). */
  drain(): Promise<LogMark> {
    this.flush();
    return Promise.resolve(this.writer.written);
  }

  get written(): LogMark {
    return this.writer.written;
  }

  /** Nothing but a failing write stops this log, and that is reported as it happens (onError). */
  unavailable(): FerretError | undefined {
    return undefined;
  }

  get onWritten() {
    return this.writer.onWritten;
  }

  set onWritten(f: ((end: LogMark) => void) | undefined) {
    this.writer.onWritten = f;
  }

  read(afterSeq: number, opts: ReadOptions = {}): EventReader {
    return new FileEventReader(this, this.path, afterSeq, opts);
  }

  /** Where a read after `seq` can start: the checkpoint at or before it, else the beginning. */
  seek(seq: number): LogMark {
    const cp = this.checkpointAtOrBefore(seq);
    return cp ? { seq: cp.seq, at: cp.at } : { seq: 0, at: 0 };
  }

  /** The log end that a read started now may go up to (what is queued is written first). */
  readLimit(): number {
    this.flush();
    return this.writer.written.at;
  }

  repairTail(damage: ReadDamage): void {
    const end = damage.end;
    if (!damage.openTail) return this.writer.resync(end.seq, false); // nothing to repair: the file is as the writer opened it
    if (damage.tornTail) truncateSync(this.path, end.at);
    else appendFileSync(this.path, '\n');
    // Marks past the cut point at nothing now.
    const cps = this.checkpoints();
    if (cps.some((c) => c.at > end.at)) this.writeCheckpoints(cps.filter((c) => c.at <= end.at));
    this.writer.resync(end.seq, true);
  }

  checkpoint(cp: Checkpoint): void {
    const cps = this.checkpoints();
    const last = cps.at(-1);
    if (last && cp.seq <= last.seq) return;
    try {
      appendFileSync(checkpointsFile(this.home, this.id), JSON.stringify(cp) + '\n', { mode: 0o600 });
      cps.push(cp);
    } catch {
      /* a checkpoint only saves reading: without it a read starts further back */
    }
  }

  checkpointAtOrBefore(seq: number): Checkpoint | undefined {
    return checkpointAtOrBefore(this.checkpoints(), seq);
  }

  resetCheckpoints(): void {
    if (this.checkpoints().length === 0 && !existsSync(checkpointsFile(this.home, this.id))) return;
    this.writeCheckpoints([]);
  }

  private checkpoints(): Checkpoint[] {
    if (this.cps) return this.cps;
    const out: Checkpoint[] = [];
    let text = '';
    const file = checkpointsFile(this.home, this.id);
    if (existsSync(file)) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        /* gone meanwhile */
      }
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const c = JSON.parse(line) as Checkpoint;
        if (Number.isInteger(c.seq) && Number.isInteger(c.at) && typeof c.folds === 'object' && (out.length === 0 || c.seq > out.at(-1)!.seq)) out.push(c);
      } catch {
        /* a torn checkpoint line: the ones before it still hold */
      }
    }
    return (this.cps = out);
  }

  private writeCheckpoints(cps: Checkpoint[]): void {
    const file = checkpointsFile(this.home, this.id);
    if (cps.length === 0) rmSync(file, { force: true });
    else writeFileSync(file, cps.map((c) => JSON.stringify(c) + '\n').join(''), { mode: 0o600 });
    this.cps = cps;
  }

  async loadSnapshot(): Promise<LoadedSnapshot | undefined> {
    // Short logs never get one: a synchronous look is cheaper than a failed asynchronous open.
    if (!existsSync(snapshotFile(this.home, this.id))) return undefined;
    let fh;
    try {
      fh = await fsp.open(snapshotFile(this.home, this.id), 'r');
    } catch {
      return undefined;
    }
    let head: { header: SnapshotHeader; bytes: number } | undefined;
    try {
      head = await readHeader((buf, pos) => fh.read(buf, 0, buf.length, pos).then((r) => r.bytesRead));
    } finally {
      await fh.close();
    }
    if (!head) return undefined;
    const log = await fsp.open(this.path, 'r');
    try {
      const size = (await log.stat()).size;
      const w = markWindow(head.header, size);
      const buf = Buffer.alloc(w.len);
      const { bytesRead } = await log.read(buf, 0, w.len, w.pos);
      if (!matchesLog(head.header, size, w.pos, buf.subarray(0, bytesRead))) return undefined;
    } finally {
      await log.close();
    }
    return this.loaded(head.header, head.bytes);
  }

  /** The snapshot's items are read when asked for: one JSON line each, in chunks. */
  private loaded(h: SnapshotHeader, from: number): LoadedSnapshot {
    const file = snapshotFile(this.home, this.id);
    const take = (text: string, out: unknown[]) => {
      for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
    };
    return loadedSnapshot(this.id, h, async () => {
      const out: unknown[] = [];
      const fh = await fsp.open(file, 'r');
      try {
        const rest = await readWholeLines(fh, from, Infinity, CHUNK_BYTES, (t) => take(t, out));
        if (rest) take(rest.toString('utf8'), out);
      } finally {
        await fh.close();
      }
      return out;
    });
  }

  snapshot(snap: StateSnapshot): Promise<void> {
    const file = snapshotFile(this.home, this.id);
    const items = snap.items;
    const write = async () => {
      if (this.closed) return; // never after the lock is given back: another process may write now
      const tmp = `${file}.tmp`;
      const fh = await fsp.open(tmp, 'w', 0o600);
      try {
        const header: SnapshotHeader = { v: SNAPSHOT_VERSION, seq: snap.seq, at: snap.at, folds: snap.folds, state: snap.state, items: items.length };
        let batch = JSON.stringify(header) + '\n';
        // Item by item, a few hundred KB per write: a long history never becomes one big string.
        for (const item of items) {
          batch += JSON.stringify(item) + '\n';
          if (batch.length >= SNAPSHOT_BATCH) {
            await fh.write(batch);
            batch = '';
          }
        }
        await fh.write(batch);
      } finally {
        await fh.close();
      }
      if (this.closed) return void rmSync(tmp, { force: true });
      await fsp.rename(tmp, file);
    };
    this.snapshotting = this.snapshotting.then(write, write);
    return this.snapshotting;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
    this.release();
  }

}

interface SnapshotHeader extends LogMark {
  v: number;
  folds: Record<string, unknown>;
  state: unknown;
  items: number;
}

function parseHeader(text: string): SnapshotHeader | undefined {
  try {
    const s = JSON.parse(text) as Partial<SnapshotHeader>;
    if (s.v !== SNAPSHOT_VERSION || !Number.isInteger(s.seq) || !Number.isInteger(s.at) || !Number.isInteger(s.items)) return undefined;
    if (typeof s.folds !== 'object' || s.folds === null || s.state === undefined) return undefined;
    return s as SnapshotHeader;
  } catch {
    return undefined;
  }
}

/** The snapshot's first line, and the bytes it takes; read a piece at a time until its newline. */
async function readHeader(read: (buf: Buffer, pos: number) => Promise<number>): Promise<{ header: SnapshotHeader; bytes: number } | undefined> {
  const parts: Buffer[] = [];
  for (let pos = 0; ; ) {
    const buf = Buffer.alloc(64 * 1024);
    const n = await read(buf, pos);
    if (n === 0) return undefined;
    const nl = buf.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) {
      parts.push(buf.subarray(0, nl));
      const text = Buffer.concat(parts).toString('utf8');
      const header = parseHeader(text);
      return header ? { header, bytes: pos + nl + 1 } : undefined;
    }
    parts.push(buf.subarray(0, n));
    pos += n;
  }
}

/** A read that started at a checkpoint whose first event is not the next seq: the checkpoint is stale. */
function isStale(start: LogMark, scan: LineScanner): boolean {
  return start.seq > 0 && scan.firstSeq !== undefined && scan.firstSeq !== start.seq + 1;
}

/** The bytes around a mark that matchesLog looks at: up to 1 MiB before it and the start of the line after it. */
function markWindow(mark: LogMark, size: number): { pos: number; len: number } {
  const pos = Math.max(0, Math.min(mark.at, size) - 1 - 1024 * 1024);
  const end = Math.min(size, mark.at + 32);
  return { pos, len: Math.max(0, end - pos) };
}

/**
 * Whether a snapshot mark still points into this log where it was made: the byte before it ends
 * a line, and the line after it (or, at the end, the line before it) has the seq that belongs
 * there. A log cut back by a torn-tail repair, or replaced, fails this. `win` holds the bytes
 * from `pos` (markWindow).
 */
function matchesLog(mark: LogMark, size: number, pos: number, win: Buffer): boolean {
  if (mark.at > size || mark.at < 0) return false;
  if (mark.at === 0) return mark.seq === 0;
  const rel = mark.at - pos;
  if (win[rel - 1] !== 0x0a) return false;
  if (mark.at < size) {
    const want = linePrefix(mark.seq + 1);
    return win.subarray(rel, rel + want.length).toString('utf8') === want;
  }
  // At the end: the last line (a line longer than the window is taken on trust).
  const nl = win.subarray(0, rel - 1).lastIndexOf(0x0a);
  if (nl < 0 && pos > 0) return true;
  return win.subarray(nl + 1, rel).toString('utf8').startsWith(linePrefix(mark.seq));
}

class FileEventReader implements EventReader {
  damage: ReadDamage = { tornTail: false, badLines: 0, openTail: false, end: { seq: 0, at: 0 } };

  constructor(
    private readonly log: FileSessionLog,
    private readonly path: string,
    private readonly after: number,
    private readonly opts: ReadOptions,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<EventChunk> {
    const until = this.log.readLimit();
    let start = this.opts.from ?? this.log.seek(this.after);
    const fh = await fsp.open(this.path, 'r');
    try {
      for (let attempt = 0; ; attempt++) {
        const scan = new LineScanner(start, this.after, this.opts.validate ?? false, this.opts.omitRepeatedChunksUpTo ?? 0);
        const size = this.opts.chunkBytes ?? (this.opts.validate ? VALIDATED_CHUNK_BYTES : CHUNK_BYTES);
        const buf = Buffer.allocUnsafe(size);
        let pos = start.at;
        let stale = false;
        while (pos < until) {
          const { bytesRead } = await fh.read(buf, 0, Math.min(size, until - pos), pos);
          if (bytesRead === 0) break;
          pos += bytesRead;
          const events: SessionEvent[] = [];
          scan.feed(buf.subarray(0, bytesRead), events);
          if ((stale = isStale(start, scan))) break;
          if (events.length) yield { events, end: { seq: scan.lastSeq, at: scan.at } };
        }
        if (stale && attempt === 0) {
          // A checkpoint that no longer matches the log: forget them all and read from the start.
          this.log.resetCheckpoints();
          start = { seq: 0, at: 0 };
          continue;
        }
        const wholeAt = scan.at;
        const seqBefore = scan.lastSeq;
        const tail: SessionEvent[] = [];
        scan.finish(tail);
        this.damage = { tornTail: scan.tornTail, badLines: scan.badLines, openTail: scan.openTail, end: { seq: scan.lastSeq, at: wholeAt } };
        if (tail.length) yield { events: tail, end: { seq: seqBefore, at: wholeAt } };
        return;
      }
    } finally {
      await fh.close();
    }
  }
}

/**
 * rm -r that outlasts the session's own last writes: a session closed just before its delete may
 * still be flushing its log or meta into the folder (ENOTEMPTY while rm walks it); the next try
 * finds those too.
 */
async function removeFolder(dir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fsp.rm(dir, { recursive: true, force: true });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}
