import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSession } from '../../core/sessions/session-load.js';
import type { SessionEvent } from '../../protocol/index.js';
import type { RedisSessionStore } from './store.js';
import type { RedisSessionLog } from './session-log.js';
import { chunk, connectStore, created, message, newPrefix, notice, readAll, startRedis, until, type RedisServer } from './test-kit.js';

let redis: RedisServer;
let store: RedisSessionStore;
const errors: Error[] = [];
const onError = (e: Error) => errors.push(e);

beforeAll(async () => {
  redis = await startRedis();
  store = await connectStore(redis, newPrefix());
});
afterAll(async () => {
  await store?.close();
  await redis?.close();
});

async function openLog(id = randomUUID()): Promise<RedisSessionLog> {
  const log = await store.openAsync(id, onError);
  if ('owner' in log) throw new Error(`busy: ${log.owner}`);
  return log;
}

function write(log: RedisSessionLog, id: string, from: number, to: number, make: (id: string, seq: number) => SessionEvent = notice): void {
  for (let seq = from; seq <= to; seq++) log.append(seq === 1 ? created(id) : make(id, seq));
}

describe('the redis session log', () => {
  it('writes events in order as stream entries whose ids are their seqs, and reads them back', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    const marks: number[] = [];
    log.onWritten = (m) => marks.push(m.seq);
    write(log, id, 1, 50);
    expect(log.written.seq).toBe(0); // acknowledged later, once per tick
    const end = await log.drain();
    expect(end).toEqual({ seq: 50, at: 50 });
    expect(marks.at(-1)).toBe(50);
    const entries = (await store.conn.client.xrange(store.keys.log(id), '-', '+')) as [string, string[]][];
    expect(entries.map(([eid]) => eid)).toEqual(Array.from({ length: 50 }, (_, i) => `${i + 1}-0`));
    expect(JSON.parse(entries[9]![1][1]!)).toMatchObject({ seq: 10, type: 'notice' });
    const events = await readAll(log.read(0, { validate: true }));
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    log.close();
    await log.whenClosed();
    expect(await store.owner(id)).toBeUndefined(); // the lease went with the close
    expect(errors).toEqual([]);
  });

  it('reads from any seq in bounded chunks, to what was appended when the read started', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 3000, (i, s) => notice(i, s, 'x'.repeat(200)));
    await log.drain();
    const reader = log.read(1234, { chunkBytes: 8 * 1024 });
    log.append(notice(id, 3001)); // after the read started: not read
    const chunks: number[][] = [];
    for await (const c of reader) {
      chunks.push(c.events.map((e) => e.seq));
      expect(c.end.seq).toBe(c.events.at(-1)!.seq);
    }
    const seqs = chunks.flat();
    expect(seqs[0]).toBe(1235);
    expect(seqs.at(-1)).toBe(3000);
    expect(seqs).toEqual(Array.from({ length: 3000 - 1234 }, (_, i) => 1235 + i));
    expect(chunks.length).toBeGreaterThan(10);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(100); // ~8 KB of 250-byte events
    expect(reader.damage).toMatchObject({ badLines: 0, tornTail: false, end: { seq: 3000 } });
    log.close();
  });

  it('serves what Redis has not acknowledged yet from memory, in order with what it has', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 100);
    await log.drain();
    write(log, id, 101, 150); // queued, not sent yet
    expect(log.written.seq).toBe(100);
    const events = await readAll(log.read(90));
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => 91 + i));
    await log.drain();
    log.close();
  });

  it('leaves out the chunks a message repeats, and counts an entry that does not validate', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    log.append(created(id));
    for (let s = 2; s <= 10; s++) log.append(chunk(id, s));
    log.append(message(id, 11, 'whole'));
    log.append(chunk(id, 12, 'kept: nothing repeats it'));
    await log.drain();
    const replay = await readAll(log.read(0, { omitRepeatedChunksUpTo: 12 }));
    expect(replay.map((e) => e.seq)).toEqual([1, 11, 12]);
    // A foreign entry at 13 (not an event): left out and counted (a reader on any instance reads to the stream's end).
    await store.conn.client.xadd(store.keys.log(id), '13-0', 'e', '{"seq":13,"not":"an event"}');
    const r = store.readEvents(id, 0, { validate: true });
    expect((await readAll(r)).length).toBe(12);
    expect(r.damage.badLines).toBe(1);
    expect(r.damage.end.seq).toBe(12);
    expect((await readAll(log.read(0))).length).toBe(12); // the writer reads to what it wrote
    log.close();
  });

  it('keeps a snapshot (state, folds, items) and finds it again; a stream that lost its mark is not matched', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 40);
    const end = await log.drain();
    const items = Array.from({ length: 3000 }, (_, i) => ({ role: 'user', text: `m${i} ${'y'.repeat(100)}` }));
    await log.snapshot({ ...end, folds: { f: { n: 1 } }, state: { v: 7 }, items });
    log.close();
    await log.whenClosed();

    const again = await openLog(id);
    const snap = await again.loadSnapshot();
    expect(snap).toMatchObject({ seq: 40, at: 40, folds: { f: { n: 1 } }, state: { v: 7 }, itemCount: 3000 });
    expect(await snap!.readItems()).toEqual(items);
    // No synchronous reads at all: the seam has none (it used to have them, throwing here).
    expect(['loadSnapshotSync', 'readSync'].filter((m) => m in again)).toEqual([]);
    again.close();
    await again.whenClosed();

    // The entry at the mark replaced by another event: the snapshot no longer matches.
    await store.conn.client.xdel(store.keys.log(id), '40-0');
    const third = await openLog(id);
    expect(await third.loadSnapshot()).toBeUndefined();
    third.close();
  });

  it('keeps checkpoints across opens, answers the one at or before a seq, and forgets them on reset', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 30);
    await log.drain();
    log.checkpoint({ seq: 10, at: 10, folds: { a: 10 } });
    log.checkpoint({ seq: 20, at: 20, folds: { a: 20 } });
    log.checkpoint({ seq: 15, at: 15, folds: { a: 15 } }); // not after the last: ignored
    expect(log.checkpointAtOrBefore(19)).toMatchObject({ seq: 10 });
    log.close();
    await log.whenClosed();
    const again = await openLog(id);
    expect(again.checkpointAtOrBefore(25)).toMatchObject({ seq: 20, folds: { a: 20 } });
    expect(again.checkpointAtOrBefore(9)).toBeUndefined();
    expect(await store.checkpointAt(id, 19)).toMatchObject({ seq: 10 }); // any instance, from Redis
    again.resetCheckpoints();
    expect(again.checkpointAtOrBefore(25)).toBeUndefined();
    again.close();
    await again.whenClosed();
    expect(await store.checkpointAt(id, 25)).toBeUndefined();
  });

  it('is loaded by the core (snapshot, tail folded, checkpoints), and cuts a tail it could not read before appending', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 5000);
    await log.drain();
    log.close();
    await log.whenClosed();
    await store.conn.client.xadd(store.keys.log(id), '5001-0', 'e', 'not json');

    const again = await openLog(id);
    const loaded = await loadSession(id, again, []);
    expect(loaded.lastSeq).toBe(5000);
    expect(loaded.rebuilt).toBe(true);
    expect(loaded.damage.badLines).toBe(1);
    const cp = again.checkpointAtOrBefore(5000)?.seq ?? 0; // every 2,048 events or so (at a chunk's end), as the file store
    expect(cp).toBeGreaterThanOrEqual(4096);
    expect(again.checkpointAtOrBefore(cp - 1)?.seq).toBeGreaterThanOrEqual(2048);
    again.append(notice(id, 5001)); // after the cut: seq 5001 again, no conflict
    await again.drain();
    const entries = (await store.conn.client.xrevrange(store.keys.log(id), '+', '-', 'COUNT', 1)) as [string, string[]][];
    expect(entries[0]![0]).toBe('5001-0');
    expect(JSON.parse(entries[0]![1][1]!)).toMatchObject({ type: 'notice' });
    expect(again.failure).toBeUndefined();
    expect(await store.conn.client.lrange(store.keys.cut(id), 0, -1)).toEqual(['5001-0 not json']); // kept aside
    again.close();
    expect(errors).toEqual([]);
  });

  it('is followed live by any instance from a seq (XREAD BLOCK): what the stream holds, then what is written, until aborted', async () => {
    const id = randomUUID();
    const log = await openLog(id);
    write(log, id, 1, 20);
    await log.drain();
    const ac = new AbortController();
    const seen: number[] = [];
    const following = (async () => {
      for await (const events of store.tail(id, 5, ac.signal)) {
        seen.push(...events.map((e) => e.seq));
        if (seen.at(-1) === 30) ac.abort();
      }
    })();
    await until(() => seen.length === 15, 3000, 'the stream so far');
    write(log, id, 21, 30);
    await following;
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => 6 + i));
    log.close();
  });
});
