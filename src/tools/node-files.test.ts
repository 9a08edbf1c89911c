// Family: a path is checked, then used later. Between the check (the real path the sandbox
// judged) and the open, anything along the path can be swapped for a symlink; a hard link can
// lead out; a FIFO or a device can stand where a file was. Each swap × each operation must fail
// or stay inside, and the outside must be byte-for-byte untouched.
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratchRoot } from '../../test/support/scratch.js';
import { MAX_READ_BYTES, nodeFiles } from './node-files.js';

let root = '';
let ws = '';
let out = '';
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(scratchRoot(), 'files-')));
  ws = join(root, 'ws');
  out = join(root, 'out');
  mkdirSync(join(ws, 'd', 'e'), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(out, 'f.txt'), 'outside\n');
  mkdirSync(join(out, 'e'));
  writeFileSync(join(out, 'e', 'f.txt'), 'outside\n');
  writeFileSync(join(ws, 'd', 'f.txt'), 'inside\n');
  writeFileSync(join(ws, 'd', 'e', 'f.txt'), 'inside\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function outsideUntouched(): void {
  expect(readdirSync(out).sort()).toEqual(['e', 'f.txt']);
  expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
  expect(readdirSync(join(out, 'e'))).toEqual(['f.txt']);
  expect(readFileSync(join(out, 'e', 'f.txt'), 'utf8')).toBe('outside\n');
}

// What another session's command does between the check and the use (paths relative to ws).
const swaps: [string, () => void][] = [
  ['the folder becomes a symlink out', () => { renameSync(join(ws, 'd'), join(ws, 'd.old')); symlinkSync(out, join(ws, 'd')); }],
  ['a deeper folder becomes a symlink out', () => { renameSync(join(ws, 'd', 'e'), join(ws, 'd', 'e.old')); symlinkSync(join(out, 'e'), join(ws, 'd', 'e')); }],
  ['the file becomes a symlink out', () => { rmSync(join(ws, 'd', 'f.txt')); symlinkSync(join(out, 'f.txt'), join(ws, 'd', 'f.txt')); rmSync(join(ws, 'd', 'e', 'f.txt')); symlinkSync(join(out, 'e', 'f.txt'), join(ws, 'd', 'e', 'f.txt')); }],
  ['the folder becomes a relative symlink out', () => { rmSync(join(ws, 'd'), { recursive: true }); symlinkSync('../out', join(ws, 'd')); }],
  ['the folder becomes a symlink to a symlink out', () => { symlinkSync(out, join(ws, 'hop')); rmSync(join(ws, 'd'), { recursive: true }); symlinkSync(join(ws, 'hop'), join(ws, 'd')); }],
];
// Checked paths: an existing file, a deeper one, a new file, a new file in new folders.
const targets = ['d/f.txt', 'd/e/f.txt', 'd/new.txt', 'd/e/n1/n2/new.txt'];

describe('a swap after the check is never followed', () => {
  it.each(swaps.flatMap(([name, swap]) => targets.map((t) => [name, t, swap] as const)))('%s, then write %s', async (_n, rel, swap) => {
    const checked = join(ws, rel);
    swap();
    await nodeFiles.writeText(checked, 'PWNED\n').catch(() => undefined);
    outsideUntouched();
    for (const p of [join(out, 'new.txt'), join(out, 'n1'), join(out, 'e', 'n1')]) expect(() => lstatSync(p)).toThrow();
  });
  it.each(swaps.flatMap(([name, swap]) => targets.slice(0, 2).map((t) => [name, t, swap] as const)))('%s, then read %s', async (_n, rel, swap) => {
    const checked = join(ws, rel);
    swap();
    const got = await nodeFiles.readText(checked).catch((e: Error) => `error: ${e.message}`);
    expect(got).not.toContain('outside');
  });
});

describe('writes replace, never write through', () => {
  it('a hard link to a file outside is replaced, the outside file keeps its bytes', async () => {
    linkSync(join(out, 'f.txt'), join(ws, 'hl.txt'));
    await nodeFiles.writeText(join(ws, 'hl.txt'), 'new\n');
    expect(readFileSync(join(ws, 'hl.txt'), 'utf8')).toBe('new\n');
    outsideUntouched();
  });
  it('keeps the mode of the file it replaces, and leaves no temporary file', async () => {
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    await nodeFiles.writeText(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    expect(statSync(join(ws, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readdirSync(ws).filter((n) => n.includes('ferret'))).toEqual([]);
  });
  it('a cancelled write leaves the old content and no temporary file', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(nodeFiles.writeText(join(ws, 'd', 'f.txt'), 'x', ac.signal)).rejects.toThrow();
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe('inside\n');
    expect(readdirSync(join(ws, 'd')).sort()).toEqual(['e', 'f.txt']);
  });
});

describe('only regular files are read or replaced, at once', () => {
  const specials: [string, () => string][] = [
    ['a FIFO', () => { const p = join(ws, 'fifo'); execFileSync('mkfifo', [p]); return p; }],
    ['a character device', () => '/dev/zero'],
    ['/dev/stdin', () => '/dev/stdin'],
    ['a folder', () => join(ws, 'd')],
    ['a Unix socket path', () => { const p = join(ws, 'sock'); execFileSync('python3', ['-c', `import socket; s=socket.socket(socket.AF_UNIX); s.bind('${p}')`]); return p; }],
  ];
  it.each(specials)('reading %s fails fast', async (_n, make) => {
    const p = make();
    const t = Date.now();
    await expect(nodeFiles.readText(p)).rejects.toThrow();
    expect(Date.now() - t).toBeLessThan(1000);
  });
  it.each(specials.filter(([n]) => !n.includes('stdin') && !n.includes('device')))('writing over %s is refused', async (_n, make) => {
    const p = make();
    await expect(nodeFiles.writeText(p, 'x')).rejects.toThrow(/not a regular file/);
  });
  it('many FIFO reads at once leave the thread pool free for everyone else', async () => {
    const fifos = Array.from({ length: 12 }, (_, i) => join(ws, `q${i}`));
    execFileSync('mkfifo', fifos);
    const reads = fifos.map((f) => nodeFiles.readText(f).catch(() => 'refused'));
    const t = Date.now();
    expect(await nodeFiles.readText(join(ws, 'd', 'f.txt'))).toBe('inside\n');
    expect(Date.now() - t).toBeLessThan(1000);
    expect(await Promise.all(reads)).toEqual(fifos.map(() => 'refused'));
  });
  it('a file larger than a tool reads is refused with a pointer to bash', async () => {
    const big = join(ws, 'big');
    execFileSync('truncate', ['-s', String(MAX_READ_BYTES + 1), big]);
    await expect(nodeFiles.readText(big)).rejects.toThrow(/bash/);
  });
});
