import { appendFileSync, closeSync, openSync, readSync, statSync, promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';

/** Bytes read at a time: a million-line log is scanned in bounded memory. */
const CHUNK_BYTES = 1024 * 1024;
/** After this many new bytes scanned, the person decisions found are added to the index. */
const INDEX_EVERY_BYTES = 256 * 1024;
/** Lines that may decide a later request (AuditLog keeps only these): a cheap test before JSON.parse. */
const PERSON = /"by"\s*:\s*"person"/;
const PERSISTED = /"decision"\s*:\s*"(?:always|never)"/;

/** Which file the log is: a log deleted and made again (or replaced) is another log, whose index starts over. */
interface LogStat {
  id: string;
  size: number;
}
const logStat = (st: { dev: number; ino: number; birthtimeMs: number; size: number }): LogStat => ({ id: `${st.dev}:${st.ino}:${st.birthtimeMs}`, size: st.size });

/** What newLines() found: the lines, and whether the log was replaced since the last call (forget what it decided). */
export interface NewLines {
  lines: string[];
  reset: boolean;
}

/** Signs and checks the index's own lines with the audit log's key. */
export interface IndexSigner {
  sign(body: string): string | undefined;
  verify(line: string): boolean;
}

/**
 * The audit log's index (`audit.index.jsonl` beside `audit.jsonl`): the lines that can decide a
 * later request (a person's "always"/"never"), each with its byte offset in the log, and signed
 * marks `{"upTo":N}` saying every such line before byte N is above. A process reads the index
 * (small) and then only the log's bytes after the last mark, instead of the whole log: a shared
 * log of a million policy decisions costs a new process nothing. Lines are handed out in log
 * order, raw, for AuditLog to verify and apply as before.
 *
 * A mark names the log it was made for (device, inode, birth time) and holds only while the log
 * is at least that long: a log deleted, replaced or cut short is read again from its start, and
 * an index entry counts only under a mark of the current log (an old "always" never comes back).
 */
export class AuditIndex {
  private readonly file: string;
  /** The log is applied up to here: [0, logBytes) went through newLines(). */
  private logBytes = 0;
  private indexBytes = 0;
  /** Person lines found by our own scan since the last mark we wrote or read. */
  private unindexed: { at: number; line: string }[] = [];
  private markedUpTo = 0;
  /** Lines found by prepare() and not yet handed out. */
  private ready: { at: number; line: string }[] = [];
  /** The log these offsets are in (undefined: not seen yet). */
  private logId: string | undefined;
  /** Set when the log turned out to be another file: the next newLines() says so. */
  private wasReset = false;

  constructor(
    private readonly log: string,
    private readonly signer: IndexSigner,
  ) {
    this.file = join(dirname(log), 'audit.index.jsonl');
  }

  /** The decision lines appended to the log since the last call (all of them the first time), oldest first. */
  newLines(): NewLines {
    // Per lookup: a missing file answers without a thrown error (the index is missing until the log is long).
    let st: LogStat | undefined;
    try {
      const s = statSync(this.log, { throwIfNoEntry: false });
      if (s) st = logStat(s);
    } catch {
      /* no log yet */
    }
    this.checkLog(st);
    const out = this.ready;
    this.ready = [];
    if (st) {
      this.readIndexSync(out, st);
      this.scanSync(out, st);
      this.writeIndex(st);
    }
    const reset = this.wasReset;
    this.wasReset = false;
    return { lines: sortUnique(out), reset };
  }

  /** The same reading done ahead, in chunks that yield (the idle warm-up): the next newLines() has little left. */
  async prepare(): Promise<void> {
    let st: LogStat | undefined;
    try {
      st = logStat(await fsp.stat(this.log));
    } catch {
      /* no log yet */
    }
    this.checkLog(st);
    if (!st) return;
    const out = this.ready;
    await this.readIndex(out, st);
    await this.scan(out, st);
    this.writeIndex(st);
  }

  /** A log that is another file than last time, or shorter than what was read: start over (the caller forgets its decisions). */
  private checkLog(st: LogStat | undefined): void {
    const replaced = this.logId !== undefined && (st === undefined || st.id !== this.logId || st.size < this.logBytes);
    if (replaced) {
      this.logBytes = 0;
      this.appliedBelow = 0;
      this.markedUpTo = 0;
      this.unindexed = [];
      this.ready = [];
      this.wasReset = true;
    }
    this.logId = st?.id;
  }

  /** Index lines after what we read: entries past what we applied, and marks. */
  private takeIndex(text: string, out: { at: number; line: string }[], st: LogStat): void {
    // Entries are written just before the mark that covers them: they count once that mark does.
    let pending: { at: number; line: string }[] = [];
    for (const raw of text.split('\n')) {
      if (!raw) continue;
      let e: { at?: unknown; line?: unknown; upTo?: unknown; log?: unknown };
      try {
        e = JSON.parse(raw) as typeof e;
      } catch {
        continue;
      }
      if (typeof e.upTo === 'number') {
        // Only a signed mark of this very log, no longer than it is (a forged or stale mark could hide a "never").
        if (e.log === st.id && e.upTo <= st.size && this.signer.verify(raw)) {
          for (const x of pending) if (x.at >= this.appliedBelow && x.at < e.upTo) out.push(x);
          if (e.upTo > this.logBytes) this.logBytes = e.upTo;
          this.markedUpTo = Math.max(this.markedUpTo, e.upTo);
        }
        pending = [];
        continue;
      }
      if (typeof e.at === 'number' && typeof e.line === 'string') pending.push({ at: e.at, line: e.line });
    }
  }

  /** Entries below this offset were applied already (by our own scan or an earlier index read). */
  private appliedBelow = 0;

  private readIndexSync(out: { at: number; line: string }[], st: LogStat): void {
    let size: number;
    try {
      const s = statSync(this.file, { throwIfNoEntry: false });
      if (!s) return;
      size = s.size;
    } catch {
      return;
    }
    if (size <= this.indexBytes) return;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - this.indexBytes);
      const n = readSync(fd, buf, 0, buf.length, this.indexBytes);
      this.takeIndexBytes(buf.subarray(0, n), out, st);
    } finally {
      closeSync(fd);
    }
  }

  private async readIndex(out: { at: number; line: string }[], st: LogStat): Promise<void> {
    let size: number;
    try {
      size = (await fsp.stat(this.file)).size;
    } catch {
      return;
    }
    const from = this.indexBytes;
    if (size <= from) return;
    const fh = await fsp.open(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - from);
      const { bytesRead } = await fh.read(buf, 0, buf.length, from);
      // A lookup (newLines, synchronous) may have read this part while we waited: then it is taken.
      if (this.indexBytes !== from) return;
      this.takeIndexBytes(buf.subarray(0, bytesRead), out, st);
    } finally {
      await fh.close();
    }
  }

  private takeIndexBytes(buf: Buffer, out: { at: number; line: string }[], st: LogStat): void {
    const end = buf.lastIndexOf(0x0a) + 1; // a half-written last line is read next time
    this.indexBytes += end;
    this.takeIndex(buf.toString('utf8', 0, end), out, st);
  }

  private scanSync(out: { at: number; line: string }[], st: LogStat): void {
    const size = st.size;
    if (size <= this.logBytes) return;
    const fd = openSync(this.log, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.logBytes));
      while (this.logBytes < size) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - this.logBytes), this.logBytes);
        if (n === 0 || !this.takeLog(buf.subarray(0, n), out, n === size - this.logBytes)) break;
      }
    } finally {
      closeSync(fd);
    }
  }

  private async scan(out: { at: number; line: string }[], st: LogStat): Promise<void> {
    const size = st.size;
    if (size <= this.logBytes) return;
    const fh = await fsp.open(this.log, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.logBytes));
      while (this.logBytes < size) {
        const at = this.logBytes;
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - at), at);
        // A lookup (newLines, synchronous) read on while we waited: this chunk is its already; go on from where it stopped.
        if (this.logBytes !== at) continue;
        if (bytesRead === 0 || !this.takeLog(buf.subarray(0, bytesRead), out, bytesRead === size - at)) break;
      }
    } finally {
      await fh.close();
    }
  }

  /** Takes the whole lines of one chunk read at logBytes; false when none is whole (a half-written last line). */
  private takeLog(buf: Buffer, out: { at: number; line: string }[], last: boolean): boolean {
    let end = buf.lastIndexOf(0x0a) + 1;
    if (end === 0) {
      if (last) return false; // a half-written line: next time
      end = buf.length; // a line longer than a chunk: not one of ours to apply (ours are short); skip it
    }
    let at = this.logBytes;
    const text = buf.toString('utf8', 0, end);
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      const line = text.slice(from, nl < 0 ? text.length : nl);
      if (line && PERSON.test(line) && PERSISTED.test(line)) {
        const e = { at, line };
        out.push(e);
        this.unindexed.push(e);
      }
      if (nl < 0) break;
      at += Buffer.byteLength(line) + 1;
      from = nl + 1;
    }
    this.logBytes += end;
    this.appliedBelow = this.logBytes;
    return true;
  }

  /** Adds what our scan found to the index, with a signed mark, once enough new log was scanned. */
  private writeIndex(st: LogStat): void {
    this.appliedBelow = this.logBytes;
    if (this.logBytes - this.markedUpTo < INDEX_EVERY_BYTES) return;
    const mark = this.signer.sign(JSON.stringify({ upTo: this.logBytes, log: st.id }));
    if (!mark) return;
    const lines = this.unindexed.map((e) => JSON.stringify(e) + '\n').join('') + mark + '\n';
    try {
      appendFileSync(this.file, lines, { mode: 0o600 });
      this.unindexed = [];
      this.markedUpTo = this.logBytes;
    } catch {
      /* no index: the next process scans a little more */
    }
  }
}

function sortUnique(xs: { at: number; line: string }[]): string[] {
  xs.sort((a, b) => a.at - b.at);
  const out: string[] = [];
  let last = -1;
  for (const x of xs) {
    if (x.at === last) continue;
    last = x.at;
    out.push(x.line);
  }
  return out;
}
