import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../create-core.js';
import type { LiveSession as Session } from './live-session.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-manager-'));
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })); // background meta writes may race the removal
const newManager = () =>
  createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, limits: { maxLive: 10_000 } }).manager;
let n = 0;
const script = (responses: unknown[]) => {
  const file = join(home, `script-${n++}.json`);
  writeFileSync(file, JSON.stringify({ responses }));
  return `scripted:${file}`;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SessionManager.close', () => {
  it('a session closed while its turn runs stays for the turn and leaves as soon as it ends (not idleMs later)', async () => {
    const m = newManager();
    const s = m.create({ model: script([{ chunks: ['a', 'b', 'c'], delayMs: 40 }, { chunks: ['next'] }]) });
    const { done } = s.startTurn('slow');
    await m.close(s.id);
    expect(s.isClosed).toBe(false); // the turn goes on
    expect((await done).stopReason).toBe('end_turn');
    for (let i = 0; i < 40 && !s.isClosed; i++) await sleep(10);
    expect(s.isClosed).toBe(true);
    expect(m.liveCount).toBe(0);
    // Loaded back on demand, where the conversation was.
    expect((await (await m.open(s.id)).startTurn('again').done).message.text).toBe('next');
  });

  it('a session another client holds is not let go by a close, and a session used again after its turn stays', async () => {
    const m = newManager();
    const held = m.create();
    const client = held.attach({ clientId: 'other' });
    await m.close(held.id);
    await sleep(20);
    expect(held.isClosed).toBe(false);
    client.detach();

    const s = m.create({ model: script([{ chunks: ['a'], delayMs: 20 }, { chunks: ['b'], delayMs: 20 }]) });
    const first = s.startTurn('one');
    await m.close(s.id);
    await first.done;
    const second = s.startTurn('two'); // before the close takes effect: it must not cut this turn off
    expect((await second.done).stopReason).toBe('end_turn');
    expect(s.isClosed).toBe(false);
    s.close();
  });
});

describe('SessionManager.list', () => {
  it('is newest first by the times it shows, also for live sessions changed since they last saved', async () => {
    const m = newManager();
    const made: Session[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(m.create());
      await sleep(3);
    }
    made[0]!.setApproval('suggest'); // an event, and no save of its own
    const page = (await m.list()).sessions.filter((x) => made.some((s) => s.id === x.sessionId));
    expect(page.map((x) => x.sessionId)).toEqual([made[0]!.id, made[2]!.id, made[1]!.id]);
    for (let i = 1; i < page.length; i++) expect(page[i - 1]!.updatedAt >= page[i]!.updatedAt).toBe(true);
    for (const s of made) s.close();
  });
});
