import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { isInside, realPathOf } from '../sandbox/paths.js';
import { defineTool, fail, ok } from './define.js';

const MAX_MATCHES = 500;
const MAX_FILE_BYTES = 2_000_000;

export const grepTool = defineTool({
  id: 'grep',
  description: 'Search file contents with a regular expression; prints path:line:text.',
  schema: z.object({
    pattern: z.string().min(1).describe('JavaScript regular expression'),
    path: z.string().optional().describe('file or directory to search, default the workspace'),
  }),
  kind: 'search',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `Search ${a.pattern}${a.path ? ` in ${a.path}` : ''}`,
  async run(a, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(a.pattern);
    } catch (e) {
      return fail(`grep: bad pattern: ${(e as Error).message}`);
    }
    const root = resolve(ctx.cwd, a.path ?? '.');
    const { glob: find } = await import('tinyglobby');
    const files = await find('**/*', {
      cwd: root,
      absolute: true,
      ignore: ['**/node_modules/**', '**/.git/**'],
      followSymbolicLinks: false, // a linked folder must not walk the search out of the workspace
      dot: true,
    }).catch(() => [root]);
    const list = files.length ? files.sort() : [root];
    const out: string[] = [];
    for (const file of list) {
      if (ctx.signal.aborted || out.length >= MAX_MATCHES) break;
      // A file symlink is read only when it stays inside the workspace, as read_file would be.
      if (ctx.sandbox !== 'danger-full-access' && !isInside(ctx.cwd, realPathOf(file))) continue;
      const text = await readFile(file, 'utf8').catch(() => '');
      if (!text || text.length > MAX_FILE_BYTES || text.includes('\u0000')) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length && out.length < MAX_MATCHES; i++) {
        if (re.test(lines[i]!)) out.push(`${relative(ctx.cwd, file)}:${i + 1}:${lines[i]}`);
      }
    }
    if (out.length === 0) return ok('no matches');
    return ok(out.join('\n') + (out.length >= MAX_MATCHES ? `\n… stopped at ${MAX_MATCHES} matches` : ''));
  },
});
