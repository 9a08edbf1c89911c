import { z } from 'zod';
import { stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { isInside } from '../protocol/index.js';
import { stateBlocks } from '../sandbox/index.js';
import { defineTool, fail, ok } from './define.js';
import { guardRegexps } from './regex-guard.js';
import { lazyRequire } from '../util/lazy-require.js';

// Loaded on the first search; required so this chunk keeps V8's cached code (cli/code-cache.ts).
const tinyglobby = lazyRequire<typeof import('tinyglobby')>('tinyglobby');

const MAX_MATCHES = 500;
const MAX_FILE_BYTES = 2_000_000;
const MAX_LINE_CHARS = 500;
const MAX_PATTERN_CHARS = 4096;
/** A search that has not finished by then stops with what it found (the model can narrow it). */
export const GREP_DEADLINE_MS = 30_000;

export const grepTool = defineTool({
  id: 'grep',
  description: 'Search file contents with a regular expression; prints path:line:text.',
  schema: z.object({
    pattern: z.string().min(1).max(MAX_PATTERN_CHARS).describe('JavaScript regular expression'),
    path: z.string().optional().describe('file or directory to search, default the workspace'),
  }),
  kind: 'search',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `Search ${a.pattern}${a.path ? ` in ${a.path}` : ''}`,
  async run(a, ctx) {
    try {
      new RegExp(a.pattern); // syntax only: compiling is linear in the pattern, matching runs in the worker
    } catch (e) {
      return fail(`grep: bad pattern: ${(e as Error).message}`);
    }
    await guardRegexps();
    const root = resolve(ctx.cwd, a.path ?? '.');
    const blocked = stateBlocks(ctx.facts);
    let files: string[];
    const st = await stat(root).catch(() => undefined);
    if (!st) return fail(`grep: ${a.path ?? '.'} does not exist`);
    if (st.isDirectory()) {
      const { glob: find } = tinyglobby();
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(GREP_DEADLINE_MS)]);
      try {
        // Sorting and the state-folder filter happen in the worker: a home-sized tree is a lot of names.
        files = await find('**/*', {
          cwd: root,
          absolute: true,
          ignore: ['**/node_modules/**', '**/.git/**', ...blocked.filter((b) => isInside(root, b)).map((b) => `${relative(root, b)}/**`)],
          followSymbolicLinks: false, // a linked folder must not walk the search out of the workspace
          dot: true,
          signal,
        });
      } catch (e) {
        if (ctx.signal.aborted) return { status: 'failed', output: 'grep: cancelled' };
        if (signal.aborted) return fail(`grep: listing the files under ${a.path ?? '.'} took more than ${GREP_DEADLINE_MS / 1000} s; narrow the path`);
        return fail(`grep: ${(e as Error).message}`);
      }
    } else {
      files = [root];
    }
    if (ctx.signal.aborted) return { status: 'failed', output: 'grep: cancelled' };
    const out: string[] = [];
    const { grepInWorker } = await import('./grep-worker.js'); // worker_threads loads on the first search
    const end = await grepInWorker(
      {
        pattern: a.pattern,
        files,
        cwd: ctx.cwd,
        // Symlinked files are read only when they stay inside the workspace, as read_file would be.
        ...(ctx.sandbox !== 'danger-full-access' ? { within: ctx.cwd } : {}),
        blocked,
        maxMatches: MAX_MATCHES,
        maxFileBytes: MAX_FILE_BYTES,
        maxLineChars: MAX_LINE_CHARS,
      },
      ctx.signal,
      GREP_DEADLINE_MS,
      (lines) => out.push(...lines),
    );
    let note = '';
    if (end.kind === 'error') return fail(`grep: ${end.message}`);
    if (end.kind === 'cancelled') note = '\n… cancelled';
    if (end.kind === 'deadline') note = `\n… stopped after ${GREP_DEADLINE_MS / 1000} s (a slow pattern or a large tree): narrow the path or simplify the pattern`;
    if (out.length >= MAX_MATCHES) note += `\n… stopped at ${MAX_MATCHES} matches`;
    if (out.length === 0) return ok(`no matches${note}`);
    return ok(out.join('\n') + note);
  },
});
