import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerretError, type SessionEvent } from '../../protocol/index.js';
import type { RedisHealth } from './connection.js';
import { runScript } from './scripts.js';
import { MAC_CHARS, SessionSeal } from './session-seal.js';
import type { RedisSessionLog } from './session-log.js';
import { RedisSessionStore } from './store.js';
import { connectStore, created, newPrefix, notice, readAll, sleep, startRedis, TEST_SECRET, until, type RedisServer } from './test-kit.js';

let redis: RedisServer;
let store: RedisSessionStore;
const health: RedisHealth[] = [];
const errors: Error[] = [];

beforeAll(async () => {
  redis = await startRedis(); // an append-only file written before each reply: a kill -9 of Redis loses nothing it acknowledged
  store = await connectStore(redis, newPrefix(), { onHealth: (h) => health.push(h), leaseTtlMs: 3000 });
});
afterAll(async () => {
  await store?.close(1000);
  await redis?.close();
});

async function own(id: string): Promise<RedisSessionLog> {
  const log = await store.openAsync(id, (e) => errors.push(e));
  if ('owner' in log) throw new Error(`busy: ${log.owner}`);
  return log;
}

/** The stream's entries: each seq exactly once, in order, each the event written at it. */
async function expectExactly(id: string, n: number, text: (seq: number) => string): Promise<void> {
  const entries = (await store.conn.client.xrange(store.keys.log(id), '-', '+')) as [string, string[]][];
  expect(entries.length).toBe(n);
  entries.forEach(([eid, fields], i) => {
    expect(eid).toBe(`${i + 1}-0`);
    const e = JSON.parse(fields[1]!) as SessionEvent;
    expect(e.seq).toBe(i + 1);
    if (e.type === 'notice') expect(e.data.text).toBe(text(e.seq));
  });
}

const down = () => until(() => store.health.state === 'down', 5000, 'the store to see redis down');

describe('the redis store while redis is away', () => {
  it('keeps what is appended during an outage, says redis is down, and writes it all once redis is back', async () => {
    const id = randomUUID();
    const log = await own(id);
    log.append(created(id));
    for (let s = 2; s <= 100; s++) log.append(notice(id, s));
    await log.drain();
    store.putMeta({ sessionId: id, cwd: '/w', model: 'm', mode: 'code', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), costUsd: 0 });
    await store.flush();

    health.length = 0;
    await redis.stop();
    await down();
    expect(health[0]).toMatchObject({ state: 'down', url: redis.url });
    // Appends go on in several ticks, each a batch that waits for redis.
    for (let s = 101; s <= 2000; s++) {
      log.append(notice(id, s));
      if (s % 300 === 0) await sleep(20);
    }
    expect(log.written.seq).toBe(100);
    // What redis does not have is read from memory; what only redis has fails clearly, in bounded time.
    expect((await readAll(log.read(100))).map((e) => e.seq)).toEqual(Array.from({ length: 1900 }, (_, i) => 101 + i));
    const t0 = Date.now();
    const err = await readAll(log.read(50)).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(isFerretError(err) && err.code).toBe('storage_unavailable');
    expect((err as Error).message).toMatch(/redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable .*reconnects by itself/);
    await expect(store.listMetas({ limit: 10 })).rejects.toMatchObject({ code: 'storage_unavailable' });

    await redis.restart();
    await until(() => store.health.state === 'ready', 5000, 'the store to see redis back');
    expect(health.map((h) => h.state)).toEqual(['down', 'ready']);
    expect((await log.drain()).seq).toBe(2000);
    await expectExactly(id, 2000, (s) => `n${s}`);
    expect((await store.listMetas({ limit: 10 })).metas.map((m) => m.sessionId)).toContain(id);
    log.close();
    await log.whenClosed();
    expect(errors).toEqual([]);
  });

  it('loses nothing and writes nothing twice when redis is killed (kill -9) in the middle of a burst', async () => {
    const id = randomUUID();
    const log = await own(id);
    log.append(created(id));
    let acks = 0;
    log.onWritten = () => acks++;
    let seq = 1;
    // Bursts of events while redis is killed under them and started again, twice.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) log.append(notice(id, ++seq));
      await until(() => acks > 0 && log.written.seq > seq - 3000, 5000, 'a first acknowledgement');
      for (let i = 0; i < 3000; i++) log.append(notice(id, ++seq));
      await redis.kill();
      for (let i = 0; i < 1000; i++) log.append(notice(id, ++seq));
      await redis.restart();
    }
    expect((await log.drain()).seq).toBe(seq);
    await expectExactly(id, seq, (s) => `n${s}`);
    expect(log.failure).toBeUndefined();
    log.close();
    await log.whenClosed();
  });

  it('makes a session while redis is away: its lease and events are written once redis is back', async () => {
    await redis.stop();
    await down();
    const id = randomUUID();
    const log = store.open(id, (e) => errors.push(e));
    log.append(created(id));
    for (let s = 2; s <= 10; s++) log.append(notice(id, s));
    log.close(); // even closed before redis returns: it writes, then gives the lease back
    await redis.restart();
    await log.whenClosed();
    await expectExactly(id, 10, (s) => `n${s}`);
    expect(await store.owner(id)).toBeUndefined();
  });

  it('writes a resent batch only once: the append script skips what redis already has and refuses what differs', async () => {
    const id = randomUUID();
    const k = store.keys;
    const keys = [k.log(id), k.lease(id), k.epoch(id)];
    await store.conn.client.set(k.epoch(id), '1');
    const fence = ['me#1', '1', 10_000];
    const seal = new SessionSeal(store.trust, id, k.log(id));
    const lines = (from: number, to: number, tag = 'n', sealWith = seal) => {
      const ls = Array.from({ length: to - from + 1 }, (_, i) => JSON.stringify(notice(id, from + i, `${tag}${from + i}`)));
      return [ls.length, ls.join('\n'), ls.map((l, i) => sealWith.mac(from + i, l)).join(''), MAC_CHARS];
    };
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 1, ...lines(1, 5)])).toEqual(['OK', '5']);
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 1, ...lines(1, 5)])).toEqual(['OK', '5']); // the same again
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 4, ...lines(4, 8)])).toEqual(['OK', '8']); // overlapping
    await expectExactly(id, 8, (s) => `n${s}`);
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 8, ...lines(8, 9, 'x')])).toEqual(['CONFLICT', '8']);
    // The same events under another MAC (another session's seal): not what redis has either.
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 8, ...lines(8, 9, 'n', new SessionSeal(store.trust, 'other', k.log(id)))])).toEqual(['CONFLICT', '8']);
    expect(await runScript(store.conn.client, 'append', keys, [...fence, 11, ...lines(11, 12)])).toEqual(['GAP', '8']);
    expect(await runScript(store.conn.client, 'append', keys, ['other#2', '2', 10_000, 9, ...lines(9, 9)])).toEqual(['LOST', 'me#1']);
    await expectExactly(id, 8, (s) => `n${s}`);
  });

  it('refuses to start when redis cannot be reached, naming it', async () => {
    await redis.stop();
    try {
      const t0 = Date.now();
      const err = await RedisSessionStore.connect({ url: redis.url, secret: TEST_SECRET, connectTimeoutMs: 500 }).catch((e: unknown) => e);
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(isFerretError(err) && err.code).toBe('storage_unavailable');
      expect((err as Error).message).toMatch(/starting the fleet store: redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable \(.*ECONNREFUSED.*\)/);
    } finally {
      await redis.restart();
      await until(() => store.health.state === 'ready', 5000, 'the store to see redis back');
    }
  });
});
