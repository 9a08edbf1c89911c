import { z } from 'zod';
import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isNotFound } from '../protocol/index.js';
import { defineTool, fail, ok, type ToolContext } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { staleRefusal } from './edit/replace.js';
import { MAX_EDIT_CHARS, removeFile } from './node-files.js';
import { applyHunks, looseNote, type Looseness } from './patch/apply-hunks.js';
import { parsePatch, patchPaths, type PatchOp } from './patch/parse-patch.js';

/** One file's change, worked out in full before anything is written. */
interface Planned {
  op: PatchOp['type'] | 'move';
  shown: string;
  real: string;
  /** For a move: where the file goes. */
  to?: { shown: string; real: string };
  old: string | null;
  now: string | null;
}

const text = (a: { patch?: string | undefined; input?: string | undefined }) => a.patch ?? a.input ?? '';

export const applyPatchTool = defineTool({
  id: 'apply_patch',
  description:
    'Apply a patch that adds, updates, deletes or moves files, all or nothing. Format:\n' +
    '*** Begin Patch\n*** Add File: path\n+line of the new file\n*** Update File: path\n*** Move to: new/path (optional)\n@@ optional line to find first (e.g. a function signature)\n' +
    ' context line\n-removed line\n+added line\n*** Delete File: path\n*** End Patch\n' +
    'Give about three lines of context around each change; paths are relative to the workspace.',
  schema: z
    .object({
      patch: z.string().optional().describe('the whole patch, from *** Begin Patch to *** End Patch'),
      input: z.string().optional().describe('the same as patch (another name models use)'),
    })
    .refine((a) => (a.patch ?? a.input) !== undefined, { message: 'give the patch in `patch` (or `input`)', path: ['patch'] }),
  kind: 'edit',
  effect: 'write',
  paths: (a) => patchPaths(text(a)),
  title: (a) => {
    const files = patchPaths(text(a));
    return files.length === 1 ? `Patch ${files[0]}` : `Patch ${files.length} files`;
  },
  async run(a, ctx) {
    const parsed = parsePatch(text(a));
    if (!parsed.ok) return fail(`apply_patch: ${parsed.error}. Nothing was changed.`);
    const planned: Planned[] = [];
    const loose: { file: string; hunk: number; how: Looseness }[] = [];
    // Two headers naming one file (`a.ts` and `./a.ts`, `dir/../a.ts`, a symlink to it) are
    // caught on the real paths the sandbox checked, not on the patch's text.
    const touched = new Map<string, string>();
    const claim = (shown: string, real: string): string | undefined => {
      const before = touched.get(real);
      if (before !== undefined) return `apply_patch: ${shown} and ${before} are the same file; put all of a file's changes under one header. Nothing was changed.`;
      touched.set(real, shown);
      return undefined;
    };
    const tooLarge = (shown: string, what: string) => `apply_patch: ${shown}${what} is larger than apply_patch handles (${MAX_EDIT_CHARS} characters); use bash. Nothing was changed.`;
    for (const op of parsed.ops) {
      const real = ctx.placed?.get(op.path);
      if (!real) return fail(`apply_patch: ${op.path} was not checked; nothing was changed`);
      const toReal = op.type === 'update' && op.moveTo !== undefined ? ctx.placed?.get(op.moveTo) : undefined;
      if (op.type === 'update' && op.moveTo !== undefined && !toReal) return fail(`apply_patch: ${op.moveTo} was not checked; nothing was changed`);
      const moving = toReal !== undefined && toReal !== real;
      const dup = claim(op.path, real) ?? (moving ? claim((op as { moveTo: string }).moveTo, toReal) : undefined);
      if (dup) return fail(dup);
      const old = await readOrNull(ctx, real);
      if (typeof old === 'object' && old !== null) return fail(`apply_patch: cannot read ${op.path}: ${old.error}. Nothing was changed.`);
      if (old !== null && ctx.ledger?.stale(real, old) && op.type !== 'add') return fail(`apply_patch: ${staleRefusal(op.path)}. Nothing was changed.`);
      if (op.type === 'add') {
        if (old !== null) return fail(`apply_patch: ${op.path} already exists; change it with "*** Update File:" (or delete it first). Nothing was changed.`);
        if (op.content.length > MAX_EDIT_CHARS) return fail(tooLarge(op.path, "'s new content"));
        planned.push({ op: 'add', shown: op.path, real, old: null, now: op.content });
        continue;
      }
      if (old === null) return fail(`apply_patch: ${op.path} does not exist${op.type === 'update' ? '; create it with "*** Add File:"' : ''}. Nothing was changed.`);
      // What a file held before travels whole in its file_edit event, which is how it can be put back:
      // the same cap as every edit, and only text that round-trips (a binary file would come back mangled).
      if (old.length > MAX_EDIT_CHARS) return fail(tooLarge(op.path, ''));
      if (op.type === 'delete' || moving) {
        if (old.includes('\uFFFD')) return fail(`apply_patch: ${op.path} is not UTF-8 text, so its content could not be recorded to put it back; ${op.type === 'delete' ? 'delete' : 'move'} it with bash. Nothing was changed.`);
      }
      // The sandbox checked the file a link points to; deleting or moving "it" must not take that file away and leave the link.
      if ((op.type === 'delete' || moving) && (await isLink(resolve(ctx.cwd, op.path)))) {
        return fail(`apply_patch: ${op.path} is a symbolic link; ${op.type === 'delete' ? 'deleting' : 'moving'} it here would act on the file it points to. Name that file, or change the link with bash. Nothing was changed.`);
      }
      if (op.type === 'delete') {
        planned.push({ op: 'delete', shown: op.path, real, old, now: null });
        continue;
      }
      const applied = op.hunks.length ? applyHunks(old, op.hunks, op.path) : { ok: true as const, text: old, loose: [] };
      if (!applied.ok) return fail(`apply_patch: ${applied.error}\nNothing was changed.`);
      if (applied.text.length > MAX_EDIT_CHARS) return fail(tooLarge(op.path, ' after the patch'));
      loose.push(...applied.loose.map((l) => ({ file: op.path, ...l })));
      if (moving) {
        const there = await readOrNull(ctx, toReal);
        if (there !== null) return fail(`apply_patch: cannot move ${op.path} to ${op.moveTo}: it already exists. Nothing was changed.`);
        planned.push({ op: 'move', shown: op.path, real, to: { shown: op.moveTo!, real: toReal }, old, now: applied.text });
      } else {
        planned.push({ op: 'update', shown: op.path, real, old, now: applied.text });
      }
    }
    const done = await write(ctx, planned);
    if (done !== undefined) return fail(done);
    const lines: string[] = [];
    for (const p of planned) {
      if (p.op === 'delete') {
        ctx.ledger?.forget(p.real);
        ctx.fileEdit({ path: p.real, diff: await unifiedDiff(p.real, p.old ?? '', ''), changeKind: 'delete', oldText: p.old, newText: '' });
        lines.push(`D ${p.shown}`);
      } else if (p.op === 'move') {
        ctx.ledger?.forget(p.real);
        ctx.ledger?.saw(p.to!.real, p.now!);
        ctx.fileEdit({ path: p.to!.real, movedFrom: p.real, diff: await unifiedDiff(p.real, p.old ?? '', p.now!, p.to!.real), changeKind: 'move', oldText: p.old, newText: p.now! });
        lines.push(`R ${p.shown} -> ${p.to!.shown}`);
      } else {
        ctx.ledger?.saw(p.real, p.now!);
        ctx.fileEdit({ path: p.real, diff: await unifiedDiff(p.real, p.old ?? '', p.now!), changeKind: p.op === 'add' ? 'add' : 'modify', oldText: p.old, newText: p.now! });
        lines.push(`${p.op === 'add' ? 'A' : 'M'} ${p.shown}`);
      }
    }
    return ok(`Applied the patch:\n${lines.join('\n')}${looseNote(loose)}`);
  },
});

