import { z } from 'zod';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isInside } from '../protocol/index.js';
import { secretLocations, stateBlocks } from '../sandbox/index.js';
import { defineTool, fail, ok } from './define.js';
import { guardRegexps } from './regex-guard.js';
import { PatternError, readPattern } from './search/pattern.js';
import { makeScope } from './search/scope.js';
import { grepSearch } from './search/search.js';
import { FILE_TYPE_NAMES } from './search/file-types.js';

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 5000;
/** ripgrep's --max-filesize 2M: larger files are skipped by both engines. */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE_CHARS = 500;
const MAX_PATTERN_CHARS = 4096;
const MAX_CONTEXT = 50;
/** A search that has not finished by then stops with what it found (the model can narrow it). */
export const GREP_DEADLINE_MS = 30_000;

const oneOrMany = z.union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).max(50)]);
const lines = z.number().int().min(0).max(MAX_CONTEXT);

export const grepTool = defineTool({
  id: 'grep',
  description:
    'Search file contents with a regular expression (JavaScript syntax; lookaround and backreferences allowed). ' +
    'Skips what .gitignore, .ignore and git excludes ignore unless include_ignored. Prints path:line:text, path-line-text for context lines.',
  schema: z.object({
    pattern: z.string().min(1).max(MAX_PATTERN_CHARS).describe('regular expression, JavaScript syntax'),
    path: z.string().optional().describe('file or folder to search, default the workspace'),
    glob: oneOrMany.optional().describe('only files matching this glob (gitignore style, relative to path: *.ts, src/**/*.tsx); a leading ! excludes instead'),
    type: oneOrMany.optional().describe(`only files of this type: ${FILE_TYPE_NAMES}`),
    ignore_case: z.boolean().optional().describe('case-insensitive match'),
    context: lines.optional().describe('lines shown before and after each match'),
    before: lines.optional().describe('lines shown before each match (overrides context)'),
    after: lines.optional().describe('lines shown after each match (overrides context)'),
    output: z.enum(['content', 'files', 'count']).optional().describe('content: matching lines (default); files: file names only; count: matching lines per file'),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`at most this many matching lines (files in files/count mode); default ${DEFAULT_LIMIT}`),
    offset: z.number().int().min(0).optional().describe('skip this many first, to page on'),
    include_ignored: z.boolean().optional().describe('also search ignored files (and node_modules)'),
  }),
  kind: 'search',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `Search ${a.pattern}${a.path ? ` in ${a.path}` : ''}`,
  async run(a, ctx) {
    const ignoreCase = a.ignore_case === true;
    let pattern;
    try {
      pattern = readPattern(a.pattern, ignoreCase);
    } catch (e) {
      if (e instanceof PatternError) return fail(`grep: bad pattern: ${e.message}`);
      throw e;
    }
    await guardRegexps();
    const root = resolve(ctx.cwd, a.path ?? '.');
    const st = await stat(root).catch(() => undefined);
    if (!st) return fail(`grep: ${a.path ?? '.'} does not exist`);
    if (!st.isDirectory() && !st.isFile()) return fail(`grep: ${a.path ?? '.'} is not a file or a folder`);
    if (st.isFile() && st.size > GREP_MAX_FILE_BYTES) return fail(`grep: ${a.path} is larger than ${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB; read it in pages with read_file`);
    const host = ctx.facts.host;
    // A search in one of the session's extra roots is bounded by that root, as one in cwd is by cwd.
    const realRoot = await realpath(root).catch(() => root);
    const extra = isInside(ctx.cwd, realRoot) ? undefined : ctx.roots?.find((r) => isInside(r, realRoot));
    const facts = extra ? host.workspace(extra) : ctx.facts;
    const scope = makeScope({
      root,
      rootIsFile: st.isFile(),
      base: ctx.cwd,
      globs: typeof a.glob === 'string' ? [a.glob] : a.glob,
      types: typeof a.type === 'string' ? [a.type] : a.type,
      includeIgnored: a.include_ignored,
      // A walk does not enter a secret location (~/.ssh…); naming one as the path searches it (and is asked for).
      blocked: [...stateBlocks(facts), ...secretLocations(host).filter((s) => !isInside(s, root))],
      home: host.home,
      xdgConfigHome: host.xdgConfigHome,
    });
    if (typeof scope === 'string') return fail(`grep: ${scope}`);
    const offset = a.offset ?? 0;
    const limit = a.limit ?? DEFAULT_LIMIT;
    const answer = await grepSearch({
      scope,
      pattern,
      ignoreCase,
      paging: { mode: a.output ?? 'content', offset, limit, before: a.before ?? a.context ?? 0, after: a.after ?? a.context ?? 0, maxLineChars: MAX_LINE_CHARS },
      maxFileBytes: GREP_MAX_FILE_BYTES,
      // A file is read only when its real path stays inside the workspace, as read_file would.
      within: ctx.sandbox !== 'danger-full-access' ? (extra ?? ctx.cwd) : undefined,
      host,
      signal: ctx.signal,
      deadlineMs: GREP_DEADLINE_MS,
    });
    if (!answer.ok) return fail(`grep: ${answer.message}`);
    if (answer.end === 'cancelled') return { status: 'failed', output: 'grep: cancelled' };
    const page = answer.collector.render();
    let note = '';
    if (answer.end === 'deadline') note = `\n… stopped after ${GREP_DEADLINE_MS / 1000} s (a slow pattern or a large tree): narrow the path or simplify the pattern`;
    if (page.more) note += `\n… more results: call again with offset ${offset + page.shown}`;
    if (page.shown === 0) return ok(`${offset > 0 && answer.collector.units > 0 ? `no results past offset ${offset}` : 'no matches'}${note}`);
    return ok(page.text + note);
  },
});
