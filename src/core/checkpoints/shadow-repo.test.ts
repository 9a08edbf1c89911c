import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../test-kit.js';
import { ShadowRepo } from './shadow-repo.js';

const place = (ws: string, store: string) => ({ gitDir: join(store, 'undo.git'), workTree: ws, path: process.env['PATH'] ?? '/usr/bin:/bin' });
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
    const repo = new ShadowRepo(place(ws, store), [], 1024);
    const first = await repo.snapshot('one');
    expect(first.skipped).toEqual(['big.bin']);
    const files = execFileSync('git', ['--git-dir', join(store, 'undo.git'), 'ls-tree', '-r', '--name-only', first.commit], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files.sort()).toEqual(['.gitignore', 'tracked.txt']);
    // Unchanged: the same commit (content-addressed, nothing new stored).
    expect((await repo.snapshot('two')).commit).toBe(first.commit);
    expect(userGit(ws, 'show-ref')).toBe(refs);
    expect(readFileSync(join(ws, '.git', 'index')).equals(index)).toBe(true);
  });
});