async function isLink(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => undefined))?.isSymbolicLink() === true;
}

async function readOrNull(ctx: ToolContext, real: string): Promise<string | null | { error: string }> {
  try {
    return await ctx.files.readText(real, ctx.signal);
  } catch (e) {
    return isNotFound(e) ? null : { error: (e as Error).message };
  }
}

/** Writes every planned change; on a failure, puts back what was already changed (best effort) and says what happened. */
async function write(ctx: ToolContext, planned: Planned[]): Promise<string | undefined> {
  const undo: (() => Promise<void>)[] = [];
  // Deletes go through the same guarded file layer as writes (node-files.ts): never through a swapped-in symlink.
  const restore = (real: string, old: string | null) => async () => {
    if (old === null) await removeFile(real).catch(() => undefined);
    else await ctx.files.writeText(real, old).catch(() => undefined);
  };
  for (const p of planned) {
    try {
      if (p.op === 'delete') {
        await removeFile(p.real, ctx.signal);
        undo.push(restore(p.real, p.old));
      } else if (p.op === 'move') {
        await ctx.files.writeText(p.to!.real, p.now!, ctx.signal);
        undo.push(restore(p.to!.real, null));
        await removeFile(p.real, ctx.signal);
        undo.push(restore(p.real, p.old));
      } else {
        await ctx.files.writeText(p.real, p.now!, ctx.signal);
        undo.push(restore(p.real, p.old));
      }
    } catch (e) {
      for (const u of undo.reverse()) await u();
      return `apply_patch: writing ${p.shown} failed (${(e as Error).message}); the files already changed were put back`;
    }
  }
  return undefined;
}
