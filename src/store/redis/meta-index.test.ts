import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionMeta } from '../../protocol/index.js';
import type { RedisSessionStore } from './store.js';
import { connectStore, newPrefix, startRedis, type RedisServer } from './test-kit.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

const meta = (id: string, updatedAt: string, cwd = '/w'): SessionMeta => ({
  sessionId: id,
  cwd,
  model: 'm',
  mode: 'code',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt,
  costUsd: 0,
});
const at = (min: number) => new Date(Date.UTC(2024, 0, 1, 0, min)).toISOString();

async function pages(store: RedisSessionStore, limit: number, filter?: (m: SessionMeta) => boolean): Promise<string[][]> {
  const out: string[][] = [];
  let cursor: string | undefined;
  do {
    const p = await store.listMetas({ cursor, limit, filter });
    out.push(p.metas.map((m) => m.sessionId));
    cursor = p.nextCursor;
  } while (cursor);
  return out;
}

describe('the fleet meta index', () => {
  it('pages newest first (then by id) with cursors, across instances, each session once at its latest', async () => {
    const prefix = newPrefix();
    const a = await connectStore(redis, prefix, { instanceId: 'a' });
    const b = await connectStore(redis, prefix, { instanceId: 'b' });
    try {
      for (let i = 0; i < 10; i++) (i % 2 ? a : b).putMeta(meta(`s${i}`, at(i), i < 5 ? '/x' : '/y'));
      a.putMeta(meta('s3b', at(3))); // a tie on updatedAt: by id
      await Promise.all([a.flush(), b.flush()]);
      const want = ['s9', 's8', 's7', 's6', 's5', 's4', 's3', 's3b', 's2', 's1', 's0'];
      expect((await pages(a, 4)).flat()).toEqual(want);
      expect(await pages(b, 4)).toEqual([want.slice(0, 4), want.slice(4, 8), want.slice(8)]);
      expect(await pages(b, 100)).toEqual([want]);
      // A later change moves a session to the front; it is listed once.
      b.putMeta(meta('s0', at(30)));
      expect((await b.listMetas({ limit: 3 })).metas.map((m) => m.sessionId)).toEqual(['s0', 's9', 's8']); // its own put is in its next page
      expect((await pages(a, 5)).flat()).toEqual(['s0', ...want.slice(0, -1)]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('filters (a workspace), pages what is left, and says nothing of a next page when nothing more matches', async () => {
    const s = await connectStore(redis, newPrefix());
    try {
      for (let i = 0; i < 600; i++) s.putMeta(meta(`s${String(i).padStart(3, '0')}`, at(i), i % 3 === 0 ? '/x' : '/y'));
      const got = await pages(s, 50, (m) => m.cwd === '/x');
      expect(got.flat()).toHaveLength(200);
      expect(got).toHaveLength(4);
      expect(got.flat()[0]).toBe('s597');
      const last = await s.listMetas({ limit: 1000, filter: (m) => m.cwd === '/nowhere' });
      expect(last).toEqual({ metas: [] });
      await expect(s.listMetas({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ name: 'BadCursorError' });
      expect(s.exists('s001')).toBe(true);
      expect(await s.existsAsync('s001')).toBe(true);
      expect(await s.existsAsync('nope')).toBe(false);
      expect(await s.getMeta('s002')).toMatchObject({ cwd: '/y' });
    } finally {
      await s.close();
    }
  });
});
