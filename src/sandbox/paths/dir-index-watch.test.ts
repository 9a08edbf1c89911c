import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirIndex } from './dir-index.js';
import { FolderWatch } from './folder-watch.js';

// The folder index with a watch: after a warm-up, a refresh lstats only what the watch reports,
// and still finds every `.git` a command could make, moved in or swapped in.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-watch-idx-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-watch-out-')));
const watches: FolderWatch[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const none = () => undefined;

function makeIndex(watch: FolderWatch, dir = root): DirIndex {
  return new DirIndex(dir, { skipNames: new Set(['node_modules']), skipPaths: new Set(), maxDirs: 1000, watch });
}
function newWatch(opts: { threshold?: number; cap?: number } = {}): FolderWatch {
  const w = new FolderWatch(opts);
  watches.push(w);
  return w;
}
/** Refreshes until the index trusts what it can (the first read, then the flush that adds the watches). */
async function warm(idx: DirIndex): Promise<void> {
  for (let i = 0; i < 3; i++) await idx.refresh(none);
}

beforeAll(async () => {
  for (let i = 0; i < 30; i++) mkdirSync(join(root, 'a', `p${i}`, 'deep'), { recursive: true });
  mkdirSync(join(root, 'b'));
  // Folders changed less than 2.5 s before they are read are not trusted yet (dir-index.ts).
  await sleep(2600);
});
afterAll(async () => {
  for (const w of watches) await w.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the folder index with a watch', () => {
  it('lstats only the root once warm, and sees a .git made deep down with its mtime set back', async () => {
    const idx = makeIndex(newWatch());
    await warm(idx);
    expect(idx.size).toBe(1 + 1 + 1 + 30 * 2);
    await idx.refresh(none);
    expect(idx.watched).toBe(true);
    expect(idx.checks).toBe(1); // the root
    expect(idx.reads).toBe(1);
    const deep = join(root, 'a', 'p7', 'deep');
    mkdirSync(join(deep, '.git'));
    utimesSync(deep, new Date(0), new Date(0));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(deep, '.git')]);
    expect(idx.checks).toBeLessThan(4);
    rmSync(join(deep, '.git'), { recursive: true });
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([]);
  });

  it('a folder swapped for another under the same name is read, with what the newcomer holds', async () => {
    const idx = makeIndex(newWatch());
    await warm(idx);
    mkdirSync(join(outside, 'evil', 'x', '.git'), { recursive: true });
    const p3 = join(root, 'a', 'p3');
    renameSync(p3, join(outside, 'p3-away'));
    renameSync(join(outside, 'evil'), p3);
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(p3, 'x', '.git')]);
    // The folder moved away keeps its watch no more: a .git made in it now is not in the workspace.
    mkdirSync(join(outside, 'p3-away', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(p3, 'x', '.git')]);
    // And the newcomer is watched in turn: a .git made in its subfolder later is seen.
    await sleep(2600);
    await warm(idx);
    mkdirSync(join(p3, 'x', 'y'));
    mkdirSync(join(p3, 'x', 'y', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()].sort()).toEqual([join(p3, 'x', '.git'), join(p3, 'x', 'y', '.git')]);
    rmSync(p3, { recursive: true });
    renameSync(join(outside, 'p3-away'), p3);
    rmSync(join(p3, 'deep', '.git'), { recursive: true });
  });

  it('a grandparent renamed away and back does not leave a watch on the wrong folder', async () => {
    const idx = makeIndex(newWatch());
    await warm(idx);
    const a = join(root, 'a');
    renameSync(a, join(root, 'a-tmp'));
    mkdirSync(join(root, 'a', 'p1', 'deep'), { recursive: true });
    renameSync(join(root, 'a'), join(outside, 'decoy'));
    renameSync(join(root, 'a-tmp'), a);
    await idx.refresh(none);
    mkdirSync(join(a, 'p1', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(a, 'p1', 'deep', '.git')]);
    rmSync(join(a, 'p1', 'deep', '.git'), { recursive: true });
  });

  it('when events may have been lost, every folder is checked again', async () => {
    const watch = newWatch({ threshold: 5 });
    const idx = makeIndex(watch);
    await warm(idx);
    for (let i = 0; i < 10; i++) writeFileSync(join(root, 'b', `f${i}`), 'x');
    mkdirSync(join(root, 'a', 'p9', 'deep', '.git'));
    await idx.refresh(none);
    expect(idx.watched).toBe(false);
    expect(idx.checks).toBe(idx.size);
    expect([...idx.gitEntries().keys()]).toEqual([join(root, 'a', 'p9', 'deep', '.git')]);
    rmSync(join(root, 'a', 'p9', 'deep', '.git'), { recursive: true });
  });

  it('a watch that stops (its worker ended) falls back to checking every folder, then trusts again', async () => {
    const watch = newWatch();
    const idx = makeIndex(watch);
    await warm(idx);
    await watch.stop();
    mkdirSync(join(root, 'a', 'p11', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(root, 'a', 'p11', 'deep', '.git')]);
    expect(idx.checks).toBe(idx.size);
    rmSync(join(root, 'a', 'p11', 'deep', '.git'), { recursive: true });
    await sleep(2600);
    await warm(idx);
    await idx.refresh(none);
    expect(idx.checks).toBe(1);
    // Trusted again because watched again: a .git made now, deep down, is seen.
    mkdirSync(join(root, 'a', 'p12', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(root, 'a', 'p12', 'deep', '.git')]);
    rmSync(join(root, 'a', 'p12', 'deep', '.git'), { recursive: true });
  });

  it("a worker that ends during another index's flush leaves no index trusting watches it lost", async () => {
    const watch = newWatch();
    const a = makeIndex(watch);
    const b = makeIndex(watch);
    await warm(a);
    await warm(b);
    await watch.stop(); // as if it died while a's flush was pending
    await a.refresh(none);
    for (let i = 0; i < 3; i++) await b.refresh(none);
    mkdirSync(join(root, 'a', 'p13', 'deep', '.git'));
    await b.refresh(none);
    expect([...b.gitEntries().keys()]).toEqual([join(root, 'a', 'p13', 'deep', '.git')]);
    rmSync(join(root, 'a', 'p13', 'deep', '.git'), { recursive: true });
  });

  it('a flush that is not answered in time restarts the worker, and the next ones are answered', async () => {
    const watch = newWatch();
    const idx = makeIndex(watch);
    await warm(idx);
    // A flush the worker takes longer over than allowed (20,000 watches asked for, none there).
    watch.flushTimeoutMs = 1;
    const many = Array.from({ length: 20_000 }, (_, i) => join(outside, 'none', String(i)));
    expect(await watch.flush(watch.register(), many, [])).toBeUndefined();
    watch.flushTimeoutMs = 2000;
    await idx.refresh(none);
    expect(idx.watched).toBe(false);
    expect(idx.checks).toBe(idx.size);
    await warm(idx);
    await idx.refresh(none);
    expect(idx.watched).toBe(true);
    expect(idx.checks).toBe(1);
    mkdirSync(join(root, 'a', 'p14', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(root, 'a', 'p14', 'deep', '.git')]);
    rmSync(join(root, 'a', 'p14', 'deep', '.git'), { recursive: true });
  });

  it('a workspace that is removed gives its watches back', async () => {
    const watch = newWatch({ cap: 40 });
    const gone = join(outside, 'gone');
    for (let i = 0; i < 15; i++) mkdirSync(join(gone, `d${i}`, 'x'), { recursive: true });
    const kept = join(outside, 'kept');
    for (let i = 0; i < 15; i++) mkdirSync(join(kept, `d${i}`, 'x'), { recursive: true });
    await sleep(300);
    const a = makeIndex(watch, gone);
    await warm(a);
    rmSync(gone, { recursive: true });
    await a.refresh(none);
    await a.refresh(none);
    const b = makeIndex(watch, kept);
    await warm(b);
    await b.refresh(none);
    expect(b.checks).toBe(1);
  });

  it('past the watch budget, the folders left over are checked by lstat and still guarded', async () => {
    const idx = makeIndex(newWatch({ cap: 10 }));
    await warm(idx);
    await idx.refresh(none);
    expect(idx.checks).toBeGreaterThan(idx.size - 12);
    mkdirSync(join(root, 'a', 'p29', 'deep', '.git'));
    await idx.refresh(none);
    expect([...idx.gitEntries().keys()]).toEqual([join(root, 'a', 'p29', 'deep', '.git')]);
    rmSync(join(root, 'a', 'p29', 'deep', '.git'), { recursive: true });
  });
});
