import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../create-core.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-queue-'));
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));
const manager = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false }).manager;
let n = 0;
const script = (responses: unknown[]) => {
  const file = join(home, `script-${n++}.json`);
  writeFileSync(file, JSON.stringify({ responses }));
  return `scripted:${file}`;
};

describe('startTurn with queue', () => {
  it('without it a second turn is refused; with it the prompt waits for the running turn, then runs', async () => {
    const s = manager.create({ model: script([{ chunks: ['one'], delayMs: 60 }, { chunks: ['two'] }]) });
    const first = s.startTurn('first', { origin: 'a' });
    expect(() => s.startTurn('now', { origin: 'b' })).toThrow(expect.objectContaining({ code: 'session_busy' }));
    const queued = s.startTurn('second', { origin: 'b', queue: true });
    expect((await first.done).message.text).toBe('one');
    const second = await queued;
    if (second === 'cancelled') throw new Error('the queued prompt was cancelled');
    expect((await second.done).message.text).toBe('two');
  });

  it("withdrawing the origin's queued prompt answers 'cancelled' without running it; another origin's waits on", async () => {
    const s = manager.create({ model: script([{ chunks: ['one'], delayMs: 60 }, { chunks: ['two'] }]) });
    const first = s.startTurn('first', { origin: 'a' });
    const mine = s.startTurn('mine', { origin: 'b', queue: true });
    const theirs = s.startTurn('theirs', { origin: 'c', queue: true });
    expect(s.withdrawQueued('b')).toBe(true);
    expect(await mine).toBe('cancelled');
    await first.done;
    const started = await theirs;
    if (started === 'cancelled') throw new Error('the other prompt was withdrawn too');
    expect((await started.done).message.text).toBe('two');
  });
});
