// One search, through whichever engine this server has (engine.ts): grep's (files, matches and
// context, paged by results.ts) and glob's (the files a walk keeps). Both engines see the same
// Scope and answer in the same order, so which one ran never shows in a result.
import { basename, relative } from 'node:path';
import type { HostFacts } from '../../sandbox/index.js';
import { isInside } from '../../protocol/index.js';
import { FILE_TYPES } from './file-types.js';
import { searchEngine, ripgrepEnv } from './engine.js';
import type { ReadPattern } from './pattern.js';
import { Collector, type Paging } from './results.js';
import { runRipgrep } from './ripgrep.js';
import { SortedHits } from './sorted-hits.js';
import { keepFile, type Scope } from './scope.js';
import { walkFiles } from './walk.js';

export type SearchEnd = 'done' | 'deadline' | 'cancelled';

export interface GrepRequest {
  scope: Scope;
  pattern: ReadPattern;
  ignoreCase: boolean;
  paging: Paging;
  maxFileBytes: number;
  /** A file whose real path is outside it is never read (undefined: danger-full-access). */
  within: string | undefined;
  host: HostFacts;
  signal: AbortSignal;
  deadlineMs: number;
}

export type GrepAnswer = { ok: true; collector: Collector; end: SearchEnd; engine: 'ripgrep' | 'builtin' } | { ok: false; message: string };

const typeGlobs = (t: string) => FILE_TYPES[t] ?? [];

/** Which engine runs this search: ripgrep unless it is missing, lacks PCRE2 for a backtracking pattern, or lives in the workspace. */
async function pick(host: HostFacts, needsPcre: boolean, workspace: string): Promise<{ rg: string; pcre2: boolean } | undefined> {
  const p = await searchEngine(host);
  if (p.kind !== 'ripgrep') return undefined;
  if (isInside(workspace, p.path)) return undefined; // never a binary the repository could have planted
  if (needsPcre && !p.pcre2) return undefined;
  return { rg: p.path, pcre2: needsPcre };
}

export async function grepSearch(req: GrepRequest): Promise<GrepAnswer> {
  const { scope, paging } = req;
  const collector = new Collector(paging);
  const relOf = (abs: string) => relative(scope.base, abs) || basename(abs);
  let engine: { rg: string; pcre2: boolean } | undefined;
  try {
    engine = await pick(req.host, req.pattern.backtracking, scope.base);
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const context = paging.mode === 'content';
  if (engine) {
    // ripgrep's parallel walk, its files put in path order here (sorted-hits.ts).
    const sorted = new SortedHits(collector);
    const end = await runRipgrep(
      scope,
      {
        rg: engine.rg,
        env: ripgrepEnv(req.host),
        pattern: engine.pcre2 ? req.pattern.pcre : req.pattern.rust,
        pcre2: engine.pcre2,
        ignoreCase: req.ignoreCase,
        before: context ? paging.before : 0,
        after: context ? paging.after : 0,
        maxFileBytes: req.maxFileBytes,
        within: req.within,
        accept: (rel) => keepFile(scope, rel),
        unsorted: true,
        namesOnly: paging.mode === 'files',
      },
      typeGlobs,
      req.signal,
      req.deadlineMs,
      (rel, abs, lines) => {
        sorted.add(rel, { rel: relOf(abs), lines });
        return false;
      },
    );
    if (end.kind === 'error') return { ok: false, message: end.message };
    sorted.flush();
    return { ok: true, collector, end: end.kind === 'stopped' ? 'done' : end.kind, engine: 'ripgrep' };
  }
  const deadline = AbortSignal.any([req.signal, AbortSignal.timeout(req.deadlineMs)]);
  const started = performance.now();
  const files = scope.rootIsFile ? [{ path: scope.root, rel: '' }] : await walkFiles(scope, deadline);
  if (req.signal.aborted) return { ok: true, collector, end: 'cancelled', engine: 'builtin' };
  if (deadline.aborted) return { ok: true, collector, end: 'deadline', engine: 'builtin' };
  const { grepInWorker } = await import('../grep-worker.js'); // worker_threads loads on the first search
  const end = await grepInWorker(
    {
      pattern: req.pattern.js,
      flags: req.ignoreCase ? 'i' : '',
      files: files.map((f) => f.path),
      rels: files.map((f) => relOf(f.path)),
      ...(req.within !== undefined ? { within: req.within } : {}),
      blocked: scope.blocked,
      maxFileBytes: req.maxFileBytes,
      before: context ? paging.before : 0,
      after: context ? paging.after : 0,
      need: collector.need,
      unit: paging.mode === 'content' ? 'lines' : 'files',
    },
    req.signal,
    Math.max(1, req.deadlineMs - (performance.now() - started)),
    (f) => void collector.add(f),
  );
  if (end.kind === 'error') return { ok: false, message: end.message };
  return { ok: true, collector, end: end.kind, engine: 'builtin' };
}

export interface ListRequest {
  scope: Scope;
  /** Keeps a file (its path relative to the scope's root). */
  accept: (relToRoot: string) => boolean;
  within: string | undefined;
  host: HostFacts;
  signal: AbortSignal;
  deadlineMs: number;
}

/** The files a search of `scope` would read, in path order, that `accept` keeps (absolute paths). */
export async function listFiles(req: ListRequest): Promise<{ ok: true; files: string[]; end: SearchEnd } | { ok: false; message: string }> {
  let engine: { rg: string; pcre2: boolean } | undefined;
  try {
    engine = await pick(req.host, false, req.scope.base);
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const files: string[] = [];
  if (engine) {
    const end = await runRipgrep(
      req.scope,
      { rg: engine.rg, env: ripgrepEnv(req.host), pattern: '', pcre2: false, ignoreCase: false, before: 0, after: 0, maxFileBytes: 0, within: req.within, listOnly: true, accept: req.accept },
      typeGlobs,
      req.signal,
      req.deadlineMs,
      (_rel, abs) => {
        files.push(abs);
        return false;
      },
    );
    if (end.kind === 'error') return { ok: false, message: end.message };
    return { ok: true, files, end: end.kind === 'stopped' ? 'done' : end.kind };
  }
  const deadline = AbortSignal.any([req.signal, AbortSignal.timeout(req.deadlineMs)]);
  const walked = await walkFiles(req.scope, deadline);
  for (const f of walked) if (req.accept(f.rel)) files.push(f.path);
  return { ok: true, files, end: req.signal.aborted ? 'cancelled' : deadline.aborted ? 'deadline' : 'done' };
}
