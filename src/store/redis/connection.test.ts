import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerretError } from '../../protocol/index.js';
import { RedisConnection } from './connection.js';
import { RedisSessionStore } from './store.js';
import { startRedis, TEST_SECRET, type RedisServer } from './test-kit.js';

// Redis's own access control, taken from the store URL: a password (requirepass), an ACL user,
// and TLS for rediss://. The password never shows in what ferret reports.

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis({ persistence: false });
  const admin = await RedisConnection.create({ url: redis.url });
  await admin.whenReady(3000);
  // An ACL user limited to ferret's keys and channels, and a password for the default user.
  await admin.client.call('ACL', 'SETUSER', 'ferret', 'on', '>fpw-4567', '~ferret:*', '&ferret:*', '+@all');
  await admin.client.call('CONFIG', 'SET', 'requirepass', 'pw-0123');
  await admin.close(0);
});
afterAll(async () => {
  await redis?.close();
});

describe('a Redis that wants a password', () => {
  it('is reached with the password or an ACL user from the URL, and refused without; the password is never reported', async () => {
    for (const url of [`redis://:pw-0123@127.0.0.1:${redis.port}/0`, `redis://ferret:fpw-4567@127.0.0.1:${redis.port}/0`]) {
      const store = await RedisSessionStore.connect({ url, secret: TEST_SECRET, connectTimeoutMs: 3000 });
      try {
        expect(store.health.state).toBe('ready');
        expect(JSON.stringify(store.health)).not.toMatch(/pw-0123|fpw-4567/);
        expect(await store.existsAsync('nope')).toBe(false);
      } finally {
        await store.close();
      }
    }
    const err = await RedisSessionStore.connect({ url: redis.url, secret: TEST_SECRET, connectTimeoutMs: 800 }).catch((e: unknown) => e);
    expect(isFerretError(err, 'storage_unavailable')).toBe(true);
    expect((err as Error).message).toMatch(/NOAUTH|NOPERM|Authentication required/i);
  });
});

describe('rediss://', () => {
  it('connects with TLS, checking the server name', async () => {
    const conn = await RedisConnection.create({ url: 'rediss://user:secret@redis.example:6380/2', connectTimeoutMs: 200, retryMaxMs: 200 });
    try {
      expect(conn.client.options.tls).toMatchObject({ servername: 'redis.example' });
      expect(conn.client.options).toMatchObject({ username: 'user', password: 'secret', port: 6380, db: 2 });
      expect(conn.health.url).toBe('rediss://user@redis.example:6380/2');
    } finally {
      await conn.close(0);
    }
    const plain = await RedisConnection.create({ url: 'redis://127.0.0.1:1/0', connectTimeoutMs: 200 });
    expect(plain.client.options.tls).toBeUndefined();
    await plain.close(0);
  });
});
