import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineChannel } from './line-channel.js';

/** An output that records each write (the lines in it) and when it was handed on; `delayMs` makes it a slow reader. */
function recorder(delayMs = 0) {
  const writes: { lines: string[]; at: number; done?: number }[] = [];
  const out = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, cb) {
      const w: { lines: string[]; at: number; done?: number } = { lines: chunk.toString().trim().split('\n').map((l) => (JSON.parse(l) as { m: string }).m), at: performance.now() };
      writes.push(w);
      setTimeout(() => ((w.done = performance.now()), cb()), delayMs);
    },
  });
  return { writes, channel: new LineChannel(new PassThrough(), out) };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('LineChannel', () => {
  it('a burst goes out in one write per tick', async () => {
    const { writes, channel } = recorder();
    for (const m of ['a', 'b', 'c']) channel.send({ m });
    await tick();
    expect(writes.map((w) => w.lines)).toEqual([['a', 'b', 'c']]);
  });

  it("sendApart: what came before goes out at once, the message in a write of its own a gap later, and what is sent meanwhile behind it", async () => {
    const { writes, channel } = recorder();
    channel.send({ m: 'update 1' });
    channel.send({ m: 'update 2' });
    channel.sendApart({ m: 'answer' }, 20);
    channel.send({ m: 'next turn' });
    channel.sendApart({ m: 'answer 2' }, 20); // a second one waits for its own gap
    await channel.drain();
    expect(writes.map((w) => w.lines)).toEqual([['update 1', 'update 2'], ['answer', 'next turn'], ['answer 2']]);
    expect(writes[1]!.at - writes[0]!.done!).toBeGreaterThanOrEqual(19);
    expect(writes[2]!.at - writes[1]!.done!).toBeGreaterThanOrEqual(19);
  });

  it('the gap counts from when a slow reader took the earlier write, and drain waits for all of it', async () => {
    const { writes, channel } = recorder(60);
    channel.send({ m: 'big update' });
    channel.sendApart({ m: 'answer' }, 10);
    await channel.drain();
    expect(writes.map((w) => w.lines)).toEqual([['big update'], ['answer']]);
    expect(writes[1]!.at - writes[0]!.done!).toBeGreaterThanOrEqual(9);
    expect(writes[1]!.done).toBeDefined();
  });
});
