import { z } from 'zod';
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isInside } from '../protocol/index.js';
import { stateBlocks, type WorkspaceFacts } from '../sandbox/index.js';
import { defineTool, ok } from './define.js';
import { guardRegexps, NON_LINEAR_GLOB } from './regex-guard.js';
import { lazyRequire } from '../util/lazy-require.js';

// Loaded on the first search; required so this chunk keeps V8's cached code (cli/code-cache.ts).
const tinyglobby = lazyRequire<typeof import('tinyglobby')>('tinyglobby');

const MAX = 1000;
/** A crawl that has not finished by then stops (a huge tree); the model can narrow the pattern. */
const GLOB_DEADLINE_MS = 30_000;

export const globTool = defineTool({
  id: 'glob',
  description: 'Find files in the workspace whose path matches a glob pattern such as src/**/*.ts.',
  schema: z.object({ pattern: z.string().min(1).max(4096) }),
  kind: 'search',
  effect: 'read',
  title: (a) => `Find ${a.pattern}`,
  async run(a, ctx) {
    if (a.pattern.startsWith('/') || a.pattern.split('/').includes('..')) {
      return { status: 'failed', output: 'glob: the pattern must stay inside the workspace (no leading / or ..)' };
    }
    // picomatch hands regular-expression syntax through; what cannot run in linear time is refused.
    if (NON_LINEAR_GLOB.test(a.pattern)) {
      return { status: 'failed', output: 'glob: lookaround (?…) and backreferences (\\1) are not glob syntax; use *, **, ?, [abc], {a,b}' };
    }
    await guardRegexps();
    const { glob: find } = tinyglobby();
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(GLOB_DEADLINE_MS)]);
    let files: string[];
    try {
      files = await find(a.pattern, { cwd: ctx.cwd, ignore: ['**/node_modules/**', '**/.git/**'], dot: true, followSymbolicLinks: false, signal });
    } catch (e) {
      if (ctx.signal.aborted) return { status: 'failed', output: 'glob: cancelled' };
      if (signal.aborted) return { status: 'failed', output: `glob: stopped after ${GLOB_DEADLINE_MS / 1000} s; narrow the pattern` };
      return { status: 'failed', output: `glob: ${(e as Error).message}` };
    }
    files = await keepInside(files, ctx.facts, ctx.sandbox === 'danger-full-access');
    files.sort();
    const more = files.length > MAX ? `\n… ${files.length - MAX} more` : '';
    return ok(files.length ? files.slice(0, MAX).join('\n') + more : 'no files match');
  },
});

/**
 * A pattern whose fixed part is a symlinked folder (`link/*`) makes the crawl start inside it:
 * keep only names whose folder really is in the workspace (any folder under danger-full-access),
 * and never ferret's own state.
 */
async function keepInside(files: string[], facts: WorkspaceFacts, anywhere: boolean): Promise<string[]> {
  const ws = facts.workspace;
  const blocked = stateBlocks(facts);
  const dirs = new Map<string, Promise<boolean>>();
  const okDir = (rel: string) => {
    let v = dirs.get(rel);
    if (!v) {
      v = realpath(join(ws, rel)).then(
        (real) => (anywhere || isInside(ws, real)) && !blocked.some((b) => isInside(b, real)),
        () => false,
      );
      dirs.set(rel, v);
    }
    return v;
  };
  const keep = await Promise.all(files.map((f) => okDir(dirname(f))));
  return files.filter((_, i) => keep[i]);
}
