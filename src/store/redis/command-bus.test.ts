import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStore, newPrefix, startRedis, type RedisServer } from './test-kit.js';

// Anything published on a server's command channel (a real redis-server) that is not a message of
// ours is dropped: no crash, no answer, and real calls still work after it.

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

describe('the fleet command bus', () => {
  it('null, numbers, strings, arrays and half-shaped messages are dropped; the next real call is answered', async () => {
    const prefix = newPrefix();
    const a = await connectStore(redis, prefix, { instanceId: 'a' });
    const b = await connectStore(redis, prefix, { instanceId: 'b' });
    try {
      b.fleet.serve(async (call) => ({ echoed: call.sessionId }));
      const channel = `${prefix}cmd:b`;
      for (const junk of ['null', '1', '"x"', '[]', '{}', '{"t":"call"}', '{"t":"call","id":"i","from":"a"}', '{"t":"reply","id":"i"}', '{"t":"reply","id":"i","ok":false}', 'not json']) {
        await a.conn.client.publish(channel, junk);
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(await a.fleet.call('b', { sessionId: 's1', op: 'cancel' }, 2000)).toEqual({ echoed: 's1' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
