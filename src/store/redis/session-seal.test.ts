import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSession } from '../../core/sessions/session-load.js';
import type { SessionEvent } from '../../protocol/index.js';
import type { Dropped } from './fleet-trust.js';
import type { RedisSessionLog } from './session-log.js';
import type { RedisSessionStore } from './store.js';
import { connectStore, created, newPrefix, notice, readAll, startRedis, until, type RedisServer } from './test-kit.js';

// Someone who can write to the fleet's Redis but has no fleet secret edits a session's log and
// records: every entry and record they wrote (or moved) is dropped and reported, never folded.

let redis: RedisServer;
let store: RedisSessionStore;
const dropped: Dropped[] = [];
const errors: Error[] = [];

beforeAll(async () => {
  redis = await startRedis();
  store = await connectStore(redis, newPrefix(), { onDropped: (d) => dropped.push(d) });
});
afterAll(async () => {
  await store?.close();
  await redis?.close();
});

async function openLog(id: string): Promise<RedisSessionLog> {
  const log = await store.openAsync(id, (e) => errors.push(e));
  if ('owner' in log) throw new Error(`busy: ${log.owner}`);
  return log;
}

/** A session of `n` events, written and closed (its lease given back). */
async function session(n: number): Promise<string> {
  const id = randomUUID();
  const log = await openLog(id);
  for (let s = 1; s <= n; s++) log.append(s === 1 ? created(id) : notice(id, s));
  await log.drain();
  log.close();
  await log.whenClosed();
  return id;
}

const approval = (id: string, seq: number): SessionEvent => ({ seq, sessionId: id, ts: Date.now(), type: 'approval_changed', data: { old: 'suggest', new: 'full-auto' } });
const entries = async (id: string) => (await store.conn.client.xrange(store.keys.log(id), '-', '+')) as [string, string[]][];
const dropsOf = (what: Dropped['what']) => dropped.filter((d) => d.what === what);

