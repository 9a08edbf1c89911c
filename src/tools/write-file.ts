import { z } from 'zod';
import { resolve } from 'node:path';
import { isNotFound } from '../protocol/index.js';
import { defineTool, fail, ok } from './define.js';
import { unifiedDiff } from './diff-text.js';
import { staleRefusal } from './edit/replace.js';
import { MAX_EDIT_CHARS } from './node-files.js';

export const writeFileTool = defineTool({
  id: 'write_file',
  description: 'Create a file or replace its whole content.',
  schema: z.object({
    path: z.string().min(1).describe('file path, relative to the workspace or absolute'),
    content: z.string().describe('the complete new content'),
  }),
  kind: 'edit',
  effect: 'write',
  pathArgs: ['path'],
  title: (a) => `Write ${a.path}`,
  async preview(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    try {
      return { path: abs, oldText: await ctx.files.readText(abs, ctx.signal), newText: a.content };
    } catch (e) {
      return isNotFound(e) ? { path: abs, oldText: null, newText: a.content } : undefined;
    }
  },
  async run(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    if (a.content.length > MAX_EDIT_CHARS) return fail(`cannot write ${a.path}: ${a.content.length} characters is more than write_file takes (${MAX_EDIT_CHARS}); write it in parts with bash`);
    // A new file has no old text; any other read failure stops the write rather than clobber what is there.
    let old: string | null;
    try {
      old = await ctx.files.readText(abs, ctx.signal);
    } catch (e) {
      if (!isNotFound(e)) return fail(`cannot write ${a.path}: reading its current content failed: ${(e as Error).message}`);
      old = null;
    }
    if (old !== null && ctx.ledger?.stale(abs, old)) return fail(`write_file: ${staleRefusal(a.path)}`);
    if (old !== null && old.length > MAX_EDIT_CHARS) return fail(`cannot write ${a.path}: the file is larger than write_file replaces (${MAX_EDIT_CHARS} characters); use bash`);
    try {
      await ctx.files.writeText(abs, a.content, ctx.signal);
    } catch (e) {
      return fail(`cannot write ${a.path}: ${(e as Error).message}`);
    }
    ctx.ledger?.saw(abs, a.content);
    const diff = await unifiedDiff(abs, old ?? '', a.content);
    ctx.fileEdit({ path: abs, diff, changeKind: old === null ? 'add' : 'modify', oldText: old, newText: a.content });
    return ok(`${old === null ? 'Created' : 'Wrote'} ${a.path} (${a.content.length} bytes)\n${diff}`);
  },
});
