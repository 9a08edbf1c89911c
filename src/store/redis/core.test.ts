import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../core/create-core.js';
import { isFerretError } from '../../protocol/index.js';
import { removeDir, tempDir } from '../../../test/support/temp.mjs';
import type { RedisSessionStore } from './store.js';
import { connectStore, newPrefix, startRedis, until, type RedisServer } from './test-kit.js';

// The core on the redis store: two instances on one Redis, and a lease lost under a live session.

let redis: RedisServer;
let home: string;
beforeAll(async () => {
  redis = await startRedis();
  home = tempDir('redis-core');
});
afterAll(async () => {
  await redis?.close();
  if (home) removeDir(home);
});

const core = (store: RedisSessionStore) =>
  createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, store });

describe('the core on the redis store', () => {
  it('two instances: one writes a session, the other is refused while it is live, then loads it from its snapshot', async () => {
    const prefix = newPrefix();
    const sa = await connectStore(redis, prefix, { instanceId: 'a' });
    const sb = await connectStore(redis, prefix, { instanceId: 'b' });
    const a = core(sa);
    const b = core(sb);
    try {
      const s = a.manager.create();
      for (let i = 0; i < 30_000; i++) {
        s.emit({ type: 'message_chunk', data: { turnId: 't', text: `c${i}` } });
        if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
      }
      s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'after the burst' } } });

      // B has not seen the id: the store asks Redis (exists answers with a promise), and has() awaits it.
      expect(await b.manager.has(s.id)).toBe(true);
      expect(await sb.existsAsync(s.id)).toBe(true);
      // A session not in memory on B: get refuses with why its open failed (the redis store cannot load synchronously).
      const busy = await b.manager.open(s.id).catch((e: unknown) => e);
      expect(isFerretError(busy) && busy.code).toBe('session_busy');
      expect((busy as Error).message).toMatch(/open on ferret instance a/);
      expect(() => b.manager.get(s.id)).toThrow(/open on ferret instance a/);

      // Session.snapshot() drains the log first (Redis acknowledges writes later than they are appended).
      await s.release();
      expect(await sb.conn.client.exists(sb.keys.snapshot(s.id))).toBe(1);
      await sa.flush(); // the lease is released after the last write

      const loaded = await b.manager.open(s.id);
      expect(loaded.lastSeq).toBe(s.lastSeq);
      await loaded.ready();
      expect(loaded.state.history).toEqual([{ role: 'user', text: 'after the burst' }]);
      const seen: number[] = [];
      const sub = loaded.subscribe((e) => seen.push(e.seq), 20_000);
      await sub.caughtUp;
      sub();
      expect(seen[0]).toBe(20_001);
      expect(seen.length).toBe(loaded.lastSeq - 20_000);
      // B goes on writing it.
      loaded.emit({ type: 'notice', data: { level: 'info', text: 'on b' } });
      await b.close();
      expect(await sa.existsAsync(s.id)).toBe(true);
      const tail = (await sa.conn.client.xrevrange(sa.keys.log(s.id), '+', '-', 'COUNT', 1)) as [string, string[]][];
      expect(tail[0]![0]).toBe(`${s.lastSeq + 1}-0`);
      // And the list shows it on both.
      expect((await a.manager.list({ limit: 5 })).sessions.map((x) => x.sessionId)).toContain(s.id);
    } finally {
      await a.close();
      await b.close();
      await sa.close();
      await sb.close();
    }
  }, 60_000);

  it('refuses a turn on a session whose lease was lost, and loads it again on the next open', async () => {
    const prefix = newPrefix();
    const sa = await connectStore(redis, prefix, { instanceId: 'a' });
    const a = core(sa);
    try {
      const s = a.manager.create();
      await (s as unknown as { log: { drain(): Promise<unknown> } }).log.drain();
      // Another instance took the lease meanwhile (here: by hand, as a takeover after an expiry would).
      await sa.conn.client.del(sa.keys.lease(s.id));
      await sa.conn.client.incr(sa.keys.epoch(s.id));
      s.emit({ type: 'notice', data: { level: 'info', text: 'not written' } });
      await until(() => s.defunct, 5000, 'the log to find its lease lost');
      expect(() => s.startTurn('x')).toThrow(/cannot start a turn: session .* was taken over/);
      const again = await a.manager.open(s.id);
      expect(again).not.toBe(s);
      expect(again.defunct).toBe(false);
      // What redis holds: session_created; the events after the loss (and the notice saying so) were never written.
      expect(again.lastSeq).toBe(1);
      expect(s.lastSeq).toBe(3);
      again.emit({ type: 'notice', data: { level: 'info', text: 'written again' } });
      expect((await (again as unknown as { log: { drain(): Promise<{ seq: number }> } }).log.drain()).seq).toBe(again.lastSeq);
    } finally {
      await a.close();
      await sa.close();
    }
  }, 30_000);
});
