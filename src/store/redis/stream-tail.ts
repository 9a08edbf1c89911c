import type { SessionEvent } from '../../protocol/index.js';
import { LineScanner } from '../line-scanner.js';
import type { RedisConnection } from './connection.js';
import { seqOf } from './keys.js';
import type { SessionSeal } from './session-seal.js';

type Entry = [id: string, fields: string[]];
type XReadReply = [key: string, entries: Entry[]][] | null;

const BLOCK_MS = 5000;
const COUNT = 1000;

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    t.unref();
  });

/**
 * Follows a stream as it grows: XREAD BLOCK from a position, on a connection of its own (a
 * blocking read holds its connection). Across an outage the read waits and goes on from where
 * it was once Redis is back: no entry is missed or seen twice.
 */
export class StreamTail {
  private stopped = false;
  private readonly done: Promise<void>;

  private constructor(
    private readonly conn: RedisConnection,
    private readonly key: string,
    private lastId: string,
    private readonly onEntries: (entries: Entry[]) => void,
  ) {
    this.done = this.loop();
  }

  /** Starts following `key` after entry `fromId` ('0-0': from the start, '$': only what comes from now on). */
  static async start(conn: RedisConnection, key: string, fromId: string, onEntries: (entries: Entry[]) => void, name = 'ferret-tail'): Promise<StreamTail> {
    return new StreamTail(await conn.duplicate(name), key, fromId, onEntries);
  }

  /** The id of the last entry handed out. */
  get position(): string {
    return this.lastId;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let r: XReadReply;
      try {
        r = await this.conn.client.xread('COUNT', COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, this.lastId);
      } catch {
        if (this.stopped) return;
        await this.conn.whenReady(Infinity).catch(() => undefined);
        await sleep(100);
        continue;
      }
      const entries = r?.[0]?.[1];
      if (!entries?.length || this.stopped) continue;
      this.lastId = entries[entries.length - 1]![0];
      try {
        this.onEntries(entries);
      } catch {
        /* the listener's own problem */
      }
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.conn.client.disconnect();
    // A read sent while Redis is away may never settle once the client is disconnected: wait for
    // the loop a moment only (closing the connection below wakes a loop waiting for Redis).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((r) => (timer = setTimeout(r, 500)))]);
    clearTimeout(timer);
    await this.conn.close(0);
  }
}

/**
 * Any instance: a session's events after `afterSeq` as they are written, in chunks (shape-checked,
 * as a replay), until `signal` aborts. An SSE resume on an instance that is not the writer is
 * this from its Last-Event-ID. The first chunks are what the stream already holds.
 *
 * Only signed entries that follow on from the last one are handed out (session-seal.ts): at the
 * first that fails its check or leaves a gap, the tail reports it and hands out nothing more
 * (a writer that takes the session over reads the log again, and stops at the same place).
 */
export async function* tailEvents(conn: RedisConnection, key: string, afterSeq: number, seal: SessionSeal, signal?: AbortSignal): AsyncGenerator<SessionEvent[]> {
  const queue: Entry[][] = [];
  let wake: (() => void) | undefined;
  const tail = await StreamTail.start(conn, key, `${afterSeq}-0`, (entries) => {
    queue.push(entries);
    wake?.();
  });
  const stop = () => {
    wake?.();
  };
  signal?.addEventListener('abort', stop, { once: true });
  const scan = new LineScanner({ seq: afterSeq, at: afterSeq }, afterSeq, false);
  let last = afterSeq;
  let broken = false;
  try {
    while (!signal?.aborted) {
      const entries = queue.shift();
      if (!entries) {
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        continue;
      }
      const lines: string[] = [];
      for (const [id, fields] of entries) {
        const seq = seqOf(id);
        if (broken || seq <= last) continue;
        const v = seq === last + 1 ? seal.open(seq, fields) : seal.drop(seq, `a gap before it: seq ${last + 1} is missing; the session is followed up to ${last}`, fields[1]);
        if (v === undefined) {
          broken = true;
          break;
        }
        lines.push(v);
        last = seq;
      }
      const events: SessionEvent[] = [];
      if (lines.length) scan.feed(Buffer.from(lines.join('\n') + '\n'), events);
      if (events.length) yield events;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    await tail.stop();
  }
}
