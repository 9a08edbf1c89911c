import { z } from 'zod';
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineTool, fail, ok } from './define.js';

export const listDirTool = defineTool({
  id: 'list_dir',
  description: 'List the entries of a directory (directories end with /).',
  schema: z.object({ path: z.string().min(1).default('.') }),
  kind: 'read',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `List ${a.path}`,
  async run(a, ctx) {
    try {
      const entries = await readdir(resolve(ctx.cwd, a.path), { withFileTypes: true });
      const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
      return ok(names.length ? names.join('\n') : '(empty)');
    } catch (e) {
      return fail(`cannot list ${a.path}: ${(e as Error).message}`);
    }
  },
});
