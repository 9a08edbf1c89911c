import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore } from '../../core/create-core.js';
import { joinFleet } from '../../core/fleet/fleet-sessions.js';
import type { FollowedSession } from '../../core/fleet/followed-session.js';
import { replayedSeqs } from '../../core/test-kit.js';
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
  createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, store, fleet: joinFleet(store.fleet) });

describe('the core on the redis store', () => {
  it('two instances: one writes a session, the other follows it while it is live (it writes nothing itself, naming the writer), then takes it over', async () => {
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
      // A session A writes: B follows it (reads from Redis), and refuses its commands, naming A.
      await sa.flush();
      const follower = await b.manager.open(s.id);
      expect((follower as FollowedSession).writtenBy).toBe('a');
      expect(follower.lastSeq).toBe(s.lastSeq);
      expect(() => follower.emit({ type: 'notice', data: { level: 'info', text: 'not here' } })).toThrow(/runs on ferret instance a/);
      // A command through B (what HTTP sends) is answered by A, its writer.
      expect(await b.manager.command(s.id, { op: 'cancel' })).toBe(false);
      // What A writes now reaches B's readers as it is written.
      const live: number[] = [];
      const off = follower.subscribe((e) => live.push(e.seq));
      s.emit({ type: 'notice', data: { level: 'info', text: 'still on a' } });
      await sa.flush();
      await vi.waitFor(() => expect(live).toEqual([s.lastSeq]), { timeout: 5000 });
      off();

      // Session.snapshot() drains the log first (Redis acknowledges writes later than they are appended).
      await s.release();
      expect(await sb.conn.client.exists(sb.keys.snapshot(s.id))).toBe(1);
      await sa.flush(); // the lease is released after the last write

      // A let it go: the next open on B takes the lease, and B writes it from now on.
      const loaded = await b.manager.open(s.id);
      expect(loaded).toBe(follower);
      expect((loaded as FollowedSession).writtenBy).toBeUndefined();
      expect(loaded.lastSeq).toBe(s.lastSeq);
      await loaded.ready();
      expect(loaded.state.history).toEqual([{ role: 'user', text: 'after the burst' }]);
      const seen = await replayedSeqs(loaded, 20_000);
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
