import type { SessionEvent } from '../../protocol/index.js';
import { LineScanner } from '../line-scanner.js';
import type { EventChunk, EventReader, ReadDamage, ReadOptions } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import { seqOf } from './keys.js';
import type { SessionSeal } from './session-seal.js';

/** Bytes per chunk by default, as the file store: a thousand-odd events. */
export const CHUNK_BYTES = 128 * 1024;
/** Schema-validated reads (a load folding the log): smaller chunks keep each turn of the loop short. */
export const VALIDATED_CHUNK_BYTES = 32 * 1024;
const MIN_COUNT = 16;
const MAX_COUNT = 4096;

/** Events the writer holds that Redis does not have yet (queued, or sent and not acknowledged). */
export interface UnwrittenSource {
  /** The seq of the last event Redis has acknowledged: everything after it is in memory. */
  writtenSeq(): number;
  /** The JSON of events `from`.. (at most `limit`, about `maxBytes`), contiguous; empty if none. */
  unwritten(from: number, limit: number, maxBytes: number): string[];
}

export interface StreamReadParams {
  conn: RedisConnection;
  key: string;
  afterSeq: number;
  /** The last seq to read (what was appended when the read started); Infinity: to the stream's end. */
  limit: number;
  opts: ReadOptions;
  readTimeoutMs: number;
  memory?: UnwrittenSource | undefined;
  what: string;
  /** Checks each entry's MAC: the read ends before the first that fails, or that does not follow the one before. */
  seal: SessionSeal;
}

type Entry = [id: string, fields: string[]];

/**
 * A read of one session's stream after a seq: XRANGE in bounded chunks (each awaited), then
 * what the writer still holds in memory, in seq order with no gap. Entry ids are seqs, so the
 * read starts exactly where it is asked to (no checkpoint to seek from). Lines go through the
 * file store's scanner: the same validation, the same leaving out of repeated chunks.
 *
 * Only a signed, unbroken run of entries is read (session-seal.ts): the read ends before the
 * first entry whose MAC fails or whose seq does not follow the last one, as a file's read ends
 * at a torn line, and counts it a bad line (a writer's load then moves the rest aside).
 */
export class StreamReader implements EventReader {
  damage: ReadDamage;

  constructor(private readonly p: StreamReadParams) {
    this.damage = { tornTail: false, badLines: 0, openTail: false, end: { seq: p.afterSeq, at: p.afterSeq } };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EventChunk> {
    const { conn, key, afterSeq, limit, opts, memory } = this.p;
    const bytes = opts.chunkBytes ?? (opts.validate ? VALIDATED_CHUNK_BYTES : CHUNK_BYTES);
    const scan = new LineScanner({ seq: afterSeq, at: afterSeq }, afterSeq, opts.validate ?? false, opts.omitRepeatedChunksUpTo ?? 0);
    let count = clamp(Math.floor(bytes / 512));
    let cursor = afterSeq;
    const mark = () => ({ seq: scan.lastSeq, at: scan.lastSeq });
    let broken = false;
    while (cursor < limit && !broken) {
      let lines: string[];
      if (memory && cursor >= memory.writtenSeq()) {
        lines = memory.unwritten(cursor + 1, limit, bytes);
        if (lines.length === 0) break;
        cursor += lines.length;
      } else {
        const end = Number.isFinite(limit) ? String(limit) : '+';
        const start = String(cursor + 1);
        const reply = (await conn.timed(this.p.readTimeoutMs, this.p.what, () => conn.client.xrange(key, start, end, 'COUNT', count))) as Entry[];
        if (reply.length === 0) {
          // Nothing in Redis after the cursor: what is left (if anything) is still in memory.
          if (memory && cursor < memory.writtenSeq()) break; // a gap: the stream lost entries it acknowledged
          if (!memory) break;
          continue;
        }
        lines = [];
        let size = 0;
        for (const [id, fields] of reply) {
          const seq = seqOf(id);
          const v = seq === cursor + 1 ? this.p.seal.open(seq, fields) : this.p.seal.drop(seq, `a gap before it: seq ${cursor + 1} is missing; the log is read up to ${cursor}`, fields[1]);
          if (v === undefined) {
            scan.badLines++;
            broken = true;
            break;
          }
          size += v.length;
          lines.push(v);
          cursor = seq;
        }
        // The next request's COUNT: about `bytes` of entries the size of these.
        count = clamp(Math.floor(bytes / Math.max(1, size / Math.max(1, lines.length))));
      }
      const events: SessionEvent[] = [];
      if (lines.length) scan.feed(Buffer.from(lines.join('\n') + '\n'), events);
      if (events.length) yield { events, end: mark() };
    }
    const before = mark();
    const tail: SessionEvent[] = [];
    scan.finish(tail);
    this.damage = { tornTail: false, badLines: scan.badLines, openTail: false, end: mark() };
    if (tail.length) yield { events: tail, end: before };
  }
}

function clamp(n: number): number {
  return Math.max(MIN_COUNT, Math.min(MAX_COUNT, Number.isFinite(n) ? n : MIN_COUNT));
}
