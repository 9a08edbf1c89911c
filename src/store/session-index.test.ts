import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionMeta } from '../protocol/index.js';
import { eventlogRoot, metaFile } from './paths.js';
import { BadCursorError, MetaIndex } from './session-index.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'ferret-index-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })); // background meta writes may race the removal

const tick = () => new Promise((r) => setImmediate(r));
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const meta = (id: string, updatedMs: number, extra: Partial<SessionMeta> = {}): SessionMeta => ({
  sessionId: id,
  cwd: '/ws',
  model: 'scripted:/m.json',
  mode: 'code',
  createdAt: new Date(T0).toISOString(),
  updatedAt: new Date(T0 + updatedMs).toISOString(),
  costUsd: 0,
  ...extra,
});
const id = (i: number) => `s-${String(i).padStart(5, '0')}`;

/** Every page, `limit` at a time, following nextCursor. */
async function walk(index: MetaIndex, limit: number): Promise<SessionMeta[]> {
  const out: SessionMeta[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100_000; pages++) {
    const page = await index.page({ limit, cursor });
    out.push(...page.metas);
    cursor = page.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('no last page');
}

describe('MetaIndex', () => {
  it('pages newest first, ties by id, every session exactly once whatever the page size; a bad cursor names the field', async () => {
    const index = new MetaIndex(home);
    // 1,000 sessions on 10 timestamps: most pages end inside a run of equal updatedAt.
    const all = Array.from({ length: 1000 }, (_, i) => meta(id(i), (i * 7) % 10));
    for (const m of [...all].reverse()) index.put(m);
    const expected = [...all].sort((a, b) => (a.updatedAt === b.updatedAt ? (a.sessionId < b.sessionId ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1)).map((m) => m.sessionId);
    for (const limit of [1, 7, 100, 999, 1000, 5000]) expect((await walk(index, limit)).map((m) => m.sessionId)).toEqual(expected);
    for (const bad of ['nope', Buffer.from('[1,2]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      const err = await index.page({ cursor: bad }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadCursorError);
      expect((err as Error).message).toMatch(/^cursor: /);
    }
    expect((await index.page({ limit: 3 })).metas).toHaveLength(3);
  });

  it('an index line is on disk by the end of the tick it was put in: a process killed then loses no session (the 5,562 of 10,000)', async () => {
    const a = new MetaIndex(home);
    for (let i = 0; i < 2000; i++) a.put(meta(id(i), i), true);
    await tick();
    // What a SIGKILL leaves behind right now: the file as it is, nothing more from `a`.
    const crashed = mkdtempSync(join(tmpdir(), 'ferret-index-crashed-'));
    try {
      mkdirSync(eventlogRoot(crashed), { recursive: true });
      const file = join(eventlogRoot(home), 'index.jsonl');
      if (existsSync(file)) copyFileSync(file, join(eventlogRoot(crashed), 'index.jsonl'));
      const listed = await walk(new MetaIndex(crashed), 1000);
      expect(listed).toHaveLength(2000);
      expect(new Set(listed.map((m) => m.sessionId)).size).toBe(2000);
    } finally {
      rmSync(crashed, { recursive: true, force: true });
    }
    await a.flush();
  });

  it('a compaction while this process goes on making sessions loses none of them', async () => {
    const w = new MetaIndex(home);
    for (let i = 0; i < 5000; i++) for (let k = 0; k < 3; k++) w.put(meta(id(i), i * 3 + k));
    await tick();
    await w.flush();
    const a = new MetaIndex(home); // reads 15,000 lines for 5,000 sessions: it compacts
    let done = false;
    const listed = a.page({}).finally(() => (done = true));
    const made: string[] = [];
    for (let i = 0; !done && i < 2000; i++) {
      made.push(`new-${i}`);
      a.put(meta(`new-${i}`, 100_000 + i));
      await tick();
    }
    await listed;
    await tick();
    expect(readFileSync(join(eventlogRoot(home), 'index.jsonl'), 'utf8').split('\n').filter(Boolean).length).toBeLessThan(15_000); // it did compact
    const seen = new Set((await walk(new MetaIndex(home), 5000)).map((m) => m.sessionId));
    expect(made.length).toBeGreaterThan(0);
    expect(made.filter((x) => !seen.has(x))).toEqual([]);
    expect(seen.size).toBe(5000 + made.length);
  });

  it('writes every pending meta.json promptly, the newest summary of each session, and flush waits for them', async () => {
    const a = new MetaIndex(home);
    for (let i = 0; i < 300; i++) mkdirSync(join(eventlogRoot(home), `ferret-${id(i)}`), { recursive: true });
    for (let i = 0; i < 300; i++) a.put(meta(id(i), 1), true);
    a.put(meta(id(7), 2, { title: 'newer' }), true);
    await a.flush();
    for (let i = 0; i < 300; i++) expect(existsSync(metaFile(home, id(i)))).toBe(true);
    expect(JSON.parse(readFileSync(metaFile(home, id(7)), 'utf8'))).toMatchObject({ title: 'newer' });
  });

  it('an unchanged summary writes no line, so a caller may put every live session before each page', async () => {
    const a = new MetaIndex(home);
    for (let i = 0; i < 10; i++) a.put(meta(id(i), i));
    await tick();
    const lines = () => readFileSync(join(eventlogRoot(home), 'index.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    expect(lines()).toBe(10);
    for (let round = 0; round < 5; round++) for (let i = 0; i < 10; i++) a.put(meta(id(i), i));
    a.put(meta(id(3), 50));
    await tick();
    expect(lines()).toBe(11);
    expect((await a.page({ limit: 1 })).metas[0]!.sessionId).toBe(id(3));
  });

  it("follows another process's compaction even when the compacted copy is longer than what it had read", async () => {
    const a = new MetaIndex(home);
    for (let i = 0; i < 10; i++) a.put(meta(id(i), i));
    await tick();
    const b = new MetaIndex(home);
    expect((await b.page({})).metas).toHaveLength(10); // b has read ~10 lines
    // a goes on: the first ten change, 1,500 more are made and each changes twice.
    for (let i = 0; i < 10; i++) a.put(meta(id(i), 10_000 + i, { title: `changed ${i}` }));
    for (let i = 10; i < 1510; i++) for (let k = 0; k < 3; k++) a.put(meta(id(i), i * 3 + k));
    await tick();
    // A third process reads the long index and compacts it (one line per session, the first ten first).
    const c = new MetaIndex(home);
    expect((await c.page({ limit: 5000 })).metas).toHaveLength(1510);
    expect(readFileSync(join(eventlogRoot(home), 'index.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1510);
    const seen = await walk(b, 500);
    expect(seen).toHaveLength(1510);
    expect(seen.slice(0, 10).map((m) => m.title)).toEqual(Array.from({ length: 10 }, (_, i) => `changed ${9 - i}`));
    expect(seen.find((m) => m.sessionId === id(10))!.updatedAt).toBe(new Date(T0 + 32).toISOString());
  });

  it('a read of the index that fails fails that list only: the next one reads it again', async () => {
    mkdirSync(join(eventlogRoot(home), 'index.jsonl'), { recursive: true }); // reads fail (EISDIR)
    const a = new MetaIndex(home);
    await expect(a.page({})).rejects.toThrow();
    rmSync(join(eventlogRoot(home), 'index.jsonl'), { recursive: true });
    writeFileSync(join(eventlogRoot(home), 'index.jsonl'), JSON.stringify(meta(id(1), 1)) + '\n');
    expect((await a.page({})).metas.map((m) => m.sessionId)).toEqual([id(1)]);
  });

  it('sessions the index does not know are listed from their folders: meta.json, else the head of the log', async () => {
    const root = eventlogRoot(home);
    mkdirSync(join(root, `ferret-${id(1)}`), { recursive: true });
    writeFileSync(metaFile(home, id(1)), JSON.stringify(meta(id(1), 5, { title: 'from meta.json' })));
    mkdirSync(join(root, `ferret-${id(2)}`), { recursive: true });
    const ev = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, sessionId: id(2), ts: T0 + seq, type, data }) + '\n';
    writeFileSync(
      join(root, `ferret-${id(2)}`, 'events.jsonl'),
      ev(1, 'session_created', { cwd: '/w2', model: 'scripted:/x.json', mode: 'plan', sandbox: 'read-only', approval: 'auto' }) + ev(2, 'turn_start', { turnId: 't', text: 'fix the bug\nplease' }),
    );
    mkdirSync(join(root, `ferret-${id(3)}`), { recursive: true }); // an empty folder: a crash before anything was written
    const listed = (await new MetaIndex(home).page({})).metas;
    expect(listed.map((m) => m.sessionId).sort()).toEqual([id(1), id(2)]);
    expect(listed.find((m) => m.sessionId === id(1))).toMatchObject({ title: 'from meta.json' });
    expect(listed.find((m) => m.sessionId === id(2))).toMatchObject({ cwd: '/w2', mode: 'plan', title: 'fix the bug', createdAt: new Date(T0 + 1).toISOString() });
  });
});

describe('a session deleted right after it closed', () => {
  it('its queued meta.json is not written into the folder being removed', async () => {
    const index = new MetaIndex(home);
    const s = id(1);
    mkdirSync(join(metaFile(home, s), '..'), { recursive: true });
    index.put(meta(s, 1), true); // what a session writes beside its log as it leaves memory
    await index.dropMetaWrite(s);
    await index.flush();
    for (let i = 0; i < 5; i++) await tick();
    expect(existsSync(metaFile(home, s))).toBe(false);
    // Without the drop it is written (the test above would otherwise prove nothing).
    index.put(meta(s, 2), true);
    await index.flush();
    expect(existsSync(metaFile(home, s))).toBe(true);
  });
});
