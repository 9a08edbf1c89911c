import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerretError } from '../../protocol/index.js';
import type { FleetCall } from '../session-store.js';
import type { Dropped } from './fleet-trust.js';
import type { RedisSessionStore } from './store.js';
import { connectStore, created, newPrefix, sleep, startRedis, until, type RedisServer } from './test-kit.js';

// The command bus against someone who can publish on the fleet's Redis but holds no fleet
// secret: nothing they publish reaches a handler, settles a call or throws; everything is reported.

let redis: RedisServer;
let prefix: string;
let a: RedisSessionStore;
let b: RedisSessionStore;
const drops: { a: Dropped[]; b: Dropped[] } = { a: [], b: [] };
const served: FleetCall[] = [];
let release: (() => void) | undefined;

beforeAll(async () => {
  redis = await startRedis({ persistence: false });
  prefix = newPrefix();
  a = await connectStore(redis, prefix, { instanceId: 'inst-a', onDropped: (d) => drops.a.push(d) });
  b = await connectStore(redis, prefix, { instanceId: 'inst-b', onDropped: (d) => drops.b.push(d) });
  b.fleet.serve(async (call) => {
    served.push(call);
    if (call.op === 'setMode') await new Promise<void>((r) => (release = r)); // held: a call in flight
    return { ok: call.op };
  });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.close();
});

const permission = (sessionId: string): FleetCall => ({ sessionId, op: 'respondPermission', requestId: 'perm_1', decision: 'always', by: 'attacker' });

