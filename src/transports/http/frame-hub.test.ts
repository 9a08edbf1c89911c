import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../../core/create-core.js';
import type { LiveSession } from '../../core/sessions/live-session.js';
import { FrameHubs } from './frame-hub.js';
import { FrameMapper, formatFrame, parseFrameId } from './frames.js';
import { ideFold } from './ide-frames.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-hub-'));
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })); // background meta writes may race the removal
const { manager } = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', folds: [ideFold], warm: false });
const chunk = (s: LiveSession, text: string) => s.emit({ type: 'message_chunk', data: { turnId: 't', text } });
const idOf = (frame: string) => /^id: (.+)$/m.exec(frame)![1]!;
const tick = () => new Promise((r) => setImmediate(r));

/** A bash call with streamed output: step and terminal counters move. */
function toolCall(s: LiveSession, n: number) {
  const callId = `c${n}`;
  s.emit({ type: 'tool_call_start', data: { turnId: 't', callId, tool: 'bash', args: {}, kind: 'execute', title: 'bash', locations: [] } });
  s.emit({ type: 'tool_call_progress', data: { callId, stream: 'stdout', text: `out ${n}\n` } });
  s.emit({ type: 'tool_call_end', data: { callId, tool: 'bash', status: 'completed', output: `out ${n}\n`, durationMs: 1 } });
}

/** Every frame of the session as a reader from seq 1 would get it. */
async function fromStart(s: LiveSession, ide = true): Promise<string[]> {
  const mapper = new FrameMapper(s.id, ide);
  const out: string[] = [];
  const sub = s.subscribe((e) => mapper.map(e).forEach((f) => out.push(formatFrame(f))), 0);
  await sub.caughtUp;
  sub();
  return out;
}

describe('the per-session frame hub', () => {
  it('formats each frame once for every reader, and a late reader resumes exactly after its cursor', () => {
    const s = manager.create();
    const hubs = new FrameHubs(true);
    const a: string[] = [];
    const b: string[] = [];
    const offA = hubs.attach(s, undefined, (t) => a.push(t));
    chunk(s, 'one');
    chunk(s, 'two');
    const offB = hubs.attach(s, parseFrameId(idOf(a[0]!)), (t) => b.push(t));
    chunk(s, 'three');
    expect(a.map(idOf)).toEqual([`${s.lastSeq - 2}`, `${s.lastSeq - 1}`, `${s.lastSeq}`]);
    expect(b).toEqual(a.slice(1));
    expect(a[2]).toBe(b[1]); // the very same text, not a second translation
    offA();
    offB();
  });

  it('a hub made mid-session starts from the kept IDE fold: its step and sequence numbers are those of a replay from seq 1', async () => {
    const s = manager.create();
    for (let i = 0; i < 5; i++) toolCall(s, i);
    const hubs = new FrameHubs(true);
    const live: string[] = [];
    const off = hubs.attach(s, undefined, (t) => live.push(t));
    for (let i = 5; i < 8; i++) toolCall(s, i);
    off();
    const all = await fromStart(s);
    expect(live).toEqual(all.slice(all.length - live.length));
    expect(live.join('')).toContain('"step":11'); // 5 calls × 2 steps before it, so the 6th call's first step is 11
  });

  it('a cursor older than the window is replayed from the log (from a checkpoint), then the reader joins the hub', async () => {
    const s = manager.create();
    for (let i = 0; i < 20_000; i++) {
      chunk(s, `c${i}`);
      if (i % 2000 === 0) toolCall(s, i);
      if (i % 500 === 0) await tick(); // written tick by tick: checkpoints along the way
    }
    await tick();
    const hubs = new FrameHubs(true);
    const live: string[] = [];
    const off = hubs.attach(s, undefined, (t) => live.push(t));
    const old: string[] = [];
    let paced = 0;
    const resumed = hubs.attach(s, { seq: 9_990, k: 0 }, (t) => old.push(t), { pace: () => (paced++, undefined) });
    chunk(s, 'during the replay');
    await resumed.ready;
    chunk(s, 'after it');
    const all = await fromStart(s);
    const from = all.findIndex((f) => idOf(f) === '9990');
    expect(old).toEqual(all.slice(from + 1)); // every frame after the cursor, once, in order, the live ones too
    expect(paced).toBeGreaterThan(0);
    expect(live.slice(-2)).toEqual(all.slice(-2)); // the hub's own reader got the same texts
    off();
    resumed();
    // The last reader left: the next hub starts where the session is, and an old cursor is still served.
    const again: string[] = [];
    const h = hubs.attach(s, { seq: 19_990, k: 0 }, (t) => again.push(t));
    await h.ready;
    expect(again).toEqual(all.slice(all.findIndex((f) => idOf(f) === '19990') + 1));
    h();
  });

  it('without the kept fold (a core that does not keep it), a hub is built by folding from seq 1, off the event loop', async () => {
    const bare = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false }).manager;
    const s = bare.create();
    for (let i = 0; i < 3; i++) toolCall(s, i);
    const hubs = new FrameHubs(true);
    const live: string[] = [];
    const h = hubs.attach(s, undefined, (t) => live.push(t));
    await h.ready;
    toolCall(s, 3);
    const all = await fromStart(s);
    expect(live).toEqual(all.slice(all.length - live.length));
    expect(live.join('')).toContain('"step":7');
    h();
  });
});
