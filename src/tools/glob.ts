import { z } from 'zod';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from '../protocol/index.js';
import { stateBlocks } from '../sandbox/index.js';
import { defineTool, ok } from './define.js';
import { guardRegexps, NON_LINEAR_GLOB } from './regex-guard.js';
import { lazyRequire } from '../util/lazy-require.js';
import { makeScope } from './search/scope.js';
import { listFiles } from './search/search.js';
import { folderSkipped } from './search/walk.js';

// Loaded on the first search, not at start-up.
const minimatch = lazyRequire<typeof import('minimatch')>('minimatch');

const MAX = 1000;
/** A crawl that has not finished by then stops (a huge tree); the model can narrow the pattern. */
const GLOB_DEADLINE_MS = 30_000;
/** Glob syntax: a segment with one of these is not a fixed folder name. */
const MAGIC = /[*?[\]{}()!+@\\]/;

export const globTool = defineTool({
  id: 'glob',
  description: 'Find files in the workspace whose path matches a glob pattern such as src/**/*.ts. Skips ignored files (.gitignore, .ignore, git excludes) unless include_ignored.',
  schema: z.object({
    pattern: z.string().min(1).max(4096),
    include_ignored: z.boolean().optional().describe('also list ignored files (and node_modules)'),
  }),
  kind: 'search',
  effect: 'read',
  title: (a) => `Find ${a.pattern}`,
  async run(a, ctx) {
    const pattern = a.pattern.replace(/^(\.\/)+/, '');
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
      return { status: 'failed', output: 'glob: the pattern must stay inside the workspace (no leading / or ..)' };
    }
    // minimatch hands regular-expression syntax through; what cannot run in linear time is refused.
    if (NON_LINEAR_GLOB.test(pattern)) {
      return { status: 'failed', output: 'glob: lookaround (?…) and backreferences (\\1) are not glob syntax; use *, **, ?, [abc], {a,b}' };
    }
    await guardRegexps();
    // The walk starts at the pattern's fixed folders (src/ for src/**/*.ts), once they are proved
    // to be a real folder of the workspace (a linked folder pointing outside lists nothing).
    const parts = pattern.split('/');
    const fixed: string[] = [];
    for (const p of parts.slice(0, -1)) {
      if (MAGIC.test(p) || p === '' || p === '.') break;
      fixed.push(p);
    }
    const ws = ctx.cwd;
    const anywhere = ctx.sandbox === 'danger-full-access';
    const blocked = stateBlocks(ctx.facts);
    const root = join(ws, ...fixed);
    const real = await realpath(root).catch(() => undefined);
    const st = real ? await stat(real).catch(() => undefined) : undefined;
    if (!real || !st?.isDirectory() || (!anywhere && !isInside(ws, real)) || blocked.some((b) => isInside(b, real)) || real !== root) {
      return ok('no files match');
    }
    const host = ctx.facts.host;
    const scope = makeScope({ root, rootIsFile: false, base: ws, includeIgnored: a.include_ignored, blocked, home: host.home, xdgConfigHome: host.xdgConfigHome });
    if (typeof scope === 'string') return { status: 'failed', output: `glob: ${scope}` };
    if (await folderSkipped(scope, ws, fixed)) return ok('no files match');
    // One compiled pattern for every name (minimatch() would compile it again for each file).
    const matcher = new (minimatch().Minimatch)(pattern, { dot: true });
    // Its regular expression answers as match() does, at a tenth of the cost per name.
    const re = matcher.makeRe();
    const prefix = fixed.length ? `${fixed.join('/')}/` : '';
    const listed = await listFiles({
      scope,
      accept: re ? (rel) => re.test(prefix + rel) : (rel) => matcher.match(prefix + rel),
      within: anywhere ? undefined : ws,
      host,
      signal: ctx.signal,
      deadlineMs: GLOB_DEADLINE_MS,
    });
    if (!listed.ok) return { status: 'failed', output: `glob: ${listed.message}` };
    if (listed.end === 'cancelled') return { status: 'failed', output: 'glob: cancelled' };
    // Every listed path starts with the root (join(ws, …fixed)), itself inside ws: a slice, not 60,000 relative() calls.
    const cut = ws.endsWith('/') ? ws.length : ws.length + 1;
    const files = listed.files.map((f) => f.slice(cut));
    const more = files.length > MAX ? `\n… ${files.length - MAX} more` : '';
    // At the deadline, what was found so far is the answer, with a note that it is partial.
    const late = listed.end === 'deadline' ? `\n… stopped after ${GLOB_DEADLINE_MS / 1000} s (a large tree): the list is partial; narrow the pattern or the path` : '';
    if (!files.length && late) return ok(`no files found before the deadline${late}`);
    return ok((files.length ? files.slice(0, MAX).join('\n') + more : 'no files match') + late);
  },
});
