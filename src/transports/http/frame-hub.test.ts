import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../../core/index.js';
import { FrameHubs } from './frame-hub.js';
import { parseFrameId } from './frames.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-hub-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const { manager } = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto' });
const chunk = (s: ReturnType<typeof manager.create>, text: string) => s.emit({ type: 'message_chunk', data: { turnId: 't', text } });
const idOf = (frame: string) => /^id: (.+)$/m.exec(frame)![1]!;

describe('the per-session frame hub', () => {
  it('formats each frame once for every reader, and a late reader resumes exactly after its cursor', () => {
    const s = manager.create();
    const hubs = new FrameHubs(true);
    const a: string[] = [];
    const b: string[] = [];
    const offA = hubs.attach(s, undefined, (t) => a.push(t))!;
    chunk(s, 'one');
    chunk(s, 'two');
    const offB = hubs.attach(s, parseFrameId(idOf(a[0]!)), (t) => b.push(t))!;
    chunk(s, 'three');
    expect(a.map(idOf)).toEqual([`${s.lastSeq - 2}`, `${s.lastSeq - 1}`, `${s.lastSeq}`]);
    expect(b).toEqual(a.slice(1));
    expect(a[2]).toBe(b[1]); // the very same text, not a second translation
    offA();
    offB();
  });

  it('says so when a cursor is older than its window, and starts afresh after its last reader left', () => {
    const s = manager.create();
    for (let i = 0; i < 20_000; i++) chunk(s, `c${i}`);
    const hubs = new FrameHubs(false);
    const live: string[] = [];
    const off = hubs.attach(s, undefined, (t) => live.push(t))!;
    expect(hubs.attach(s, { seq: 2, k: 0 }, () => {})).toBeUndefined();
    const recent: string[] = [];
    const offRecent = hubs.attach(s, { seq: s.lastSeq - 3, k: 0 }, (t) => recent.push(t))!;
    expect(recent.map(idOf)).toEqual([`${s.lastSeq - 2}`, `${s.lastSeq - 1}`, `${s.lastSeq}`]);
    off();
    offRecent();
    // A new hub replays from seq 1 again, so an old cursor is covered once more.
    const old: string[] = [];
    const offOld = hubs.attach(s, { seq: 19_990, k: 0 }, (t) => old.push(t));
    expect(offOld).toBeDefined();
    expect(old.length).toBe(s.lastSeq - 19_990);
    offOld!();
  });
});
