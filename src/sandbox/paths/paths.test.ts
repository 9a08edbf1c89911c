import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFilePath, realPathOf } from './paths.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-paths-')));
const ws = join(root, 'ws');
const out = join(root, 'outside');
mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
mkdirSync(out);
symlinkSync(join(out, 'not-yet.txt'), join(ws, 'dangling.txt'));
symlinkSync(join(ws, '.git', 'hooks', 'pre-commit'), join(ws, 'hook-link'));
symlinkSync(out, join(ws, 'outdir'));
symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string) => checkFilePath({ facts: host.workspace(ws), path, write: true, mode: 'workspace-write' });

describe('file-tool paths are judged by where they really lead', () => {
  it('follows a dangling symlink to its target', () => {
    expect(realPathOf(join(ws, 'dangling.txt'))).toBe(join(out, 'not-yet.txt'));
    expect(write('dangling.txt')).toMatchObject({ ok: false, real: join(out, 'not-yet.txt') });
  });
  it('refuses a link into .git/hooks that does not exist yet', () => {
    expect(write('hook-link')).toMatchObject({ ok: false, real: join(ws, '.git', 'hooks', 'pre-commit') });
  });
  it('refuses a new file under a linked folder outside, and .. and absolute paths', () => {
    expect(write('outdir/new/file.txt').ok).toBe(false);
    expect(write('../outside/x').ok).toBe(false);
    expect(write(join(out, 'x')).ok).toBe(false);
  });
  it('allows new files and folders inside, and survives a symlink loop', () => {
    expect(write('src/new/file.ts')).toEqual({ ok: true, real: join(ws, 'src', 'new', 'file.ts') });
    expect(() => realPathOf(join(ws, 'loop-a'))).not.toThrow();
  });
  it('under read-only nothing is written; under danger-full-access anything goes', () => {
    expect(checkFilePath({ facts: host.workspace(ws), path: 'a.txt', write: true, mode: 'read-only' }).ok).toBe(false);
    expect(checkFilePath({ facts: host.workspace(ws), path: 'a.txt', write: false, mode: 'read-only' }).ok).toBe(true);
    expect(checkFilePath({ facts: host.workspace(ws), path: 'dangling.txt', write: true, mode: 'danger-full-access' }).ok).toBe(true);
  });
});