describe('a session log signed with the fleet secret', () => {
  it('writes each entry with a MAC, and a load drops a forged entry at the end, reports it, and moves it aside', async () => {
    const id = await session(8);
    const [, fields] = (await entries(id))[7]!;
    expect(fields[0]).toBe('e');
    expect(fields[2]).toBe('m');
    expect(fields[3]).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const forged = JSON.stringify(approval(id, 9));
    await store.conn.client.xadd(store.keys.log(id), '9-0', 'e', forged);
    const forged10 = JSON.stringify(approval(id, 10));
    await store.conn.client.xadd(store.keys.log(id), '10-0', 'e', forged10, 'm', 'A'.repeat(43));
    const before = dropsOf('log entry').length;
    const log = await openLog(id);
    const loaded = await loadSession(id, log, []);
    expect(loaded.lastSeq).toBe(8);
    expect(loaded.state.approval).toBe('suggest');
    expect(loaded.damage.badLines).toBe(1);
    const d = dropsOf('log entry').slice(before);
    expect(d).toHaveLength(1); // the read ends at the first: nothing after it is parsed
    expect(d[0]).toMatchObject({ why: 'not an entry a server of this fleet wrote (no MAC)', where: `${store.keys.log(id)} 9` });
    // The next event is seq 9 again; the forged entries are kept aside for a person.
    log.append(notice(id, 9));
    await log.drain();
    expect(log.failure).toBeUndefined();
    expect(await store.conn.client.lrange(store.keys.cut(id), 0, -1)).toEqual([`9-0 ${forged}`, `10-0 ${forged10}`]);
    expect((await readAll(store.readEvents(id, 0))).map((e) => e.type)).toEqual(['session_created', ...Array<string>(8).fill('notice')]);
    log.close();
    await log.whenClosed();
    expect(errors).toEqual([]);
  });

  it('drops a genuine entry moved to another session or another seq, and reads nothing past a gap', async () => {
    type Fields = [string, string, string, string];
    const a = await session(5);
    const b = await session(4);
    const [, fromA] = (await entries(a))[4]!; // A's seq 5: genuine, signed for A
    // Copied to B's next seq (5, the same seq): signed for another session.
    await store.conn.client.xadd(store.keys.log(b), '5-0', ...(fromA as Fields));
    let before = dropsOf('log entry').length;
    let r = store.readEvents(b, 0, { validate: true });
    expect((await readAll(r)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(r.damage.badLines).toBe(1);
    expect(dropsOf('log entry').slice(before)[0]!.why).toBe('its MAC does not match (not signed with this fleet secret for seq 5 of this session)');

    // A's own seq 4 copied to seq 6 of A: its MAC is for seq 4.
    const [, four] = (await entries(a))[3]!;
    await store.conn.client.xadd(store.keys.log(a), '6-0', ...(four as Fields));
    before = dropsOf('log entry').length;
    r = store.readEvents(a, 0, { validate: true });
    expect((await readAll(r)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(dropsOf('log entry').slice(before)[0]!.why).toBe('its MAC does not match (not signed with this fleet secret for seq 6 of this session)');

    // An entry deleted from the middle: the read ends before the gap (an earlier genuine state).
    const c = await session(6);
    await store.conn.client.xdel(store.keys.log(c), '3-0');
    before = dropsOf('log entry').length;
    r = store.readEvents(c, 0, { validate: true });
    expect((await readAll(r)).map((e) => e.seq)).toEqual([1, 2]);
    expect(dropsOf('log entry').slice(before)[0]!.why).toBe('a gap before it: seq 3 is missing; the log is read up to 2');
  });

  it('a follower tail hands out signed entries only: it waits at one that fails, and goes on once a writer has moved it aside', async () => {
    const id = await session(3);
    const ac = new AbortController();
    const seen: number[] = [];
    const following = (async () => {
      for await (const events of store.tail(id, 0, ac.signal)) seen.push(...events.map((e) => e.seq));
    })();
    await until(() => seen.length === 3, 3000, 'the stream so far');
    const before = dropsOf('log entry').length;
    await store.conn.client.xadd(store.keys.log(id), '4-0', 'e', JSON.stringify(approval(id, 4)), 'm', 'x'.repeat(43));
    await until(() => dropsOf('log entry').length > before, 3000, 'the forged entry to be reported');
    await new Promise((r) => setTimeout(r, 2500)); // read again twice meanwhile: reported once
    expect(dropsOf('log entry').length).toBe(before + 1);
    expect(seen).toEqual([1, 2, 3]);
    // A server takes the session: its load moves the entry aside, and it writes seq 4 itself.
    const log = await openLog(id);
    await loadSession(id, log, []);
    log.append(notice(id, 4));
    log.append(notice(id, 5));
    await log.drain();
    await until(() => seen.length === 5, 4000, 'the tail to go on');
    ac.abort();
    await following;
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    log.close();
    await log.whenClosed();
    expect(errors).toEqual([]);
  });

  it('ignores a snapshot, checkpoint or session summary no server of this fleet wrote for that session', async () => {
    const id = await session(40);
    const log = await openLog(id);
    await log.snapshot({ seq: 40, at: 40, folds: {}, state: { v: 1 }, items: [{ role: 'user', text: 'hi' }] });
    log.checkpoint({ seq: 20, at: 20, folds: { a: 20 } });
    await until(async () => (await store.conn.client.zcard(store.keys.checkpoints(id))) === 1, 3000, 'the checkpoint');
    log.close();
    await log.whenClosed();
    const k = store.keys;
    const c = store.conn.client;
    const genuine = (await c.get(k.snapshot(id)))!;
    const fl0 = await store.fleet.openFollower(id, 'someone');
    expect((await fl0.loadSnapshot())?.state).toEqual({ v: 1 });
    fl0.close();

    // Another session's genuine snapshot, and an unsigned one: neither is used.
    const other = await session(40);
    const ol = await openLog(other);
    await ol.snapshot({ seq: 40, at: 40, folds: {}, state: { v: 2 }, items: [] });
    ol.close();
    await ol.whenClosed();
    const header = (await c.get(k.snapshot(other)))!;
    for (const forged of [header, header.slice(44)]) {
      const before = dropsOf('snapshot').length;
      await c.set(k.snapshot(id), forged);
      await c.del(k.snapshotItems(id));
      const fl = await store.fleet.openFollower(id, 'someone');
      expect(await fl.loadSnapshot()).toBeUndefined();
      expect(dropsOf('snapshot').length).toBe(before + 1);
      fl.close();
    }
    // Its own header, items swapped: the items fail their check when read.
    await c.set(k.snapshot(id), genuine);
    await c.rpush(k.snapshotItems(id), JSON.stringify({ role: 'user', text: 'forged' }));
    const fl = await store.fleet.openFollower(id, 'someone');
    const snap = await fl.loadSnapshot();
    await expect(snap!.readItems()).rejects.toThrow(/fail the fleet secret's check/);
    expect(dropsOf('snapshot').at(-1)!.why).toMatch(/items are not the ones its header was signed with/);

    // A checkpoint: unsigned, and a genuine one filed under another seq.
    const member = (await c.zrange(k.checkpoints(id), 0, '-1'))[0]!;
    await c.zadd(k.checkpoints(id), 30, JSON.stringify({ seq: 30, at: 30, folds: { a: 'forged' } }));
    expect(await store.checkpointAt(id, 35)).toBeUndefined();
    expect(dropsOf('checkpoint').at(-1)!.why).toMatch(/not signed with this fleet secret/);
    await c.zrem(k.checkpoints(id), member);
    await c.zadd(k.checkpoints(id), 10, member); // seq 20's, filed at 10
    await c.zremrangebyscore(k.checkpoints(id), 30, 30);
    expect(await store.checkpointAt(id, 15)).toBeUndefined();
    fl.close();

    // A session summary: unsigned, and another session's under this id.
    store.putMeta({ sessionId: other, cwd: '/w', model: 'm', mode: 'code', createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z', costUsd: 0 });
    await store.flush();
    expect(await store.getMeta(other)).toMatchObject({ sessionId: other });
    const metaOther = (await c.hget(k.metas, other))!;
    await c.hset(k.metas, id, metaOther);
    expect(await store.getMeta(id)).toBeUndefined(); // signed for the other session
    expect(dropsOf('session summary').length).toBeGreaterThanOrEqual(1);
    await c.hset(k.metas, id, metaOther.slice(44));
    expect(await store.getMeta(id)).toBeUndefined();
  });
});
