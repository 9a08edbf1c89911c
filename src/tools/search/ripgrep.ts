// grep through ripgrep: one process per search, spawned with an argument array (no shell), its
// JSON output read file by file. Flags that make it agree with the built-in engine:
//   --no-config          a user's RIPGREP_CONFIG_PATH changes nothing
//   --sort path          files in path order, for glob's listing (grep runs ripgrep's parallel
//                        walk unsorted and sorts what it found: search.ts, sorted-hits.ts)
//   --hidden             dot files are searched, as before (ignore rules still apply)
//   --encoding none      no BOM sniffing: bytes as they are
//   --no-mmap            every buffer is checked for a NUL, so a binary file is always seen
//   --max-filesize       the same size limit
// A file ripgrep calls binary is dropped whole; every file it reports is checked again against
// the sandbox (its real path inside the workspace, not ferret's state) before it is shown.
import { spawn } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve as resolvePath } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HitLine } from './results.js';
import type { Scope } from './scope.js';

export interface RipgrepRun {
  rg: string;
  env: NodeJS.ProcessEnv;
  /** The pattern written for the engine used, and whether that is PCRE2. */
  pattern: string;
  pcre2: boolean;
  ignoreCase: boolean;
  before: number;
  after: number;
  maxFileBytes: number;
  /** When set, a reported file whose real path is outside it is dropped. */
  within: string | undefined;
  /** Files only (`--files`, for glob): no pattern. */
  listOnly?: boolean;
  /** Keeps a reported file (its path relative to the root), asked before the sandbox check. */
  accept?: (relToRoot: string) => boolean;
  /** Files reported as found by ripgrep's parallel walk, in no order (the caller sorts). */
  unsorted?: boolean;
  /**
   * Only which files match is wanted: `--files-with-matches`, so ripgrep stops reading a file at
   * its first match and prints its name alone (no JSON to parse). A NUL byte past the first
   * buffer (64 KB) read is then not seen: such a file is listed where a full read would call it
   * binary, as `rg -l` lists it.
   */
  namesOnly?: boolean;
}

export type RgEnd = { kind: 'done' } | { kind: 'stopped' } | { kind: 'deadline' } | { kind: 'cancelled' } | { kind: 'error'; message: string };

const SIMPLE_NAME_GLOB = /^[\w.*?{},-]+$/;
/** Characters a path must have escaped to be read literally as a glob. */
const escapeGlob = (p: string) => p.replace(/[\\*?[\]{}!]/g, '\\$&');

/** The flags both grep and glob pass: what is walked and what is skipped. */
export function scopeArgs(scope: Scope, sorted = true): string[] {
  const args = ['--no-config', ...(sorted ? ['--sort', 'path'] : []), '--hidden', '--no-messages'];
  if (scope.includeIgnored) args.push('--no-ignore');
  for (const g of scope.excludes) args.push('--glob', `!${g}`);
  for (const b of scope.blocked) if (isInside(scope.root, b) && b !== scope.root) args.push('--glob', `!/${escapeGlob(relative(scope.root, b))}`);
  return args;
}

/**
 * Narrowing ripgrep's walk is only a speed-up (keepFile decides): a type (or, without one, plain
 * name globs) goes as ripgrep types, which, unlike --glob, never bring an ignored file back.
 */
function typeArgs(scope: Scope, typeGlobs: (t: string) => readonly string[]): string[] {
  const args: string[] = [];
  if (scope.typeNames.length) {
    scope.typeNames.forEach((t, k) => {
      for (const g of typeGlobs(t)) args.push('--type-add', `ferret${k}:${g}`);
      args.push('--type', `ferret${k}`);
    });
  } else if (scope.includes.length && scope.includes.every((g) => SIMPLE_NAME_GLOB.test(g))) {
    for (const g of scope.includes) args.push('--type-add', `ferretglob:${g}`);
    args.push('--type', 'ferretglob');
  }
  return args;
}

