import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../../core/create-core.js';
import type { LiveSession } from '../../core/sessions/live-session.js';
import { FrameHubs } from './frame-hub.js';
import { ideFold } from './ide-frames.js';
import { HARD_LIMIT_FACTOR, SseSubscriber } from './sse-subscriber.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-sse-sub-'));
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })); // background meta writes may race the removal
const { manager } = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', folds: [ideFold], warm: false });
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const chunk = (s: LiveSession, i: number) => s.emit({ type: 'message_chunk', data: { turnId: 't', text: `word ${i} ` } });

/** A socket whose reader can stop reading: what it has not taken stays in writableLength, as on a real response. */
class Reader extends Writable {
  text = '';
  private paused: boolean;
  private held: (() => void)[] = [];

  constructor(paused: boolean) {
    super({ decodeStrings: false });
    this.paused = paused;
  }

  override _write(chunk: string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk;
    if (this.paused) this.held.push(cb);
    else cb();
  }

  override _writev(chunks: { chunk: string }[], cb: () => void): void {
    for (const c of chunks) this.text += c.chunk;
    if (this.paused) this.held.push(cb);
    else cb();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const cb of this.held.splice(0)) cb();
  }

  get frames(): number {
    return this.text.split('\n\n').length - 1;
  }
}

function reader(s: LiveSession, opts: { paused?: boolean; maxBufferBytes?: number; stallMs?: number; after?: { seq: number; k: number } } = {}) {
  const out = new Reader(opts.paused ?? false);
  const sub = new SseSubscriber(s, out as unknown as ServerResponse, {
    after: opts.after,
    maxBufferBytes: opts.maxBufferBytes ?? 1 << 20,
    stallMs: opts.stallMs ?? 5000,
    logger: pino({ level: 'silent' }),
    hubs: new FrameHubs(true),
  });
  sub.start();
  return { out, sub };
}

describe('an SSE reader that falls behind', () => {
  it('a reader pausing 0.7 s during a 40,000-chunk burst is kept, with the default limits (1 MiB, 5 s), and gets every frame', async () => {
    const s = manager.create();
    const { out, sub } = reader(s, { paused: true });
    await tick(); // live
    let peak = 0;
    const t0 = Date.now();
    for (let i = 0; i < 40_000; i++) {
      chunk(s, i);
      if (i % 1000 === 999) {
        peak = Math.max(peak, out.writableLength);
        await tick(); // a model streams: the event loop turns between bursts of chunks
      }
    }
    await sleep(Math.max(0, 700 - (Date.now() - t0)));
    expect(peak).toBeGreaterThan(1 << 20); // it was well over the soft limit, and under the hard one
    out.resume();
    await tick();
    expect(out.destroyed).toBe(false);
    expect(out.frames).toBe(40_000); // one loop_event frame a chunk
    sub.close();
  });

  it('more than 16× the limit behind drops it at once (the hard bound), with no frame queued past it', async () => {
    const s = manager.create();
    const max = 16 * 1024;
    const { out } = reader(s, { paused: true, maxBufferBytes: max, stallMs: 60_000 });
    await tick();
    let before = 0;
    for (let i = 0; i < 20_000 && !out.destroyed; i++) {
      before = out.writableLength;
      chunk(s, i);
    }
    expect(out.destroyed).toBe(true);
    expect(before).toBeGreaterThan(HARD_LIMIT_FACTOR * max);
    expect(before).toBeLessThan(HARD_LIMIT_FACTOR * max + 4096); // dropped by the first frames past the bound
  });

  it('more than the limit behind for stallMs in a row drops it; one that caught up in between is kept', async () => {
    const s = manager.create();
    const max = 16 * 1024;
    const stalled = reader(s, { paused: true, maxBufferBytes: max, stallMs: 150 });
    const brisk = reader(s, { paused: true, maxBufferBytes: max, stallMs: 150 });
    await tick();
    for (let i = 0; i < 400; i++) chunk(s, i); // ~4× the limit: over it, far under the hard bound
    expect(stalled.out.writableLength).toBeGreaterThan(max);
    expect(stalled.out.destroyed).toBe(false); // not at once
    await sleep(100);
    brisk.out.resume(); // catches up before the stall time is out
    chunk(s, 400); // a frame sees it caught up: its clock starts again
    brisk.out.pause();
    for (let i = 401; i < 800; i++) chunk(s, i); // behind again, for less than 150 ms
    await sleep(100);
    expect(stalled.out.destroyed).toBe(true);
    expect(brisk.out.destroyed).toBe(false);
    brisk.out.resume();
    await sleep(200);
    expect(brisk.out.destroyed).toBe(false);
    expect(brisk.out.frames).toBe(800);
    brisk.sub.close();
  });

  it('a resume read from the log is paced by the socket instead: a stopped reader holds about half the limit, and gets every frame once it reads', async () => {
    const s = manager.create();
    for (let i = 0; i < 20_000; i++) {
      chunk(s, i);
      if (i % 500 === 0) await tick(); // written tick by tick: checkpoints along the way
    }
    await tick();
    const max = 64 * 1024;
    const { out, sub } = reader(s, { paused: true, maxBufferBytes: max, stallMs: 100, after: { seq: 10, k: 0 } });
    await sleep(300);
    expect(out.destroyed).toBe(false); // older than the window: not a live reader, the stall rule does not apply
    expect(out.writableLength).toBeLessThan(1 << 20); // paced: far from the ~4 MB of frames after seq 10
    out.resume();
    for (let i = 0; i < 200 && out.frames < s.lastSeq - 10; i++) await sleep(10);
    expect(out.frames).toBe(s.lastSeq - 10); // every frame after the cursor, once
    expect(out.destroyed).toBe(false);
    sub.close();
  });
});
