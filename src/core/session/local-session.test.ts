import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { logFds } from '../../store/fd-pool.js';
import { createCore } from '../create-core.js';
import type { SessionLimits } from '../sessions/session-manager.js';
import { replayedSeqs } from '../test-kit.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-session-'));
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })); // background meta writes may race the removal
/** A new core on the same home is what a new process would build. */
const newCore = (limits?: Partial<SessionLimits>) =>
  createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, ...(limits ? { limits } : {}) });
const newManager = (limits?: Partial<SessionLimits>) => newCore(limits).manager;
const dir = (id: string) => join(home, 'eventlog', `ferret-${id}`);
/** Enough events that leaving memory keeps a snapshot (a short log is folded from seq 1 instead). */
const pad = (s: { emit: (d: never) => unknown }) => {
  for (let i = 0; i < 2000; i++) s.emit({ type: 'notice', data: { level: 'info', text: `pad ${i}` } } as never);
};

describe('session events: numbered, logged, replayable', () => {
  it('a subscriber replaying from any seq gets every later event once, even after a burst larger than the memory window in one tick', async () => {
    const s = newManager().create();
    for (let i = 0; i < 12_000; i++) s.emit({ type: 'message_chunk', data: { turnId: 't', text: `c${i}` } });
    for (const after of [0, 5, 7_000, s.lastSeq - 1]) {
      const seen: number[] = [];
      const sub = s.subscribe((e) => seen.push(e.seq), after);
      s.emit({ type: 'notice', data: { level: 'info', text: 'live' } });
      await sub.caughtUp;
      sub();
      const expected = Array.from({ length: s.lastSeq - after }, (_, i) => after + 1 + i);
      expect(seen).toEqual(expected);
    }
  });

  it('a second manager (a new process) loads the session with its history and state', async () => {
    const a = newManager();
    const s = a.create({ approval: 'suggest' });
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'hi' } } });
    s.setMode('plan');
    s.close();
    const loaded = await newManager().open(s.id);
    expect(loaded.state).toMatchObject({ approval: 'suggest', mode: 'plan', history: [{ role: 'user', text: 'hi' }] });
    expect(loaded.lastSeq).toBe(s.lastSeq);
    loaded.close();
    const opened = await newManager().open(s.id);
    await opened.ready();
    expect(opened.state).toMatchObject({ approval: 'suggest', mode: 'plan', history: [{ role: 'user', text: 'hi' }] });
    opened.close();
  });
});