/** isInside for two normalised absolute paths (a real path and a resolved one), without path.relative per file. */
function under(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function decodePath(p: { text?: string; bytes?: string } | undefined): string {
  if (!p) return '';
  return p.text ?? Buffer.from(p.bytes ?? '', 'base64').toString('utf8');
}

/**
 * Runs ripgrep over `scope`; `onFile` gets each reported file (relative to the scope's root) and
 * answers true to stop the search. Ends on completion, stop, `signal` or `deadlineMs`.
 */
export function runRipgrep(
  scope: Scope,
  run: RipgrepRun,
  typeGlobs: (t: string) => readonly string[],
  signal: AbortSignal,
  deadlineMs: number,
  onFile: (relToRoot: string, abs: string, lines: HitLine[]) => Promise<boolean> | boolean,
): Promise<RgEnd> {
  const listing = run.listOnly === true && !scope.rootIsFile;
  const args = scopeArgs(scope, run.unsorted !== true);
  if (run.listOnly) {
    args.push('--files');
  } else {
    args.push(...(run.namesOnly ? ['--files-with-matches', '--null'] : ['--json']), '--encoding', 'none', '--no-mmap', '--max-filesize', String(run.maxFileBytes));
    if (run.ignoreCase) args.push('--ignore-case');
    else args.push('--case-sensitive');
    if (run.pcre2) args.push('--pcre2');
    if (run.before) args.push('--before-context', String(run.before));
    if (run.after) args.push('--after-context', String(run.after));
    args.push('--regexp', run.pattern);
  }
  if (!scope.rootIsFile) args.push(...typeArgs(scope, typeGlobs));
  args.push('--', scope.rootIsFile ? scope.root : '.');
  const cwd = scope.rootIsFile ? scope.base : scope.root;
  // Every file ripgrep reports is a regular file reached through real folders below the root (it
  // follows no link), so only the blocked folders inside the root, or around it, can hold one:
  // the dozens of secret locations elsewhere are not asked about each file.
  const rootReal = realOrUndefined(scope.root) ?? scope.root;
  const blocked = scope.blocked.map((b) => resolvePath(b)).filter((b) => [scope.root, rootReal].some((r) => isInside(r, b) || isInside(b, r)));
  const within = run.within === undefined ? undefined : resolvePath(run.within);
  // A reported file's real path: its folder's (once per folder in this search) and its own name,
  // unless the file is itself a link (an lstat each, where a realpath per file stats every folder on the way).
  const realDirs = new Map<string, string | undefined>();
  const realFile = (abs: string): string | undefined => {
    const dir = dirname(abs);
    if (!realDirs.has(dir)) realDirs.set(dir, realOrUndefined(dir));
    const rd = realDirs.get(dir);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = rd === undefined ? undefined : lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!st) return undefined;
    return st.isSymbolicLink() ? realOrUndefined(abs) : join(rd!, basename(abs));
  };
  return new Promise<RgEnd>((resolve) => {
    const child = spawn(run.rg, args, { cwd, env: run.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let ended = false;
    let stderr = '';
    let pending = '';
    let lines: HitLine[] = [];
    let queue = Promise.resolve(false);
    const finish = (e: RgEnd) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill('SIGKILL');
      resolve(e);
    };
    const onAbort = () => finish({ kind: 'cancelled' });
    const timer = setTimeout(() => finish({ kind: 'deadline' }), deadlineMs);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const report = (rel: string, got: HitLine[]) => {
      const clean = rel.startsWith('./') ? rel.slice(2) : rel;
      if (!scope.rootIsFile && run.accept && !run.accept(clean)) return;
      if (listing) {
        // A name only, nothing read: ripgrep follows no link, so each folder on the way is a real
        // one below the root (the caller proved the root real and inside), and the state
        // folders were left out by --glob. No realpath per file for 60,000 names.
        if (!ended && onFile(clean, `${scope.root}/${clean}`, got) === true) finish({ kind: 'stopped' });
        return;
      }
      const abs = scope.rootIsFile ? scope.root : join(scope.root, clean);
      queue = queue.then(async (stop) => {
        if (stop || ended) return true;
        // The sandbox's word, not ripgrep's: a file is shown only if read_file could read it.
        // Synchronous on purpose: one libc realpath costs microseconds, while an awaited one
        // goes through the thread pool and, in this one-at-a-time chain, a file with matches
        // each waited a hop (4× ripgrep's own time for 300 files with matches).
        const real = realFile(abs);
        if (real === undefined) return false;
        if (within !== undefined && !under(within, real)) return false;
        if (blocked.some((b) => under(b, real))) return false;
        const s = await onFile(scope.rootIsFile ? '' : clean, abs, got);
        if (s) finish({ kind: 'stopped' });
        return s;
      });
    };
    const onLine = (line: string) => {
      if (line === '') return;
      if (run.listOnly || run.namesOnly) {
        report(line, []);
        return;
      }
      let m: { type: string; data: Record<string, unknown> };
      try {
        m = JSON.parse(line) as typeof m;
      } catch {
        return;
      }
      const d = m.data as { path?: { text?: string; bytes?: string }; lines?: { text?: string; bytes?: string }; line_number?: number; binary_offset?: number | null };
      if (m.type === 'begin') lines = [];
      else if (m.type === 'match' || m.type === 'context') {
        let t = decodePath(d.lines);
        if (t.endsWith('\n')) t = t.slice(0, -1);
        if (t.endsWith('\r')) t = t.slice(0, -1);
        lines.push({ n: d.line_number ?? 0, text: t, match: m.type === 'match' });
      } else if (m.type === 'end') {
        const got = lines;
        lines = [];
        if (d.binary_offset === null || d.binary_offset === undefined) {
          if (got.some((l) => l.match)) report(decodePath(d.path), got);
        }
      }
    };
    child.stdout.setEncoding('utf8');
    const sep = run.namesOnly ? '\0' : '\n';
    child.stdout.on('data', (chunk: string) => {
      const got = (pending + chunk).split(sep);
      pending = got.pop()!;
      for (const line of got) {
        onLine(line);
        if (ended) return;
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', (err) => finish({ kind: 'error', message: `ripgrep: ${err.message}` }));
    child.on('close', (code) => {
      if (pending) onLine(pending);
      void queue.then(() => {
        if (code === 2 && stderr.trim()) finish({ kind: 'error', message: stderr.trim().split('\n').slice(0, 6).join('\n') });
        else finish({ kind: 'done' });
      });
    });
  });
}
