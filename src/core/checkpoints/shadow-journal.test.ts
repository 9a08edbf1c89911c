import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../test-kit.js';
import { ShadowRepo } from './shadow-repo.js';

const place = (ws: string, store: string) => ({ gitDir: join(store, 'undo.git'), workTree: ws, path: process.env['PATH'] ?? '/usr/bin:/bin' });
const treeOf = (store: string, commit: string): string => execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'rev-parse', `${commit}^{tree}`], { encoding: 'utf8' }).trim();
const filesOf = (store: string, commit: string): string[] =>
  execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'ls-tree', '-r', '--name-only', commit], { encoding: 'utf8' }).split('\n').filter(Boolean);

// Small deterministic random numbers, so a failure can be replayed.
function rng(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

describe('snapshots narrowed by the change journal', () => {
  const { fresh } = scratch('ferret-journal-');

  it('record the same tree as a full listing, round after round of edits, new, moved and removed folders', async () => {
    const ws = fresh('ws');
    for (let d = 0; d < 6; d++) {
      mkdirSync(join(ws, `pkg${d}`, 'src'), { recursive: true });
      for (let f = 0; f < 4; f++) writeFileSync(join(ws, `pkg${d}`, 'src', `f${f}.ts`), `export const v = ${d * 10 + f};\n`);
    }
    writeFileSync(join(ws, '.gitignore'), 'out/\n');
    writeFileSync(join(ws, 'README.md'), '# ws\n');
    const jStore = fresh('journal');
    const fStore = fresh('full');
    const narrowed = new ShadowRepo(place(ws, jStore), { journal: 'on' });
    const full = new ShadowRepo(place(ws, fStore), { journal: 'off' });
    const rand = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let moves = 0;
    const listings = new Set<string>();
    const ops: Array<() => void> = [
      () => appendFileSync(join(ws, `pkg${Math.floor(rand() * 6)}`, 'src', 'f1.ts'), `// ${rand()}\n`),
      () => writeFileSync(join(ws, `pkg${Math.floor(rand() * 6)}`, 'src', `new${moves++}.ts`), 'x\n'),
      () => rmSync(join(ws, `pkg${Math.floor(rand() * 6)}`, 'src', 'f2.ts'), { force: true }),
      () => {
        const d = join(ws, `pkg${Math.floor(rand() * 6)}`, 'deep', `n${moves++}`);
        mkdirSync(d, { recursive: true });
        writeFileSync(join(d, 'a.txt'), 'made in a new folder\n');
      },
      () => {
        const from = join(ws, `pkg${Math.floor(rand() * 6)}`, 'src');
        renameSync(from, join(ws, `moved${moves++}`));
      },
      () => rmSync(join(ws, `pkg${Math.floor(rand() * 6)}`), { recursive: true, force: true }),
      () => chmodSync(join(ws, 'README.md'), rand() < 0.5 ? 0o755 : 0o644),
      () => writeFileSync(join(ws, 'README.md'), `# ws ${rand()}\n`),
      () => {
        mkdirSync(join(ws, 'out'), { recursive: true });
        writeFileSync(join(ws, 'out', 'ignored.js'), 'ignored\n');
      },
      () => {
        // Same size, mtime set back: only the watch's event (not a stat) tells it changed.
        const p = join(ws, 'pkg0', 'src', 'f0.ts');
        writeFileSync(p, 'export const v = 99;\n');
        utimesSync(p, 1_000_000, 1_000_000);
      },
      () => {
        symlinkSync('../README.md', join(ws, `pkg${Math.floor(rand() * 6)}`, `link${moves++}`));
      },
    ];
    for (let round = 0; round < 30; round++) {
      const n = 1 + Math.floor(rand() * 3);
      for (let i = 0; i < n; i++) {
        try {
          pick(ops)();
        } catch {
          // the op's folder was moved or removed by an earlier one
        }
      }
      const a = await narrowed.snapshot(`r${round}`);
      const b = await full.snapshot(`r${round}`);
      expect({ round, files: filesOf(jStore, a.commit) }).toEqual({ round, files: filesOf(fStore, b.commit) });
      expect(treeOf(jStore, a.commit), `round ${round}`).toBe(treeOf(fStore, b.commit));
      listings.add(narrowed.lastListing);
    }
    // The journal did narrow (and sometimes found nothing to list), and the answers stayed exact.
    expect(listings.has('narrowed')).toBe(true);
  }, 60_000);

  it('never records node_modules (even un-ignored), and an unchanged tree costs no listing', async () => {
    const ws = fresh('ws');
    writeFileSync(join(ws, '.gitignore'), '!node_modules/\n');
    mkdirSync(join(ws, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(ws, 'node_modules', 'dep', 'index.js'), 'dep\n');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.ts'), 'a\n');
    // Folders changed within the racy window of being read are re-read (and reported) until older.
    await sleep(200);
    const store = fresh('store');
    const repo = new ShadowRepo(place(ws, store), { journal: 'on' });
    const first = await repo.snapshot('one');
    expect(filesOf(store, first.commit)).toEqual(['.gitignore', 'src/a.ts']);
    await repo.snapshot('two');
    await repo.snapshot('three');
    // The journal is settled now: nothing changed, so the same commit, and no listing ran to find out.
    expect((await repo.snapshot('four')).commit).toBe(first.commit);
    expect(repo.lastListing).toBe('none');
    writeFileSync(join(ws, 'src', 'a.ts'), 'changed\n');
    const after = await repo.snapshot('five');
    expect(repo.lastListing).toBe('narrowed');
    expect(after.commit).not.toBe(first.commit);
    expect(execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'show', `${after.commit}:src/a.ts`], { encoding: 'utf8' })).toBe('changed\n');
  });

  it('a file written in a new folder before its watch was in place is still recorded', async () => {
    const ws = fresh('ws');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.ts'), 'a\n');
    await sleep(200);
    const store = fresh('store');
    const repo = new ShadowRepo(place(ws, store), { journal: 'on' });
    for (const n of ['one', 'two', 'three']) await repo.snapshot(n);
    mkdirSync(join(ws, 'src', 'fresh'));
    writeFileSync(join(ws, 'src', 'fresh', 'b.ts'), 'first\n');
    await sleep(200); // not racy: the folder is trusted as soon as its watch is added
    const k = await repo.snapshot('reads the new folder');
    expect(filesOf(store, k.commit)).toContain('src/fresh/b.ts');
    // Written in place: the folder's ctime stays, and no watch sits on it yet.
    writeFileSync(join(ws, 'src', 'fresh', 'b.ts'), 'other\n');
    const next = await repo.snapshot('adds its watch');
    expect(repo.lastListing).toBe('narrowed');
    expect(execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'show', `${next.commit}:src/fresh/b.ts`], { encoding: 'utf8' })).toBe('other\n');
  });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