describe('long logs: snapshots and checkpoints', () => {
  it('a load starts from the snapshot, folds only what came after it, and reads from any seq through a checkpoint', async () => {
    const a = newManager();
    const s = a.create();
    for (let i = 0; i < 30_000; i++) {
      s.emit({ type: 'message_chunk', data: { turnId: 't', text: `c${i}` } });
      if (i % 1000 === 0) await new Promise((r) => setImmediate(r)); // written tick by tick, as a turn streams
    }
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'after the burst' } } });
    await s.release(); // what an idle session does when it leaves memory
    const [head, ...messages] = readFileSync(join(dir(s.id), 'snapshot.json'), 'utf8').split('\n').filter(Boolean);
    expect(JSON.parse(head!)).toMatchObject({ seq: s.lastSeq, items: 1 });
    expect(messages.map((l) => JSON.parse(l))).toEqual([{ role: 'user', text: 'after the burst' }]); // the history, one message a line
    expect(readFileSync(join(dir(s.id), 'checkpoints.jsonl'), 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(5);

    const b = await newManager().open(s.id);
    expect(b.lastSeq).toBe(s.lastSeq);
    await b.ready(); // the history is read after the session opens (a stream never needs it)
    expect(b.state.history).toEqual([{ role: 'user', text: 'after the burst' }]);
    // A read from the middle starts at the checkpoint before it, and still yields exactly the events after.
    const seen = await replayedSeqs(b, 20_000);
    expect(seen[0]).toBe(20_001);
    expect(seen.at(-1)).toBe(b.lastSeq);
    expect(seen.length).toBe(b.lastSeq - 20_000);
    b.close();
  });

  it('the history is the snapshot\'s then the tail\'s, in order, whether it is read in the background or before the tail', async () => {
    const say = (x: { emit: (d: never) => unknown }, text: string) => x.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text } } } as never);
    const s = newManager().create();
    pad(s);
    say(s, 'one');
    say(s, 'two');
    await s.release(); // snapshot: two messages
    expect(existsSync(join(dir(s.id), 'snapshot.json'))).toBe(true);
    const b = await newManager().open(s.id);
    say(b, 'three'); // after the snapshot, in the log only
    await b.ready();
    b.close();
    const c = await newManager().open(s.id);
    await c.ready();
    expect(c.state.history.map((m) => (m as { text: string }).text)).toEqual(['one', 'two', 'three']);
    c.close();
    const m = newManager();
    await m.open(s.id);
    const d = m.get(s.id); // what a transport opened ahead, `get` finds in memory
    await d.ready();
    expect(d.state.history.map((m) => (m as { text: string }).text)).toEqual(['one', 'two', 'three']);
    d.close();
  });

  it('a snapshot that no longer matches the log (cut back by a crash) is not used: the log is folded again', async () => {
    const s = newManager().create();
    pad(s);
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'one' } } });
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'two' } } });
    await s.release();
    expect(existsSync(join(dir(s.id), 'snapshot.json'))).toBe(true);
    const last = s.lastSeq;
    const log = join(dir(s.id), 'events.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // The last event is lost and half of a new one is there instead: the snapshot says `last`, the log has last − 1 and a tear.
    writeFileSync(log, lines.slice(0, -1).join('\n') + `\n{"seq":${last},"sessionId":"x","ts":1,"type":"mess`);
    const b = await newManager().open(s.id);
    await b.ready();
    expect(b.state.history).toEqual([{ role: 'user', text: 'one' }]);
    // The notice of the tear takes seq `last` now: numbering stays whole.
    expect(b.lastSeq).toBe(last);
    b.close();
  });

  it('a torn tail after the snapshot is cut off, reported, and the next event stands alone', async () => {
    const s = newManager().create();
    pad(s);
    await s.release();
    const log = join(dir(s.id), 'events.jsonl');
    appendFileSync(log, `{"seq":${s.lastSeq + 1},"sessionId":"x","ts":1,"type":"noti`);
    const b = await newManager().open(s.id);
    expect(b.lastSeq).toBe(s.lastSeq + 1); // the damage notice
    b.close();
    const text = readFileSync(log, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('"noti{');
    truncateSync(log, text.length); // unchanged
  });
});

