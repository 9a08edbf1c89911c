// apply_patch's own guarantees, called directly so a test can act between its steps: deletes and
// moves go through the guarded file layer, one file named two ways is one file, and what a
// delete records is enough to put the file back.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratchRoot } from '../../test/support/scratch.js';
import { applyPatchTool } from './apply-patch.js';
import type { FileAccess, ToolContext } from './define.js';
import { MAX_EDIT_CHARS, nodeFiles } from './node-files.js';

let root = '';
let ws = '';
let out = '';
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(scratchRoot(), 'patch-')));
  ws = join(root, 'ws');
  out = join(root, 'out');
  mkdirSync(join(ws, 'd'), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(out, 'f.txt'), 'outside\n');
  writeFileSync(join(ws, 'd', 'f.txt'), 'inside\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Edit = Parameters<ToolContext['fileEdit']>[0];

/** Runs a patch as the runner would: `placed` maps each path as written to its checked real path. */
async function run(patch: string, placed: Record<string, string>, files: FileAccess = nodeFiles) {
  const edits: Edit[] = [];
  const ctx = {
    cwd: ws,
    callId: 'c1',
    signal: new AbortController().signal,
    sandbox: 'workspace-write',
    files,
    env: {},
    progress: () => undefined,
    fileEdit: (e: Edit) => edits.push(e),
    fileOpen: () => undefined,
    violation: () => undefined,
    placed: new Map(Object.entries(placed).map(([k, v]) => [k, join(ws, v)])),
  } as unknown as ToolContext;
  const r = await applyPatchTool.run({ patch }, ctx);
  return { ...r, edits };
}

const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

/** Reads through the guarded layer, then lets another process swap the folder for a symlink out (between the read and the removal). */
const swapAfterRead: FileAccess = {
  readText: async (p, signal) => {
    const text = await nodeFiles.readText(p, signal);
    if (existsSync(join(ws, 'd.old')) === false && p.startsWith(join(ws, 'd'))) {
      renameSync(join(ws, 'd'), join(ws, 'd.old'));
      symlinkSync(out, join(ws, 'd'));
    }
    return text;
  },
  writeText: nodeFiles.writeText,
};

describe('apply_patch deletes and moves through the guarded file layer', () => {
  it('a folder swapped for a symlink after the read is not followed by a delete', async () => {
    const r = await run(P('*** Delete File: d/f.txt'), { 'd/f.txt': 'd/f.txt' }, swapAfterRead);
    expect(r.status).toBe('failed');
    expect(r.output).toMatch(/writing d\/f.txt failed .*changed while ferret was using it/);
    expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
    expect(readFileSync(join(ws, 'd.old', 'f.txt'), 'utf8')).toBe('inside\n');
    expect(r.edits).toEqual([]);
  });

  it('nor by a move, which leaves no copy behind', async () => {
    const r = await run(P('*** Update File: d/f.txt\n*** Move to: g.txt'), { 'd/f.txt': 'd/f.txt', 'g.txt': 'g.txt' }, swapAfterRead);
    expect(r.status).toBe('failed');
    expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
    expect(readdirSync(ws).sort()).toEqual(['d', 'd.old']);
  });

  it('a symlink standing where the file was is refused, and its target kept', async () => {
    rmSync(join(ws, 'd', 'f.txt'));
    symlinkSync(join(out, 'f.txt'), join(ws, 'd', 'f.txt'));
    // The checked real path is the file in the workspace (as it was when judged).
    const r = await run(P('*** Delete File: d/f.txt'), { 'd/f.txt': 'd/f.txt' });
    expect(r.status).toBe('failed');
    expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
  });

  it('a link inside the workspace is neither deleted nor moved through: its target stays, and so does the link', async () => {
    symlinkSync('d/f.txt', join(ws, 'link.txt'));
    // The sandbox places a path at its real path: the link's target.
    const del = await run(P('*** Delete File: link.txt'), { 'link.txt': 'd/f.txt' });
    expect(del).toMatchObject({ status: 'failed', output: expect.stringMatching(/^apply_patch: link\.txt is a symbolic link; deleting it here would act on the file it points to/) });
    const mv = await run(P('*** Update File: link.txt\n*** Move to: g.txt'), { 'link.txt': 'd/f.txt', 'g.txt': 'g.txt' });
    expect(mv).toMatchObject({ status: 'failed', output: expect.stringMatching(/link\.txt is a symbolic link; moving it/) });
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(ws, 'link.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(ws, 'g.txt'))).toBe(false);
    // Updating through the link in place still works: it edits the file it points to.
    const up = await run(P('*** Update File: link.txt\n@@\n-inside\n+changed'), { 'link.txt': 'd/f.txt' });
    expect(up.status).toBe('completed');
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe('changed\n');
  });

  it('a move is one file_edit of kind move, from the old path to the new', async () => {
    const r = await run(P('*** Update File: d/f.txt\n*** Move to: g.txt\n@@\n-inside\n+moved'), { 'd/f.txt': 'd/f.txt', 'g.txt': 'g.txt' });
    expect(r).toMatchObject({ status: 'completed', output: 'Applied the patch:\nR d/f.txt -> g.txt' });
    expect(existsSync(join(ws, 'd', 'f.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'g.txt'), 'utf8')).toBe('moved\n');
    expect(r.edits.map((e) => ({ ...e, diff: e.diff.split('\n').slice(0, 2) }))).toEqual([
      { path: join(ws, 'g.txt'), movedFrom: join(ws, 'd', 'f.txt'), changeKind: 'move', oldText: 'inside\n', newText: 'moved\n', diff: [`--- ${join(ws, 'd', 'f.txt')}`, `+++ ${join(ws, 'g.txt')}`] },
    ]);
  });
});

describe('one file named two ways is one file', () => {
  it.each([
    ['./d/f.txt', 'd/f.txt'],
    ['d/../d/f.txt', 'd/f.txt'],
  ])('%s and d/f.txt in one patch are refused, and nothing changes', async (other) => {
    const patch = P(`*** Update File: d/f.txt\n@@\n-inside\n+changed\n*** Delete File: ${other}`);
    const r = await run(patch, { 'd/f.txt': 'd/f.txt', [other]: 'd/f.txt' });
    expect(r.status).toBe('failed');
    expect(r.output).toBe(`apply_patch: ${other} and d/f.txt are the same file; put all of a file's changes under one header. Nothing was changed.`);
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe('inside\n');
  });
});

describe('what a delete records is enough to put the file back', () => {
  it('the file_edit of a delete holds the whole prior content', async () => {
    const body = 'line\n'.repeat(5000);
    writeFileSync(join(ws, 'big.txt'), body);
    const r = await run(P('*** Delete File: big.txt'), { 'big.txt': 'big.txt' });
    expect(r.status).toBe('completed');
    expect(r.edits).toHaveLength(1);
    expect(r.edits[0]).toMatchObject({ changeKind: 'delete', oldText: body, newText: '' });
  });

  it('a file larger than the edit tools take is not deleted (its content could not be recorded)', async () => {
    writeFileSync(join(ws, 'huge.txt'), 'x'.repeat(MAX_EDIT_CHARS + 1));
    const r = await run(P('*** Delete File: huge.txt'), { 'huge.txt': 'huge.txt' });
    expect(r.status).toBe('failed');
    expect(r.output).toMatch(/huge.txt is larger than apply_patch handles .* use bash/);
    expect(existsSync(join(ws, 'huge.txt'))).toBe(true);
  });

  it('a file that is not UTF-8 text is not deleted or moved (it would come back mangled)', async () => {
    writeFileSync(join(ws, 'img.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    for (const patch of [P('*** Delete File: img.bin'), P('*** Update File: img.bin\n*** Move to: img2.bin')]) {
      const r = await run(patch, { 'img.bin': 'img.bin', 'img2.bin': 'img2.bin' });
      expect(r.status).toBe('failed');
      expect(r.output).toMatch(/img.bin is not UTF-8 text/);
      expect(readFileSync(join(ws, 'img.bin'))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    }
  });
});