describe('the command bus with an attacker on Redis', () => {
  it('drops null, garbage, unsigned and wrongly shaped calls without crashing, and keeps serving', async () => {
    const ch = b.keys.commands('inst-b');
    const raw = a.conn.client;
    const sent = ['null', 'garbage{', '[]', '{}', '"x"', JSON.stringify({ t: 'call', id: 'ab', from: 'inst-a', call: permission('s') }), JSON.stringify({ v: 1, p: '{}', m: 'f'.repeat(64) })];
    for (const m of sent) expect(await raw.publish(ch, m)).toBe(1);
    // Signed with the fleet key but of a shape no server sends: dropped after the MAC check.
    await raw.publish(ch, b.trust.seal(ch, { t: 'call', id: 'ab', from: 'inst-a', call: { sessionId: 's', op: 'rm -rf' } }));
    await raw.publish(ch, b.trust.seal(ch, { t: 'call', id: 'ab', from: 'inst a; evil', call: permission('s') }));
    await until(() => drops.b.length >= sent.length + 2, 3000, 'every message to be dropped');
    expect(served).toEqual([]);
    expect(drops.b.map((d) => d.why)).toEqual([
      'not a sealed fleet message',
      'not JSON',
      'not a sealed fleet message',
      'not a sealed fleet message',
      'not a sealed fleet message',
      'not a sealed fleet message',
      'its MAC does not match (not signed with this fleet secret)',
      expect.stringMatching(/^signed, but not a call or reply this server knows \(/),
      expect.stringMatching(/^signed, but not a call or reply this server knows \(from: /),
    ]);
    // Still serving: a genuine call goes through.
    expect(await a.fleet.call('inst-b', { sessionId: 's', op: 'cancel' }, 3000)).toEqual({ ok: 'cancel' });
    expect(served.map((c) => c.op)).toEqual(['cancel']);
  });

  it('drops a replay of a genuine call captured on the channel', async () => {
    served.length = 0;
    drops.b.length = 0;
    const spy = await a.conn.duplicate('spy');
    const seen: string[] = [];
    spy.client.on('message', (_c: string, m: string) => seen.push(m));
    await spy.client.subscribe(b.keys.commands('inst-b'));
    try {
      const call: FleetCall = { sessionId: randomUUID(), op: 'respondPermission', requestId: 'perm_1', decision: 'always', by: 'person' };
      expect(await a.fleet.call('inst-b', call, 3000)).toEqual({ ok: 'respondPermission' });
      await until(() => seen.length === 1, 2000, 'the spy to capture the call');
      await a.conn.client.publish(b.keys.commands('inst-b'), seen[0]!);
      await until(() => drops.b.length === 1, 2000, 'the replay to be dropped');
      expect(drops.b[0]!.why).toBe('a replay (its nonce was seen already)');
      expect(served).toHaveLength(1);
    } finally {
      await spy.close(0);
    }
  });

  it('settles a call only with a signed reply from the server it was sent to', async () => {
    drops.a.length = 0;
    const spy = await a.conn.duplicate('spy2');
    const calls: string[] = [];
    spy.client.on('message', (_c: string, m: string) => calls.push(m));
    await spy.client.subscribe(b.keys.commands('inst-b'));
    try {
      const answer = a.fleet.call('inst-b', { sessionId: 's', op: 'setMode', mode: 'plan' }, 5000);
      await until(() => calls.length === 1 && release !== undefined, 2000, 'the call to be held by B');
      const { id } = JSON.parse((JSON.parse(calls[0]!) as { p: string }).p) as { id: string };
      const ach = a.keys.commands('inst-a');
      // Unsigned, and signed by a server of the fleet that is not B: neither settles it.
      await a.conn.client.publish(ach, JSON.stringify({ t: 'reply', id, ok: true, result: 'forged' }));
      await a.conn.client.publish(ach, b.trust.seal(ach, { t: 'reply', id, from: 'inst-c', ok: true, result: 'forged' }));
      await until(() => drops.a.length === 2, 2000, 'both replies to be dropped');
      expect(drops.a[1]!.why).toMatch(/a reply to call .* from inst-c, which it was not sent to \(inst-b\)/);
      release!();
      expect(await answer).toEqual({ ok: 'setMode' });
    } finally {
      await spy.close(0);
    }
  });

  it('a server with another secret is not heard, and hears nothing', async () => {
    const drops3: Dropped[] = [];
    const other = await connectStore(redis, prefix, { instanceId: 'inst-x', secret: 'another-fleet-secret-0123456789abcdef0123', onDropped: (d) => drops3.push(d) });
    try {
      served.length = 0;
      drops.b.length = 0;
      const err = await other.fleet.call('inst-b', { sessionId: 's', op: 'cancel' }, 800).catch((e: unknown) => e);
      expect(isFerretError(err, 'writer_unreachable')).toBe(true);
      expect(drops.b.map((d) => d.why)).toEqual(['its MAC does not match (not signed with this fleet secret)']);
      await sleep(50);
      expect(served).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('lease records an attacker writes', () => {
  it('name nobody: no command is sent anywhere, the session is refused, and it is reported', async () => {
    const id = randomUUID();
    drops.a.length = 0;
    await a.conn.client.set(a.keys.lease(id), 'evil#1');
    const listeners = await a.conn.client.pubsub('NUMSUB', a.keys.commands('evil'));
    expect(listeners).toEqual([a.keys.commands('evil'), 0]);
    const err = await a.fleet.ownerOf(id).catch((e: unknown) => e);
    expect(isFerretError(err, 'writer_unreachable')).toBe(true);
    expect((err as Error).message).toMatch(/its lease in redis was not written by a server of this fleet/);
    const opened = await a.fleet.openWriter(id, () => {}).catch((e: unknown) => e);
    expect(isFerretError(opened, 'writer_unreachable')).toBe(true);
    expect(drops.a.map((d) => [d.what, d.sample])).toEqual([
      ['lease record', 'evil#1'],
      ['lease record', 'evil#1'],
    ]);
    // A's own sealed claim (the form a real server writes) for a made-up instance of another session does not pass either.
    await a.conn.client.set(a.keys.lease(id), `${a.trust.claim('other-session', 'evil')}#2`);
    expect(isFerretError(await a.fleet.ownerOf(id).catch((e: unknown) => e), 'writer_unreachable')).toBe(true);
    // Gone: the session is served again.
    await a.conn.client.del(a.keys.lease(id));
    expect(await a.fleet.ownerOf(id)).toBeUndefined();
  });

  it('a writer whose lease an attacker overwrote stops writing (denial of service) and names nobody', async () => {
    const id = randomUUID();
    const errors: Error[] = [];
    const log = a.open(id, (e) => errors.push(e));
    await log.whenOpen();
    await a.conn.client.set(a.keys.lease(id), 'evil#9');
    log.append(created(id)); // its next write finds the lease taken
    await log.drain();
    await until(() => log.failure !== undefined, 3000, 'the writer to see its lease gone');
    expect(log.failure?.message).toMatch(/was taken over by another ferret instance/);
    expect(log.failure?.message).not.toMatch(/evil/);
    log.close();
  });
});
