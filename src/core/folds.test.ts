import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from './create-core.js';
import { FoldSet, type SessionFold } from './folds.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-folds-'));
/** Every core made here: their background writes (meta.json, the index) end before the folder goes. */
const cores: Core[] = [];
afterAll(async () => {
  await Promise.all(cores.map((c) => c.close()));
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** A fold that counts the events it sees; `applied` counts every call, so a fold from seq 1 shows. */
function counter(name: string) {
  const fold = {
    name,
    applied: 0,
    init: () => ({ n: 0 }),
    apply(s: { n: number }) {
      s.n++;
      fold.applied++;
    },
    save: (s: { n: number }) => ({ n: s.n }),
    restore: (json: unknown) => ({ n: (json as { n: number }).n }),
  } satisfies SessionFold<{ n: number }> & { applied: number };
  return fold;
}

/** A new core on the same home is what a new process would build (`folds` as its CLI registers them). */
const manager = (folds: SessionFold[]) => {
  const core = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: home, sandbox: 'workspace-write', approval: 'auto', warm: false, folds });
  cores.push(core);
  return core.manager;
};
const snapshotHeader = (id: string) => JSON.parse(readFileSync(join(home, 'eventlog', `ferret-${id}`, 'snapshot.json'), 'utf8').split('\n')[0]!) as { seq: number; folds: Record<string, unknown> };

/** A session long enough to keep a snapshot when it leaves memory, made by a process keeping `folds`. */
async function longSession(folds: SessionFold[]): Promise<{ id: string; lastSeq: number }> {
  const s = manager(folds).create();
  for (let i = 0; i < 2500; i++) s.emit({ type: 'notice', data: { level: 'info', text: `pad ${i}` } });
  await s.release(); // leaves memory: snapshot
  return { id: s.id, lastSeq: s.lastSeq };
}

describe('fold states kept in snapshots and checkpoints', () => {
  it('saved states cover any subset of their folds, never a fold they lack', () => {
    const [a, b] = [counter('a'), counter('b')];
    expect(FoldSet.covers([a], { a: { n: 1 }, b: { n: 2 } })).toBe(true);
    expect(FoldSet.covers([], { a: { n: 1 } })).toBe(true);
    expect(FoldSet.covers([a, b], { a: { n: 1 }, b: { n: 2 } })).toBe(true);
    expect(FoldSet.covers([a, b], { a: { n: 1 } })).toBe(false);
    expect(FoldSet.covers([counter('toString')], {})).toBe(false); // own keys only, not Object.prototype's
    // The folds this process does not know are left out of what it saves (it cannot keep them current).
    expect(new FoldSet([a], { a: { n: 1 }, b: { n: 2 } }).save()).toEqual({ a: { n: 1 } });
  });

  it('a process that keeps fewer folds (exec before it kept the IDE fold) loads from the snapshot instead of folding the log from seq 1', async () => {
    const [a, b] = [counter('a'), counter('b')];
    const { id, lastSeq } = await longSession([a, b]);
    expect(snapshotHeader(id)).toMatchObject({ seq: lastSeq, folds: { a: { n: lastSeq }, b: { n: lastSeq } } });
    const only = counter('a');
    const s = await manager([only]).open(id);
    await s.ready();
    expect(only.applied).toBe(0); // nothing folded: the snapshot was used as it is
    expect(s.foldState('a')).toEqual({ n: lastSeq });
    s.emit({ type: 'notice', data: { level: 'info', text: 'one more' } });
    expect(s.foldState('a')).toEqual({ n: lastSeq + 1 });
    expect(only.applied).toBe(1);
    s.close();
  });

  it('a process that keeps a fold the snapshot lacks folds the log again, and its states are those of seq 1 on', async () => {
    const a = counter('a');
    const { id, lastSeq } = await longSession([a]);
    const [a2, c] = [counter('a'), counter('c')];
    const s = await manager([a2, c]).open(id);
    await s.ready();
    expect(c.applied).toBe(lastSeq); // c is needed at every checkpoint: only a pass over the whole log gives it
    expect(s.foldState('a')).toEqual({ n: lastSeq });
    expect(s.foldState('c')).toEqual({ n: lastSeq });
    expect(s.checkpointAtOrBefore(lastSeq).folds).toMatchObject({ a: expect.anything(), c: expect.anything() });
    s.close();
  });
});
