import { z } from 'zod';
import { resolve } from 'node:path';
import { defineTool, ok } from './define.js';

export const openFileTool = defineTool({
  id: 'open_file',
  description: "Ask the user's editor to reveal a file, optionally at a line.",
  schema: z.object({ path: z.string().min(1), line: z.number().int().min(1).optional() }),
  kind: 'read',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `Open ${a.path}${a.line ? `:${a.line}` : ''}`,
  async run(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    ctx.fileOpen(abs, a.line);
    return ok(`Asked the editor to open ${abs}${a.line ? ` at line ${a.line}` : ''}`);
  },
});
