import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../protocol/index.js';
import { EventBus } from './bus.js';

// The per-session fan-out: synchronous delivery in seq order, replay from memory or the log.

const ev = (seq: number): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'notice', data: { level: 'info', text: `n${seq}` } });
const seqs = (events: SessionEvent[]): number[] => events.map((e) => e.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A bus whose "log" holds every event published so far. */
function busWithLog(windowSize: number, onError?: (err: unknown) => void) {
  const log: SessionEvent[] = [];
  const readOlder = vi.fn((after: number) => log.filter((e) => e.seq > after));
  const bus = new EventBus(readOlder, windowSize, onError);
  const publish = (from: number, to: number) => {
    for (const s of range(from, to)) {
      const e = ev(s);
      log.push(e);
      bus.publish(e);
    }
  };
  return { bus, log, readOlder, publish };
}

describe('EventBus', () => {
  it('delivers every published event to every listener, in order, synchronously; unsubscribe stops it', () => {
    const { bus, publish } = busWithLog(16);
    const a: SessionEvent[] = [];
    const b: SessionEvent[] = [];
    const offA = bus.subscribe((e) => a.push(e));
    bus.subscribe((e) => b.push(e));
    publish(1, 3);
    expect(seqs(a)).toEqual([1, 2, 3]); // already there: delivery is synchronous
    offA();
    publish(4, 5);
    expect(seqs(a)).toEqual([1, 2, 3]);
    expect(seqs(b)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a subscriber without afterSeq gets only what comes next', () => {
    const { bus, publish, readOlder } = busWithLog(16);
    publish(1, 3);
    const got: SessionEvent[] = [];
    bus.subscribe((e) => got.push(e));
    publish(4, 4);
    expect(seqs(got)).toEqual([4]);
    expect(readOlder).not.toHaveBeenCalled();
  });

  it('replays from a seq inside the window from memory, then goes on live, with no gap and no repeat', () => {
    const { bus, publish, readOlder } = busWithLog(16);
    publish(1, 10);
    const got: SessionEvent[] = [];
    bus.subscribe((e) => got.push(e), 6);
    publish(11, 12);
    expect(seqs(got)).toEqual([7, 8, 9, 10, 11, 12]);
    expect(readOlder).not.toHaveBeenCalled();
  });

  it.each([0, 5, 9, 10])('afterSeq %i replays exactly the later events', (after) => {
    const { bus, publish } = busWithLog(4);
    publish(1, 10);
    expect(seqs(bus.since(after))).toEqual(range(after + 1, 10));
  });

  it('keeps a window: past twice its size the ring drops to the newest windowSize events', () => {
    const { bus, publish, readOlder } = busWithLog(3);
    publish(1, 6); // 6 = 2 × 3: nothing dropped yet
    expect(seqs(bus.since(0))).toEqual(range(1, 6));
    expect(readOlder).not.toHaveBeenCalled();
    publish(7, 7); // 7 > 6: the ring keeps 5, 6, 7
    expect(seqs(bus.since(4))).toEqual([5, 6, 7]); // still in memory
    expect(readOlder).not.toHaveBeenCalled();
    expect(seqs(bus.since(3))).toEqual([4, 5, 6, 7]); // 4 is gone from memory: read from the log
    expect(readOlder).toHaveBeenCalledWith(3);
  });

  it('past the window, joins the log with the ring when the log lags behind', () => {
    // The ring ends up holding 7, 8; the log reaches 6 (where the window starts, as readOlder's flush guarantees).
    const log = range(1, 6).map(ev);
    const bus = new EventBus((after) => log.filter((e) => e.seq > after), 2);
    for (const s of range(1, 8)) bus.publish(ev(s));
    expect(seqs(bus.since(1))).toEqual(range(2, 8));
    expect(seqs(bus.since(6))).toEqual([7, 8]);
  });

  it('a listener that throws is reported and does not stop the others or later events', () => {
    const errors: unknown[] = [];
    const { bus, publish } = busWithLog(16, (err) => errors.push(err));
    const before: number[] = [];
    const after: number[] = [];
    bus.subscribe((e) => before.push(e.seq));
    bus.subscribe((e) => {
      if (e.seq === 2) throw new Error('listener broke');
    });
    bus.subscribe((e) => after.push(e.seq));
    publish(1, 3);
    expect(before).toEqual([1, 2, 3]);
    expect(after).toEqual([1, 2, 3]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('listener broke');
  });

  it('seed fills the window with a loaded log, so a replay needs no read', () => {
    const readOlder = vi.fn((): SessionEvent[] => []);
    const bus = new EventBus(readOlder, 16);
    bus.seed(range(1, 4).map(ev));
    const got: SessionEvent[] = [];
    bus.subscribe((e) => got.push(e), 2);
    bus.publish(ev(5));
    expect(seqs(got)).toEqual([3, 4, 5]);
    expect(readOlder).not.toHaveBeenCalled();
  });
});
