import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../test-kit.js';
import { seedObjects } from './seed-objects.js';
import { ShadowRepo } from './shadow-repo.js';

const place = (ws: string, store: string) => ({ gitDir: join(store, 'undo.git'), workTree: ws, path: process.env['PATH'] ?? '/usr/bin:/bin' });
/** A repository with one committed file, packed. */
function packedRepo(ws: string): string {
  userGit(ws, 'init', '-q');
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  userGit(ws, 'add', '-A');
  userGit(ws, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qm', 'one');
  userGit(ws, 'gc', '-q');
  return ws;
}
const userGit = (ws: string, ...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: ws, GIT_CONFIG_NOSYSTEM: '1' } });

describe('the shadow repository', () => {
  const { fresh } = scratch('ferret-shadow-');

  it('restores edited, created and deleted files byte-exact (modes and symlinks too) and leaves unrelated files alone', async () => {
    const ws = fresh('ws');
    const repo = new ShadowRepo(place(ws, fresh('store')));
    const crlf = Buffer.from('line one\r\nline two\r\n\x00\xff binary tail');
    writeFileSync(join(ws, 'a.py'), crlf);
    writeFileSync(join(ws, 'c.md'), '# keep me\n');
    writeFileSync(join(ws, '.gitattributes'), '* text=auto eol=lf\n');
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    const before = await repo.snapshot('before');
    writeFileSync(join(ws, 'a.py'), 'print("changed")\n');
    mkdirSync(join(ws, 'new'));
    writeFileSync(join(ws, 'new', 'b.txt'), 'made by a command\n');
    rmSync(join(ws, 'c.md'));
    chmodSync(join(ws, 'run.sh'), 0o644);
    symlinkSync('a.py', join(ws, 'link'));
    const after = await repo.snapshot('after');
    const changed = await repo.changedBetween(after.commit, before.commit);
    expect(changed.sort()).toEqual(['a.py', 'c.md', 'link', 'new/b.txt', 'run.sh']);
    writeFileSync(join(ws, 'unrelated.txt'), 'the person wrote this meanwhile');
    await repo.snapshot('now');
    await repo.restore(before.commit, changed);
    expect(readFileSync(join(ws, 'a.py')).equals(crlf)).toBe(true);
    expect(readFileSync(join(ws, 'c.md'), 'utf8')).toBe('# keep me\n');
    expect(existsSync(join(ws, 'new', 'b.txt'))).toBe(false);
    expect(existsSync(join(ws, 'link'))).toBe(false);
    expect(statSync(join(ws, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(ws, 'unrelated.txt'), 'utf8')).toBe('the person wrote this meanwhile');
    // And forward again.
    await repo.snapshot('undone');
    await repo.restore(after.commit, changed);
    expect(readFileSync(join(ws, 'a.py'), 'utf8')).toBe('print("changed")\n');
    expect(readFileSync(join(ws, 'new', 'b.txt'), 'utf8')).toBe('made by a command\n');
    expect(existsSync(join(ws, 'c.md'))).toBe(false);
  });

  it('a tracked folder replaced by a symlink is recorded (not a git error) and undone, with nothing written through the link', async () => {
    const ws = fresh('ws');
    const outside = fresh('outside');
    writeFileSync(join(outside, 'f'), 'victim\n');
    const repo = new ShadowRepo(place(ws, fresh('store')));
    mkdirSync(join(ws, 'd'));
    writeFileSync(join(ws, 'd', 'f'), 'v1\n');
    const before = await repo.snapshot('before');
    rmSync(join(ws, 'd'), { recursive: true });
    symlinkSync(outside, join(ws, 'd'));
    const after = await repo.snapshot('after');
    const changed = await repo.changedBetween(after.commit, before.commit);
    expect(changed.sort()).toEqual(['d', 'd/f']);
    await repo.snapshot('now');
    await repo.restore(before.commit, changed);
    expect(statSync(join(ws, 'd')).isDirectory()).toBe(true);
    expect(readFileSync(join(ws, 'd', 'f'), 'utf8')).toBe('v1\n');
    expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('victim\n');
  });

  it('honours .gitignore, leaves out big files and the user .git, and never touches the user repository', async () => {
    const ws = fresh('ws');
    userGit(ws, 'init', '-q');
    writeFileSync(join(ws, '.gitignore'), 'build/\n*.log\n');
    writeFileSync(join(ws, 'tracked.txt'), 'v1\n');
    userGit(ws, 'add', '-A');
    userGit(ws, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qm', 'init');
    const refs = userGit(ws, 'show-ref');
    const index = readFileSync(join(ws, '.git', 'index'));
    mkdirSync(join(ws, 'build'));
    writeFileSync(join(ws, 'build', 'out.o'), 'x');
    writeFileSync(join(ws, 'debug.log'), 'x');
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(2048));
    const store = fresh('store');
    const repo = new ShadowRepo(place(ws, store), { maxFileBytes: 1024 });
    const first = await repo.snapshot('one');
    expect(first.skipped).toEqual(['big.bin']);
    const files = execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'ls-tree', '-r', '--name-only', first.commit], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files.sort()).toEqual(['.gitignore', 'tracked.txt']);
    // Unchanged: the same commit (content-addressed, nothing new stored).
    expect((await repo.snapshot('two')).commit).toBe(first.commit);
    expect(userGit(ws, 'show-ref')).toBe(refs);
    expect(readFileSync(join(ws, '.git', 'index')).equals(index)).toBe(true);
  });

  it('a file that becomes a folder (and back) is recorded and undone', async () => {
    const ws = fresh('ws');
    const repo = new ShadowRepo(place(ws, fresh('store')));
    writeFileSync(join(ws, 'x'), 'a file\n');
    const before = await repo.snapshot('before');
    rmSync(join(ws, 'x'));
    mkdirSync(join(ws, 'x'));
    writeFileSync(join(ws, 'x', 'inner'), 'now a folder\n');
    const after = await repo.snapshot('after');
    expect((await repo.changedBetween(before.commit, after.commit)).sort()).toEqual(['x', 'x/inner']);
    await repo.snapshot('now');
    await repo.restore(before.commit, ['x', 'x/inner']);
    expect(readFileSync(join(ws, 'x'), 'utf8')).toBe('a file\n');
    await repo.snapshot('undone');
    await repo.restore(after.commit, ['x', 'x/inner']);
    expect(readFileSync(join(ws, 'x', 'inner'), 'utf8')).toBe('now a folder\n');
  });

  it("borrows the workspace repository's packs, trusting their bytes, never their index", async () => {
    const ws = fresh('ws');
    userGit(ws, 'init', '-q');
    for (let i = 0; i < 50; i++) writeFileSync(join(ws, `f${i}.txt`), `file ${i}\n`);
    userGit(ws, 'add', '-A');
    userGit(ws, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qm', 'init');
    userGit(ws, 'gc', '-q');
    // A forged index: if it were used, object names would point at the wrong bytes.
    const packDir = join(ws, '.git', 'objects', 'pack');
    for (const n of readdirSync(packDir).filter((n) => n.endsWith('.idx'))) {
      chmodSync(join(packDir, n), 0o644);
      writeFileSync(join(packDir, n), Buffer.alloc(2048, 7));
    }
    // And a "pack" that is a link to a file elsewhere is not taken (an index beside it, as git would want),
    symlinkSync('/etc/hostname', join(packDir, 'pack-0000000000000000000000000000000000000000.pack'));
    writeFileSync(join(packDir, 'pack-0000000000000000000000000000000000000000.idx'), 'x');
    // nor a pack with no index (one being written), whatever it holds.
    copyFileSync(join(packDir, readdirSync(packDir).find((n) => n.endsWith('.pack') && !n.includes('0000'))!), join(packDir, 'pack-1111111111111111111111111111111111111111.pack'));
    const store = fresh('store');
    const repo = new ShadowRepo(place(ws, store));
    const one = await repo.snapshot('one');
    const shadowPacks = readdirSync(join(store, 'undo.git', 'objects', 'pack'));
    expect(shadowPacks.filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(shadowPacks.every((n) => !n.includes('0000000000'))).toBe(true);
    // The 50 files were found in the borrowed pack: none was written again as a loose object.
    const loose = execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'count-objects'], { encoding: 'utf8' });
    expect(Number(/^(\d+) objects/.exec(loose)?.[1])).toBeLessThan(5);
    writeFileSync(join(ws, 'f7.txt'), 'changed\n');
    await repo.snapshot('two');
    await repo.restore(one.commit, ['f7.txt']);
    expect(readFileSync(join(ws, 'f7.txt'), 'utf8')).toBe('file 7\n');
  });

  it('keeps a verified pack for the next session on the same repository, and forgets it once the repository repacks', async () => {
    const ws = packedRepo(fresh('ws'));
    const cache = fresh('packs');
    const packOf = (store: string) => {
      const dir = join(store, 'undo.git', 'objects', 'pack');
      return join(dir, readdirSync(dir).find((n) => n.endsWith('.pack'))!);
    };
    const s1 = fresh('s1');
    await new ShadowRepo(place(ws, s1), { packCache: cache }).snapshot('one');
    const s2 = fresh('s2');
    await new ShadowRepo(place(ws, s2), { packCache: cache }).snapshot('one');
    // The second session's pack and index are the first one's files (linked from the cache, not verified again).
    expect(statSync(packOf(s2)).ino).toBe(statSync(packOf(s1)).ino);
    expect(statSync(packOf(s2).replace(/\.pack$/, '.idx')).ino).toBe(statSync(packOf(s1).replace(/\.pack$/, '.idx')).ino);
    writeFileSync(join(ws, 'b.txt'), 'b\n');
    userGit(ws, 'add', '-A');
    userGit(ws, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qm', 'two');
    userGit(ws, 'gc', '-q');
    const s3 = fresh('s3');
    await new ShadowRepo(place(ws, s3), { packCache: cache }).snapshot('one');
    const kept = readdirSync(join(cache, readdirSync(cache)[0]!));
    expect(kept.filter((n) => n.endsWith('.pack'))).toHaveLength(1);
    expect(statSync(packOf(s3)).ino).not.toBe(statSync(packOf(s1)).ino);
  });

  it('stops verifying borrowed packs at its time budget, and the snapshot is whole all the same', async () => {
    const ws = packedRepo(fresh('ws'));
    const store = fresh('store');
    const p = place(ws, store);
    mkdirSync(p.gitDir, { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', p.gitDir]);
    expect(await seedObjects(p, join(ws, '.git', 'objects'), undefined, 0)).toBe(0);
    expect(await seedObjects(p, join(ws, '.git', 'objects'), undefined, 10_000)).toBe(1);
  });
});
