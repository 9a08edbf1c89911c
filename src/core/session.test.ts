import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from './create-core.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-session-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
/** A new core on the same home is what a new process would build. */
const newManager = () => createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto' }).manager;

describe('session events: numbered, logged, replayable', () => {
  it('a subscriber replaying from any seq gets every later event once, even after a burst larger than the memory window in one tick', () => {
    const s = newManager().create();
    for (let i = 0; i < 12_000; i++) s.emit({ type: 'message_chunk', data: { turnId: 't', text: `c${i}` } });
    for (const after of [0, 5, 7_000, s.lastSeq - 1]) {
      const seen: number[] = [];
      const off = s.subscribe((e) => seen.push(e.seq), after);
      s.emit({ type: 'notice', data: { level: 'info', text: 'live' } });
      off();
      const expected = Array.from({ length: s.lastSeq - after }, (_, i) => after + 1 + i);
      expect(seen).toEqual(expected);
    }
  });

  it('a second manager (a new process) loads the session with its history and state', () => {
    const a = newManager();
    const s = a.create({ approval: 'suggest' });
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'hi' } } });
    s.setMode('plan');
    s.close();
    const loaded = newManager().get(s.id);
    expect(loaded.state).toMatchObject({ approval: 'suggest', mode: 'plan', history: [{ role: 'user', text: 'hi' }] });
    expect(loaded.lastSeq).toBe(s.lastSeq);
  });
});

describe('one writer per session', () => {
  it('a session open in another live process is refused; a lock left by a dead process is taken over', async () => {
    const { writeFileSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const a = newManager();
    const s = a.create();
    s.close();
    const lock = join(home, 'eventlog', `ferret-${s.id}`, 'lock');
    writeFileSync(lock, String(process.ppid)); // a live process that is not us
    expect(() => newManager().get(s.id)).toThrow(/open in another ferret process/);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lock, dead);
    const loaded = newManager().get(s.id);
    expect(loaded.id).toBe(s.id);
    loaded.close();
  });
});
