import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirIndex } from './dir-index.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-index-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const opts = { skipNames: new Set(['node_modules']), skipPaths: new Set<string>(), maxDirs: 1000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the folder index the workspace guard refreshes', () => {
  it('reads the tree once, then only what changed, and still sees every new .git', async () => {
    for (let i = 0; i < 20; i++) mkdirSync(join(root, 'a', `p${i}`, 'deep'), { recursive: true });
    mkdirSync(join(root, 'node_modules', 'x', '.git'), { recursive: true });
    const idx = new DirIndex(root, opts);
    await idx.refresh(() => undefined);
    expect(idx.size).toBe(1 + 1 + 20 * 2);
    expect([...idx.gitEntries().keys()]).toEqual([]);
    // Made just now, every folder was racy at the first read (changed in the tick it was read):
    // read once more after the window, then no more.
    await sleep(2600);
    await idx.refresh(() => undefined);
    await idx.refresh(() => undefined);
    expect(idx.reads).toBe(1); // the root only
    // A new repository deep down, its folder's mtime set back to hide it: ctime still moved.
    const deep = join(root, 'a', 'p7', 'deep');
    mkdirSync(join(deep, '.git'));
    utimesSync(deep, new Date(0), new Date(0));
    await idx.refresh(() => undefined);
    expect([...idx.gitEntries().keys()]).toEqual([join(deep, '.git')]);
    expect(idx.reads).toBeLessThan(5);
  });

  it('a folder moved in brings its whole subtree, one moved out takes its entries with it', async () => {
    const idx = new DirIndex(root, opts);
    await idx.refresh(() => undefined);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-index-out-')));
    try {
      mkdirSync(join(outside, 'staged', 'x', '.git'), { recursive: true });
      renameSync(join(outside, 'staged'), join(root, 'a', 'p3', 'staged'));
      await idx.refresh(() => undefined);
      expect([...idx.gitEntries().keys()]).toContain(join(root, 'a', 'p3', 'staged', 'x', '.git'));
      renameSync(join(root, 'a', 'p3', 'staged'), join(outside, 'back'));
      await idx.refresh(() => undefined);
      expect([...idx.gitEntries().keys()]).not.toContain(join(root, 'a', 'p3', 'staged', 'x', '.git'));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a folder changed in the same clock tick as it was read is read again', async () => {
    const idx = new DirIndex(root, opts);
    const d = join(root, 'racy');
    mkdirSync(d);
    await idx.refresh(() => undefined);
    writeFileSync(join(d, 'f'), ''); // may share the ctime tick of the read above
    mkdirSync(join(d, '.git'));
    await idx.refresh(() => undefined);
    expect([...idx.gitEntries().keys()]).toContain(join(d, '.git'));
  });
});
