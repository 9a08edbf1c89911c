// Shared by the redis store's tests (not part of the product): a real redis-server per test file,
// stores on it under a fresh prefix each, and events to write.
import { randomUUID } from 'node:crypto';
import type { SessionEvent } from '../../protocol/index.js';
import { startRedis, type RedisServer, type StartRedisOptions } from '../../../test/support/redis.mjs';
import { RedisSessionStore, type RedisStoreOptions } from './store.js';

export { startRedis, type RedisServer };

/** A store on `server` under `prefix` (one per test keeps tests apart in one database). */
export function connectStore(server: RedisServer, prefix: string, opts: Partial<RedisStoreOptions> = {}): Promise<RedisSessionStore> {
  return RedisSessionStore.connect({ url: server.url, prefix, secret: TEST_SECRET, readTimeoutMs: 2000, connectTimeoutMs: 3000, retryMaxMs: 200, ...opts });
}

/** The fleet secret the stores of these tests share. */
export const TEST_SECRET = 'test-fleet-secret-0123456789abcdef0123456789';

export const newPrefix = () => `t${randomUUID().slice(0, 8)}:`;

export function created(id: string, seq = 1): SessionEvent {
  return { seq, sessionId: id, ts: 1_700_000_000_000 + seq, type: 'session_created', data: { cwd: '/w', model: 'scripted:x', mode: 'code', sandbox: 'workspace-write', approval: 'suggest' } };
}

export function notice(id: string, seq: number, text = `n${seq}`): SessionEvent {
  return { seq, sessionId: id, ts: 1_700_000_000_000 + seq, type: 'notice', data: { level: 'info', text } };
}

export function chunk(id: string, seq: number, text = `c${seq}`): SessionEvent {
  return { seq, sessionId: id, ts: 1_700_000_000_000 + seq, type: 'message_chunk', data: { turnId: 't', text } };
}

export function message(id: string, seq: number, text: string): SessionEvent {
  return { seq, sessionId: id, ts: 1_700_000_000_000 + seq, type: 'message', data: { turnId: 't', message: { role: 'assistant', text, toolCalls: [] } } };
}

/** Every event a reader hands out. */
export async function readAll(reader: AsyncIterable<{ events: SessionEvent[] }>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const c of reader) out.push(...c.events);
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `f` is true (or fails the test after `ms`). */
export async function until(f: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export type { StartRedisOptions };
