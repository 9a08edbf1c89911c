import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../protocol/index.js';
import { EventBus } from './bus.js';

// The per-session fan-out: synchronous delivery in seq order, replay from memory or, in awaited
// chunks, from the log.

const ev = (seq: number): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'notice', data: { level: 'info', text: `n${seq}` } });
const seqs = (events: SessionEvent[]): number[] => events.map((e) => e.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A log read in chunks of `size` events, each one awaited as a file read would be. */
async function* chunked(events: SessionEvent[], size = 3): AsyncIterable<{ events: SessionEvent[] }> {
  for (let i = 0; i < events.length; i += size) {
    await new Promise((r) => setImmediate(r));
    yield { events: events.slice(i, i + size) };
  }
}

/** A bus whose "log" holds every event published so far. */
function busWithLog(windowSize: number, onError?: (err: unknown) => void) {
  const log: SessionEvent[] = [];
  const readOlder = vi.fn((after: number) => chunked(log.filter((e) => e.seq > after)));
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

/** Everything after `after` as a subscriber that replays sees it, once it has caught up. */
async function since(bus: EventBus, after: number): Promise<SessionEvent[]> {
  const got: SessionEvent[] = [];
  const sub = bus.subscribe((e) => got.push(e), after);
  await sub.caughtUp;
  sub();
  return got;
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

  it('replays from a seq inside the window from memory, at once, then goes on live, with no gap and no repeat', () => {
    const { bus, publish, readOlder } = busWithLog(16);
    publish(1, 10);
    const got: SessionEvent[] = [];
    bus.subscribe((e) => got.push(e), 6);
    publish(11, 12);
    expect(seqs(got)).toEqual([7, 8, 9, 10, 11, 12]);
    expect(readOlder).not.toHaveBeenCalled();
  });

  it.each([0, 5, 9, 10])('afterSeq %i replays exactly the later events', async (after) => {
    const { bus, publish } = busWithLog(4);
    publish(1, 10);
    expect(seqs(await since(bus, after))).toEqual(range(after + 1, 10));
  });

  it('keeps a window: past twice its size the ring drops to the newest windowSize events', async () => {
    const { bus, publish, readOlder } = busWithLog(3);
    publish(1, 6); // 6 = 2 × 3: nothing dropped yet
    expect(seqs(await since(bus, 0))).toEqual(range(1, 6));
    expect(readOlder).not.toHaveBeenCalled();
    publish(7, 7); // 7 > 6: the ring keeps 5, 6, 7
    expect(seqs(await since(bus, 4))).toEqual([5, 6, 7]); // still in memory
    expect(readOlder).not.toHaveBeenCalled();
    expect(seqs(await since(bus, 3))).toEqual([4, 5, 6, 7]); // 4 is gone from memory: read from the log
    expect(readOlder).toHaveBeenCalledWith(3, undefined);
  });

  it('past the window, joins the log with the ring when the log lags behind', async () => {
    // The ring ends up holding 7, 8; the log reaches 6 (where the window starts, as readOlder's flush guarantees).
    const log = range(1, 6).map(ev);
    const bus = new EventBus((after) => chunked(log.filter((e) => e.seq > after)), 2);
    for (const s of range(1, 8)) bus.publish(ev(s));
    expect(seqs(await since(bus, 1))).toEqual(range(2, 8));
    expect(seqs(await since(bus, 6))).toEqual([7, 8]);
  });

  it('events published while a replay reads the log come after it, once each, in order', async () => {
    const { bus, publish } = busWithLog(2);
    publish(1, 20);
    const got: SessionEvent[] = [];
    const sub = bus.subscribe((e) => got.push(e), 0);
    // Publish while the replay's chunks are being read (each chunk awaits a setImmediate).
    for (let s = 21; s <= 40; s++) {
      await new Promise((r) => setImmediate(r));
      publish(s, s);
    }
    await sub.caughtUp;
    publish(41, 42);
    expect(seqs(got)).toEqual(range(1, 42));
  });

  it('a replay waits on its pace between chunks, and one that unsubscribes stops reading', async () => {
    const { bus, publish } = busWithLog(2);
    publish(1, 30);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const got: SessionEvent[] = [];
    let asked = 0;
    const sub = bus.subscribe((e) => got.push(e), 0, { pace: () => (asked++ === 0 ? gate : undefined) });
    await new Promise((r) => setTimeout(r, 20));
    expect(seqs(got)).toEqual([1, 2, 3]); // one chunk, then waiting on the pace
    expect(bus.busy).toBe(true);
    release();
    await sub.caughtUp;
    expect(seqs(got)).toEqual(range(1, 30));
    sub();
    expect(bus.busy).toBe(false);

    const other: SessionEvent[] = [];
    const stopped = bus.subscribe((e) => other.push(e), 0);
    stopped();
    await stopped.caughtUp;
    publish(31, 31);
    expect(other.length).toBeLessThan(31);
    expect(other.some((e) => e.seq === 31)).toBe(false);
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
    const readOlder = vi.fn((): AsyncIterable<{ events: SessionEvent[] }> => chunked([]));
    const bus = new EventBus(readOlder, 16);
    bus.seed(range(1, 4).map(ev));
    const got: SessionEvent[] = [];
    bus.subscribe((e) => got.push(e), 2);
    bus.publish(ev(5));
    expect(seqs(got)).toEqual([3, 4, 5]);
    expect(readOlder).not.toHaveBeenCalled();
  });

  it('a history replay leaves out the chunks an assistant message repeats, from memory as from the log, and never live ones', async () => {
    const chunk = (seq: number): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'message_chunk', data: { turnId: 't', text: `c${seq}` } });
    const reply = (seq: number): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'message', data: { turnId: 't', message: { role: 'assistant', text: 'x', toolCalls: [] } } });
    const history = [ev(1), chunk(2), chunk(3), reply(4), chunk(5), ev(6), chunk(7)];
    for (const window of [16, 2]) {
      const log: SessionEvent[] = [];
      const bus = new EventBus((after, opts) => chunked(log.filter((e) => e.seq > after && !(opts?.omitRepeatedChunksUpTo && e.type === 'message_chunk' && e.seq <= opts.omitRepeatedChunksUpTo && (e.seq === 2 || e.seq === 3)))), window);
      for (const e of history) {
        log.push(e);
        bus.publish(e);
      }
      const got: SessionEvent[] = [];
      const sub = bus.subscribe((e) => got.push(e), 0, { omitRepeatedChunks: true });
      await sub.caughtUp;
      // Live chunks are never left out, even once their message follows.
      for (const e of [chunk(8), reply(9)]) {
        log.push(e);
        bus.publish(e);
      }
      expect(seqs(got)).toEqual([1, 4, 5, 6, 7, 8, 9]);
      sub();
    }
  });

  it("a history replay from memory leaves out a command's progress its tool_call_end repeats, and never live progress", async () => {
    const progress = (seq: number, callId: string): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'tool_call_progress', data: { callId, stream: 'stdout', text: `p${seq}` } });
    const end = (seq: number, callId: string): SessionEvent => ({ seq, sessionId: 's1', ts: seq, type: 'tool_call_end', data: { callId, tool: 'bash', status: 'completed', output: 'all', durationMs: 1, exitCode: 0 } });
    const bus = new EventBus(() => chunked([]), 16);
    for (const e of [ev(1), progress(2, 'a'), progress(3, 'b'), end(4, 'a'), progress(5, 'b')]) bus.publish(e);
    const got: SessionEvent[] = [];
    const sub = bus.subscribe((e) => got.push(e), 0, { omitRepeatedChunks: true });
    await sub.caughtUp;
    for (const e of [progress(6, 'b'), end(7, 'b')]) bus.publish(e);
    expect(seqs(got)).toEqual([1, 3, 4, 5, 6, 7]);
    sub();
  });
});
