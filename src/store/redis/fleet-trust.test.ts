import { describe, expect, it } from 'vitest';
import { BUS_WINDOW_MS, FleetTrust, type Dropped } from './fleet-trust.js';

const SECRET = 'unit-fleet-secret-0123456789abcdef0123456789';
const CH = 'ferret:cmd:b';

function trust(secret = SECRET, clock = { t: 1_700_000_000_000 }): { t: FleetTrust; drops: Dropped[]; clock: { t: number } } {
  const drops: Dropped[] = [];
  return { t: new FleetTrust(secret, { onDropped: (d) => drops.push(d), now: () => clock.t }), drops, clock };
}

describe('the fleet trust boundary: bus messages', () => {
  it('opens what a server of the same fleet sealed for this channel, once', () => {
    const clock = { t: 1_700_000_000_000 };
    const a = trust(SECRET, clock);
    const b = trust(SECRET, clock);
    const raw = a.t.seal(CH, { t: 'call', id: 'ab', from: 'a' });
    expect(b.t.open(CH, raw)).toMatchObject({ t: 'call', id: 'ab', from: 'a' });
    expect(b.drops).toEqual([]);
    // The same bytes again: a replay.
    expect(b.t.open(CH, raw)).toBeUndefined();
    expect(b.drops.map((d) => d.why)).toEqual(['a replay (its nonce was seen already)']);
  });

  it('drops null, garbage, wrong shapes, unsigned, tampered, another channel, another secret', () => {
    const { t: a } = trust();
    const { t: b, drops } = trust();
    const other = trust('another-fleet-secret-0123456789abcdef0123').t;
    const good = a.seal(CH, { t: 'call', id: 'ab', from: 'a', call: { op: 'cancel' } });
    const outer = JSON.parse(good) as { v: 1; p: string; m: string };
    const cases: [unknown, RegExp][] = [
      [null, /not text/],
      [undefined, /not text/],
      [42, /not text/],
      ['null', /not a sealed fleet message/],
      ['', /not JSON/],
      ['{"t":"call"', /not JSON/],
      ['[]', /not a sealed fleet message/],
      [JSON.stringify({ t: 'call', id: 'ab', from: 'a', call: { sessionId: 's', op: 'respondPermission', requestId: 'r', decision: 'always', by: 'x' } }), /not a sealed/],
      [JSON.stringify({ ...outer, m: '0'.repeat(64) }), /MAC does not match/],
      [JSON.stringify({ ...outer, p: outer.p.replace('cancel', 'close') }), /MAC does not match/],
      [JSON.stringify({ ...outer, m: outer.m.toUpperCase() }), /not a sealed/],
      [JSON.stringify({ ...outer, extra: 1 }), /not a sealed/],
      [a.seal('ferret:cmd:c', { t: 'call' }), /MAC does not match/], // sealed for another server's channel
      [other.seal(CH, { t: 'call' }), /MAC does not match/], // another fleet
    ];
    for (const [raw, why] of cases) {
      const before = drops.length;
      expect(b.open(CH, raw), String(raw)).toBeUndefined();
      expect(drops.length, String(raw)).toBe(before + 1);
      expect(drops.at(-1)!.why, String(raw)).toMatch(why);
      expect(drops.at(-1)!.where).toBe(CH);
    }
    // The genuine message still opens afterwards (nothing above consumed its nonce).
    expect(b.open(CH, good)).toMatchObject({ id: 'ab' });
  });

  it('drops a message older or newer than the window, and a replay after the window as stale', () => {
    const clock = { t: 1_700_000_000_000 };
    const a = trust(SECRET, clock);
    const b = trust(SECRET, clock);
    const raw = a.t.seal(CH, { t: 'reply', id: 'ab' });
    clock.t += BUS_WINDOW_MS + 1;
    expect(b.t.open(CH, raw)).toBeUndefined();
    expect(b.drops.at(-1)!.why).toMatch(/^stale: sent 60 s ago/);
    const future = a.t.seal(CH, { t: 'reply', id: 'cd' });
    clock.t -= 2 * BUS_WINDOW_MS + 2;
    expect(b.t.open(CH, future)).toBeUndefined();
    expect(b.drops.at(-1)!.why).toMatch(/^stale/);
    // Within the window: opened; then replayed much later: stale (its nonce may be forgotten by then).
    clock.t += BUS_WINDOW_MS + 1;
    const fresh = a.t.seal(CH, { t: 'reply', id: 'ef' });
    expect(b.t.open(CH, fresh)).toBeDefined();
    clock.t += 3 * BUS_WINDOW_MS;
    expect(b.t.open(CH, fresh)).toBeUndefined();
    expect(b.drops.at(-1)!.why).toMatch(/^stale/);
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => new FleetTrust('short')).toThrow(/the fleet secret is 5 bytes; it must be 32 or more/);
  });
});

describe('the fleet trust boundary: lease records', () => {
  it('names the owner a server of the fleet sealed for this session, and nobody otherwise', () => {
    const { t: a } = trust();
    const { t: b, drops } = trust();
    const token = `${a.claim('s1', 'host:1:ab')}#7`;
    expect(b.ownerOf('s1', token, 'k')).toBe('host:1:ab');
    expect(drops).toEqual([]);
    const forged = [
      'evil#1', // the old unsigned form
      `${a.claim('s2', 'host:1:ab')}#7`, // sealed for another session
      token.replace('host:1:ab', 'host:1:ac'), // another instance under the same seal
      `${trust('another-fleet-secret-0123456789abcdef0123').t.claim('s1', 'host:1:ab')}#7`,
      '',
      '|#',
      `evil|${'A'.repeat(43)}#1`,
    ];
    for (const tok of forged) expect(b.ownerOf('s1', tok, 'k'), tok).toBeUndefined();
    expect(drops).toHaveLength(forged.length);
    expect(drops[0]).toMatchObject({ what: 'lease record', where: 'k', sample: 'evil#1' });
  });
});
