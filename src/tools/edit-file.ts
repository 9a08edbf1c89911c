import { z } from 'zod';
import { resolve } from 'node:path';
import { defineTool, fail, ok } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { MAX_EDIT_CHARS } from './node-files.js';

export const editFileTool = defineTool({
  id: 'edit_file',
  description:
    'Replace exact text in a file. `old` must occur exactly once unless replace_all is true.',
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
    if (before.length > MAX_EDIT_CHARS || a.new.length > MAX_EDIT_CHARS) {
      return fail(`edit_file: ${a.path} or the new text is larger than edit_file handles (${MAX_EDIT_CHARS} characters); use bash (sed, a script)`);
    }
    const count = before.split(a.old).length - 1;
    if (count === 0) return fail(`edit_file: the text to replace was not found in ${a.path}`);
    if (count > 1 && !a.replace_all) {
      return fail(`edit_file: the text occurs ${count} times in ${a.path}; give more context or set replace_all`);
    }
    const grows = (a.replace_all ? count : 1) * (a.new.length - a.old.length);
    if (before.length + grows > MAX_EDIT_CHARS) return fail(`edit_file: the result would be larger than edit_file handles (${MAX_EDIT_CHARS} characters); use bash`);
    const after = a.replace_all ? before.split(a.old).join(a.new) : before.replace(a.old, () => a.new);
    try {
      await ctx.files.writeText(abs, after, ctx.signal);
    } catch (e) {
      return fail(`cannot write ${a.path}: ${(e as Error).message}`);
    }
    const diff = await unifiedDiff(abs, before, after);
    ctx.fileEdit({ path: abs, diff, changeKind: 'modify', oldText: before, newText: after });
    return ok(`Edited ${a.path} (${a.replace_all ? count : 1} replacement${count > 1 && a.replace_all ? 's' : ''})\n${diff}`);
  },
});
