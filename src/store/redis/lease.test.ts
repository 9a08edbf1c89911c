import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerretError } from '../../protocol/index.js';
import { SessionLease } from './lease.js';
import type { RedisSessionLog } from './session-log.js';
import type { RedisSessionStore } from './store.js';
import { connectStore, created, newPrefix, notice, readAll, sleep, startRedis, until, type RedisServer } from './test-kit.js';

let redis: RedisServer;
let a: RedisSessionStore;
let b: RedisSessionStore;

beforeAll(async () => {
  redis = await startRedis();
  const prefix = newPrefix();
  // Two instances of one fleet: two connections, two instance ids, one prefix.
  a = await connectStore(redis, prefix, { instanceId: 'inst-a', leaseTtlMs: 600 });
  b = await connectStore(redis, prefix, { instanceId: 'inst-b', leaseTtlMs: 600 });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.close();
});

async function own(store: RedisSessionStore, id: string, onError: (e: Error) => void = () => {}): Promise<RedisSessionLog> {
  const log = await store.openAsync(id, onError);
  if ('owner' in log) throw new Error(`busy: ${log.owner}`);
  return log;
}

describe('the session lease', () => {
  it('lets one instance write a session: the other is told who owns it, and gets it once it is given back', async () => {
    const id = randomUUID();
    const la = await own(a, id);
    la.append(created(id));
    await la.drain();
    expect(await b.openAsync(id, () => {})).toEqual({ owner: 'inst-a' });
    expect(await b.owner(id)).toBe('inst-a');

    // The synchronous open answers at once; the load's first read is refused, naming the owner.
    const lb = b.open(id, () => {});
    const err = await lb.loadSnapshot().catch((e: unknown) => e);
    expect(isFerretError(err) && err.code).toBe('session_elsewhere');
    expect(isFerretError(err) && err.data?.['owner']).toBe('inst-a');
    lb.close();

    la.close();
    await la.whenClosed();
    const lb2 = await own(b, id);
    expect((await readAll(lb2.read(0))).map((e) => e.seq)).toEqual([1]);
    lb2.close();
    await lb2.whenClosed();
  });

  it('is renewed while its owner lives, and expires after the TTL when it does not', async () => {
    const id = randomUUID();
    const la = await own(a, id);
    await sleep(1500); // well past the 600 ms TTL: renewed every 200 ms
    expect(await b.openAsync(id, () => {})).toEqual({ owner: 'inst-a' });
    const ttl = await a.conn.client.pttl(a.keys.lease(id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    la.close();
    await la.whenClosed();

    // An owner that dies (no renewal, no release): free after the TTL.
    const dead = await SessionLease.acquire(a.conn, a.keys, a.trust, randomUUID(), 'inst-dead', 300);
    expect('lease' in dead).toBe(true);
    if (!('lease' in dead)) return;
    dead.lease.markLost(''); // stops its renewals, as a crash would
    const deadId = dead.lease.sessionId;
    expect(await b.openAsync(deadId, () => {})).toEqual({ owner: 'inst-dead' });
    await sleep(400);
    const lb = await own(b, deadId);
    lb.close();
    await lb.whenClosed();
  });

  it('fences writes: an owner whose lease another took writes nothing more and is told so', async () => {
    const id = randomUUID();
    const errors: Error[] = [];
    const la = await own(a, id, (e) => errors.push(e));
    la.append(created(id));
    la.append(notice(id, 2));
    await la.drain();
    // A stalls past its TTL (simulated: its lease key is gone) and B takes the session over.
    await a.conn.client.del(a.keys.lease(id));
    const lb = await own(b, id);
    lb.repairTail({ tornTail: false, badLines: 0, openTail: false, end: { seq: 2, at: 2 } });
    lb.append(notice(id, 3, 'from b'));
    await lb.drain();
    // A, not knowing, appends: refused by the script, reported, dropped.
    la.append(notice(id, 3, 'from a'));
    await la.drain();
    expect(la.failure?.code).toBe('session_elsewhere');
    expect(errors.map((e) => e.message).join()).toMatch(/taken over by ferret instance inst-b/);
    const events = await readAll(b.readEvents(id, 0));
    expect(events.map((e) => (e.type === 'notice' ? e.data.text : e.type))).toEqual(['session_created', 'n2', 'from b']);
    la.close();
    await la.whenClosed();
    expect(await b.owner(id)).toBe('inst-b'); // A's close did not release B's lease
    lb.close();
    await lb.whenClosed();
  });

  it('is taken back by its owner when it expired while nobody else took the session (an outage longer than the TTL)', async () => {
    const id = randomUUID();
    const errors: Error[] = [];
    const la = await own(a, id, (e) => errors.push(e));
    la.append(created(id));
    await la.drain();
    await a.conn.client.del(a.keys.lease(id)); // expired; the epoch is still A's
    la.append(notice(id, 2));
    await la.drain();
    expect(la.written.seq).toBe(2);
    expect(await a.owner(id)).toBe('inst-a');
    expect(errors).toEqual([]);
    // And the renewal takes it back too.
    await a.conn.client.del(a.keys.lease(id));
    await until(async () => (await a.owner(id)) === 'inst-a', 2000, 'the renewal to take the lease back');
    la.close();
    await la.whenClosed();
  });
});
