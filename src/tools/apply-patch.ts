import { unlink } from 'node:fs/promises';
import { z } from 'zod';
import { isNotFound } from '../protocol/index.js';
import { defineTool, fail, ok, type ToolContext } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { staleRefusal } from './edit/replace.js';
import { MAX_EDIT_CHARS } from './node-files.js';
import { applyHunks } from './patch/apply-hunks.js';
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
    let forgiven = false;
    for (const op of parsed.ops) {
      const real = ctx.placed?.get(op.path);
      if (!real) return fail(`apply_patch: ${op.path} was not checked; nothing was changed`);
      const old = await readOrNull(ctx, real);
      if (typeof old === 'object' && old !== null) return fail(`apply_patch: cannot read ${op.path}: ${old.error}. Nothing was changed.`);
      if (old !== null && ctx.ledger?.stale(real, old) && op.type !== 'add') return fail(`apply_patch: ${staleRefusal(op.path)}. Nothing was changed.`);
      if (op.type === 'add') {
        if (old !== null) return fail(`apply_patch: ${op.path} already exists; change it with "*** Update File:" (or delete it first). Nothing was changed.`);
        planned.push({ op: 'add', shown: op.path, real, old: null, now: op.content });
        continue;
      }
      if (old === null) return fail(`apply_patch: ${op.path} does not exist${op.type === 'update' ? '; create it with "*** Add File:"' : ''}. Nothing was changed.`);
      if (op.type === 'delete') {
        planned.push({ op: 'delete', shown: op.path, real, old, now: null });
        continue;
      }
      if (old.length > MAX_EDIT_CHARS) return fail(`apply_patch: ${op.path} is larger than apply_patch handles (${MAX_EDIT_CHARS} characters); use bash. Nothing was changed.`);
      const applied = op.hunks.length ? applyHunks(old, op.hunks, op.path) : { ok: true as const, text: old, forgiven: false };
      if (!applied.ok) return fail(`apply_patch: ${applied.error}\nNothing was changed.`);
      forgiven ||= applied.forgiven;
      if (op.moveTo !== undefined && op.moveTo !== op.path) {
        const toReal = ctx.placed?.get(op.moveTo);
        if (!toReal) return fail(`apply_patch: ${op.moveTo} was not checked; nothing was changed`);
        const there = await readOrNull(ctx, toReal);
        if (there !== null) return fail(`apply_patch: cannot move ${op.path} to ${op.moveTo}: it already exists. Nothing was changed.`);
        planned.push({ op: 'move', shown: op.path, real, to: { shown: op.moveTo, real: toReal }, old, now: applied.text });
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
        ctx.fileEdit({ path: p.real, diff: await unifiedDiff(p.real, p.old ?? '', ''), changeKind: 'delete', oldText: p.old, newText: '' });
        ctx.fileEdit({ path: p.to!.real, diff: await unifiedDiff(p.to!.real, '', p.now!), changeKind: 'add', oldText: null, newText: p.now! });
        lines.push(`R ${p.shown} -> ${p.to!.shown}`);
      } else {
        ctx.ledger?.saw(p.real, p.now!);
        ctx.fileEdit({ path: p.real, diff: await unifiedDiff(p.real, p.old ?? '', p.now!), changeKind: p.op === 'add' ? 'add' : 'modify', oldText: p.old, newText: p.now! });
        lines.push(`${p.op === 'add' ? 'A' : 'M'} ${p.shown}`);
      }
    }
    const note = forgiven ? '\n(some lines matched only when ignoring whitespace differences; the file\'s own lines were kept)' : '';
    return ok(`Applied the patch:\n${lines.join('\n')}${note}`);
  },
});

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
  const restore = (real: string, old: string | null) => async () => {
    if (old === null) await unlink(real).catch(() => undefined);
    else await ctx.files.writeText(real, old).catch(() => undefined);
  };
  for (const p of planned) {
    try {
      if (p.op === 'delete') {
        await unlink(p.real);
        undo.push(restore(p.real, p.old));
      } else if (p.op === 'move') {
        await ctx.files.writeText(p.to!.real, p.now!, ctx.signal);
        undo.push(restore(p.to!.real, null));
        await unlink(p.real);
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
