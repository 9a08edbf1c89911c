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

/** After an entry that fails its check, the tail reads again from before it this much later (a writer may have moved it aside). */
const RETRY_MS = 1000;

/**
 * Any instance: a session's events after `afterSeq` as they are written, in chunks (shape-checked,
 * as a replay), until `signal` aborts. An SSE resume on an instance that is not the writer is
 * this from its Last-Event-ID. The first chunks are what the stream already holds.
 *
 * Only signed entries that follow on from the last one are handed out (session-seal.ts). At the
 * first that fails its check or leaves a gap, the tail reports it (once) and hands out nothing
 * past it; it reads again from the last good entry every RETRY_MS, so once a writer that loads
 * the session moves the bad entry aside and writes that seq itself, the tail goes on.
 */
export async function* tailEvents(conn: RedisConnection, key: string, afterSeq: number, seal: SessionSeal, signal?: AbortSignal): AsyncGenerator<SessionEvent[]> {
  let queue: Entry[][] = [];
  let wake: (() => void) | undefined;
  const follow = (from: number) =>
    StreamTail.start(conn, key, `${from}-0`, (entries) => {
      queue.push(entries);
      wake?.();
    });
  let tail = await follow(afterSeq);
  const stop = () => {
    wake?.();
  };
  signal?.addEventListener('abort', stop, { once: true });
  const scan = new LineScanner({ seq: afterSeq, at: afterSeq }, afterSeq, false);
  let last = afterSeq;
  let reported = '';
  try {
    while (!signal?.aborted) {
      const entries = queue.shift();
      if (!entries) {
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        continue;
      }
      const lines: string[] = [];
      let bad: { seq: number; why: string; sample: string | undefined } | undefined;
      for (const [id, fields] of entries) {
        const seq = seqOf(id);
        if (seq <= last) continue;
        const v = seq === last + 1 ? seal.check(seq, fields) : { why: `a gap before it: seq ${last + 1} is missing; the session is followed up to ${last}` };
        if (typeof v !== 'string') {
          bad = { seq, why: v.why, sample: fields[1] };
          break;
        }
        lines.push(v);
        last = seq;
      }
      const events: SessionEvent[] = [];
      if (lines.length) scan.feed(Buffer.from(lines.join('\n') + '\n'), events);
      if (events.length) yield events;
      if (bad && !signal?.aborted) {
        const what = `${bad.seq} ${bad.why} ${bad.sample ?? ''}`;
        if (what !== reported) seal.drop(bad.seq, bad.why, bad.sample);
        reported = what;
        await tail.stop();
        queue = [];
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, RETRY_MS).unref();
        });
        wake = undefined;
        if (signal?.aborted) break;
        tail = await follow(last);
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    await tail.stop();
  }
}
