import { z } from 'zod';
import { resolve } from 'node:path';
import { defineTool, fail, ok } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { forgivenNote, replaceAll, staleRefusal } from './edit/replace.js';
import { MAX_EDIT_CHARS } from './node-files.js';

/** Several replacements in one file, in order, written once: all of them or none. */
export const multiEditTool = defineTool({
  id: 'multi_edit',
  description:
    'Make several replacements in one file in one call. Edits apply in order, each to the text the one before it left; if any edit fails, the file is left unchanged. ' +
    'Each old_string must occur exactly once unless replace_all is true.',
  schema: z.object({
    path: z.string().min(1).describe('file path, relative to the workspace or absolute'),
    edits: z
      .array(
        z.object({
          old_string: z.string().min(1).describe('exact text to find'),
          new_string: z.string().describe('replacement text'),
          replace_all: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(100),
  }),
  kind: 'edit',
  effect: 'write',
  pathArgs: ['path'],
  title: (a) => `Edit ${a.path} (${a.edits.length} change${a.edits.length === 1 ? '' : 's'})`,
  async run(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    let before: string;
    try {
      before = await ctx.files.readText(abs, ctx.signal);
    } catch (e) {
      return fail(`cannot read ${a.path}: ${(e as Error).message}`);
    }
    if (ctx.ledger?.stale(abs, before)) return fail(`multi_edit: ${staleRefusal(a.path)}`);
    if (before.length > MAX_EDIT_CHARS) return fail(`multi_edit: ${a.path} is larger than multi_edit handles (${MAX_EDIT_CHARS} characters); use bash`);
    const edits = a.edits.map((e) => ({ old: e.old_string, new: e.new_string, all: e.replace_all === true }));
    const r = replaceAll(before, edits, (i) => `multi_edit: edit ${i + 1} of ${edits.length}`);
    if (!r.ok) return fail(`${r.error}. Nothing was changed.`);
    if (r.after.length > MAX_EDIT_CHARS) return fail(`multi_edit: the result would be larger than multi_edit handles (${MAX_EDIT_CHARS} characters); use bash`);
    try {
      await ctx.files.writeText(abs, r.after, ctx.signal);
    } catch (e) {
      return fail(`cannot write ${a.path}: ${(e as Error).message}`);
    }
    ctx.ledger?.saw(abs, r.after);
    const diff = await unifiedDiff(abs, before, r.after);
    ctx.fileEdit({ path: abs, diff, changeKind: 'modify', oldText: before, newText: r.after });
    return ok(`Edited ${a.path}: ${edits.length} edit${edits.length === 1 ? '' : 's'}, ${r.replaced} replacement${r.replaced === 1 ? '' : 's'}${forgivenNote(r.forgiven)}\n${diff}`);
  },
});
