import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../core/create-core.js';
import { joinFleet } from '../../core/fleet/fleet-sessions.js';
import { removeDir, tempDir } from '../../../test/support/temp.mjs';
import type { RedisSessionStore } from './store.js';
import { connectStore, newPrefix, startRedis, type RedisServer } from './test-kit.js';

// Deleting a session on the Redis store (a real redis-server): every key of it and its list entry
// go; a session another instance writes is refused.

let redis: RedisServer;
let home: string;
beforeAll(async () => {
  redis = await startRedis();
  home = tempDir('redis-delete');
});
afterAll(async () => {
  await redis?.close();
  if (home) removeDir(home);
});

const core = (store: RedisSessionStore) =>
  createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, store, fleet: joinFleet(store.fleet) });

describe('session delete on the redis store', () => {
  it('removes the stream, lease, checkpoints, snapshot and list entry; another instance cannot delete a session it does not write', async () => {
    const prefix = newPrefix();
    const sa = await connectStore(redis, prefix, { instanceId: 'a' });
    const sb = await connectStore(redis, prefix, { instanceId: 'b' });
    const a = core(sa);
    const b = core(sb);
    try {
      const s = a.manager.create();
      s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'hello' } } });
      await sa.flush();
      await expect(b.manager.delete(s.id)).rejects.toMatchObject({ code: 'session_elsewhere' });
      await a.manager.delete(s.id);
      const keys = await sa.conn.client.keys(`${prefix}*${s.id}*`);
      expect(keys).toEqual([]);
      expect(await sa.conn.client.hexists(`${prefix}metas`, s.id)).toBe(0);
      expect((await a.manager.list()).sessions.map((x) => x.sessionId)).not.toContain(s.id);
      expect((await b.manager.list()).sessions.map((x) => x.sessionId)).not.toContain(s.id);
      // A server that looks it up afresh finds nothing.
      const sc = await connectStore(redis, prefix, { instanceId: 'c' });
      const c = core(sc);
      await expect(c.manager.open(s.id)).rejects.toMatchObject({ code: 'session_not_found' });
      await c.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