describe('session lifecycle', () => {
  it('an idle session leaves memory after the idle time and comes back on demand with its state', async () => {
    const m = newManager({ idleMs: 50 });
    const s = m.create({ approval: 'suggest' });
    s.setMode('plan');
    expect(m.liveCount).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    expect(m.liveCount).toBe(0);
    expect(existsSync(join(dir(s.id), 'lock'))).toBe(false); // the lock is given back
    const back = await m.open(s.id);
    expect(back).not.toBe(s);
    expect(back.state).toMatchObject({ approval: 'suggest', mode: 'plan' });
    back.close();
  });

  it('a session with a listener, an attached client or a running turn is never let go; past the cap the least recently used idle ones are', async () => {
    const m = newManager({ idleMs: 30, maxLive: 3 });
    const held = m.create();
    const off = held.subscribe(() => {});
    const attached = m.create();
    const client = attached.attach({ clientId: 'c1' });
    await new Promise((r) => setTimeout(r, 200));
    expect(m.liveCount).toBe(2);
    off();
    client.detach();
    await new Promise((r) => setTimeout(r, 200));
    expect(m.liveCount).toBe(0);

    const big = newManager({ maxLive: 3, lruGraceMs: 0 });
    const made = Array.from({ length: 6 }, () => big.create());
    await new Promise((r) => setTimeout(r, 50));
    expect(big.liveCount).toBe(3);
    expect(made.slice(0, 3).every((s) => s.isClosed)).toBe(true);
    for (const s of made.slice(3)) s.close();

    // With a grace, sessions just made stay a moment over the cap, then the oldest idle ones leave.
    const graced = newManager({ maxLive: 3, lruGraceMs: 150 });
    const burst = Array.from({ length: 6 }, () => graced.create());
    await new Promise((r) => setTimeout(r, 50));
    expect(graced.liveCount).toBe(6);
    await new Promise((r) => setTimeout(r, 400));
    expect(graced.liveCount).toBe(3);
    for (const s of burst) s.close();
  });

  it('explicit close lets an idle session go now; the logs of many sessions hold a bounded number of files', async () => {
    const m = newManager({ maxLive: 10_000 });
    const s = m.create();
    await m.close(s.id);
    expect(s.isClosed).toBe(true);
    expect((await m.list()).sessions.some((x) => x.sessionId === s.id && !x.live)).toBe(true);

    logFds.setMax(50);
    try {
      const many = Array.from({ length: 300 }, () => m.create());
      for (const x of many) x.emit({ type: 'notice', data: { level: 'info', text: 'hi' } });
      await new Promise((r) => setImmediate(r));
      expect(logFds.size).toBeLessThanOrEqual(50);
      // Every log was written all the same (a log whose descriptor was closed is opened again).
      const back = await newManager().open(many[0]!.id);
      expect(back.lastSeq).toBe(2);
      back.close();
      for (const x of many) x.close();
    } finally {
      logFds.setMax(1024);
    }
  });
});

describe('session/list', () => {
  it('pages newest first with a cursor, from the index, and sees sessions another process made', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'ferret-list-'));
    try {
      const make = () => createCore({ logger: pino({ level: 'silent' }), home: fresh, env: {}, cwd: fresh, sandbox: 'workspace-write', approval: 'auto', warm: false });
      const a = make();
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const s = a.manager.create();
        ids.push(s.id);
        await new Promise((r) => setTimeout(r, 2)); // distinct updatedAt
      }
      await a.close();
      const b = make();
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await b.manager.list({ limit: 10, ...(cursor ? { cursor } : {}) });
        seen.push(...page.sessions.map((x) => x.sessionId));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual([...ids].reverse());
      // A session made by another process after b first listed shows up on b's next list.
      const c = make();
      const late = c.manager.create();
      await c.close();
      expect((await b.manager.list({ limit: 1 })).sessions[0]!.sessionId).toBe(late.id);
      await expect(b.manager.list({ cursor: 'nonsense' })).rejects.toThrow(/cursor/);
      await b.close();
      // The index lost (a crash before its line was written), and meta.json too: the session is still listed, from its log.
      rmSync(join(fresh, 'eventlog', 'index.jsonl'));
      rmSync(join(fresh, 'eventlog', `ferret-${ids[3]}`, 'meta.json'));
      const d = make();
      const all = (await d.manager.list({ limit: 100 })).sessions;
      expect(all.map((x) => x.sessionId).sort()).toEqual([...ids, late.id].sort());
      expect(all.find((x) => x.sessionId === ids[3])).toMatchObject({ cwd: fresh, live: false });
      await d.close();
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('one writer per session', () => {
  it('a session open in another live process is refused; a lock left by a dead process is taken over', async () => {
    const { spawnSync } = await import('node:child_process');
    const a = newManager();
    const s = a.create();
    s.close();
    const lock = join(home, 'eventlog', `ferret-${s.id}`, 'lock');
    writeFileSync(lock, String(process.ppid)); // a live process that is not us
    const m = newManager();
    await expect(m.open(s.id)).rejects.toThrow(/open in another ferret process/);
    expect(() => m.get(s.id)).toThrow(/open in another ferret process/); // why the open a transport made ahead failed
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lock, dead);
    const loaded = await newManager().open(s.id);
    expect(loaded.id).toBe(s.id);
    loaded.close();
  });
});
