import { z } from 'zod';
import { defineTool, ok } from './define.js';

const MAX = 1000;

export const globTool = defineTool({
  id: 'glob',
  description: 'Find files in the workspace whose path matches a glob pattern such as src/**/*.ts.',
  schema: z.object({ pattern: z.string().min(1) }),
  kind: 'search',
  effect: 'read',
  title: (a) => `Find ${a.pattern}`,
  async run(a, ctx) {
    if (a.pattern.startsWith('/') || a.pattern.split('/').includes('..')) {
      return { status: 'failed', output: 'glob: the pattern must stay inside the workspace (no leading / or ..)' };
    }
    const { glob: find } = await import('tinyglobby');
    const files = await find(a.pattern, { cwd: ctx.cwd, ignore: ['**/node_modules/**', '**/.git/**'], dot: true, followSymbolicLinks: false });
    files.sort();
    const more = files.length > MAX ? `\n… ${files.length - MAX} more` : '';
    return ok(files.length ? files.slice(0, MAX).join('\n') + more : 'no files match');
  },
});
