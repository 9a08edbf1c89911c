import { z } from 'zod';
import { resolve } from 'node:path';
import { defineTool, fail, ok } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { forgivenNote, replaceAll, staleRefusal } from './edit/replace.js';
import { MAX_EDIT_CHARS } from './node-files.js';

export const editFileTool = defineTool({
  id: 'edit_file',
  description:
    'Replace text in a file. `old` must occur exactly once unless replace_all is true. Copy `old` from what read_file showed (without the line numbers); a difference only in indentation or trailing spaces is tolerated when exactly one place fits.',
  schema: z.object({
    path: z.string().min(1),
    old: z.string().min(1).describe('exact text to find'),
    new: z.string().describe('replacement text'),
    replace_all: z.boolean().optional(),
  }),
  kind: 'edit',
  effect: 'write',
  pathArgs: ['path'],
  title: (a) => `Edit ${a.path}`,
  async run(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    let before: string;
    try {
      before = await ctx.files.readText(abs, ctx.signal);
    } catch (e) {
      return fail(`cannot read ${a.path}: ${(e as Error).message}`);
    }
    if (ctx.ledger?.stale(abs, before)) return fail(`edit_file: ${staleRefusal(a.path)}`);
    if (before.length > MAX_EDIT_CHARS || a.new.length > MAX_EDIT_CHARS) {
      return fail(`edit_file: ${a.path} or the new text is larger than edit_file handles (${MAX_EDIT_CHARS} characters); use bash (sed, a script)`);
    }
    const r = replaceAll(before, [{ old: a.old, new: a.new, all: a.replace_all === true }], () => `edit_file ${a.path}`);
    if (!r.ok) return fail(r.error.replace('give more surrounding lines to pick one, or replace every one', 'give more context or set replace_all'));
    if (r.after.length > MAX_EDIT_CHARS) return fail(`edit_file: the result would be larger than edit_file handles (${MAX_EDIT_CHARS} characters); use bash`);
    try {
      await ctx.files.writeText(abs, r.after, ctx.signal);
    } catch (e) {
      return fail(`cannot write ${a.path}: ${(e as Error).message}`);
    }
    ctx.ledger?.saw(abs, r.after);
    const diff = await unifiedDiff(abs, before, r.after);
    ctx.fileEdit({ path: abs, diff, changeKind: 'modify', oldText: before, newText: r.after });
    return ok(`Edited ${a.path} (${r.replaced} replacement${r.replaced > 1 ? 's' : ''})${forgivenNote(r.forgiven)}\n${diff}`);
  },
});
