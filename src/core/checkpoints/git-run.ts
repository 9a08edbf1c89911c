// One git command against a session's shadow repository, started through the command helper
// (tools/spawner.ts) so the fork never holds the server's event loop. The environment is built
// from nothing: the shadow repository and the workspace are named explicitly, no system or
// global configuration is read, and the neutral settings every command gets close the rest.
import { withNeutralGit } from '../../sandbox/index.js';

export interface ShadowPlace {
  /** The private git directory (under the session's state, never the workspace's `.git`). */
  gitDir: string;
  /** The workspace whose files are recorded. */
  workTree: string;
  /** Where git is looked up. */
  path: string;
}

export class GitFailed extends Error {}

/** The environment of every shadow git: nothing of the server's own, nothing a repository's config can turn into a program. */
export function shadowEnv(place: ShadowPlace): Record<string, string> {
  return withNeutralGit({
    PATH: place.path,
    HOME: place.gitDir,
    LC_ALL: 'C',
    GIT_DIR: place.gitDir,
    GIT_WORK_TREE: place.workTree,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // A file named `*.py` or `[a].txt` is that file, never a pattern.
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'ferret',
    GIT_AUTHOR_EMAIL: 'ferret@localhost',
    GIT_COMMITTER_NAME: 'ferret',
    GIT_COMMITTER_EMAIL: 'ferret@localhost',
    GIT_AUTHOR_DATE: '@0 +0000',
    GIT_COMMITTER_DATE: '@0 +0000',
  });
}

/** Output kept from one command: ls-files of a large tree's changes fits. */
const KEEP_CHARS = 64 * 1024 * 1024;

/** Runs git with `args`; its stdout, or GitFailed with its stderr. */
export interface GitOptions {
  /** Exit codes that are not a failure (default: 0). */
  ok?: readonly number[];
  /** A file given to git as its stdin (a NUL-separated path list). */
  stdinFile?: string;
  /** Killed after this long (and failing like any other error). */
  timeoutMs?: number;
}

export async function git(place: ShadowPlace, args: string[], opts: GitOptions = {}): Promise<string> {
  const { ok: okCodes = [0], stdinFile, timeoutMs } = opts;
  const env = shadowEnv(place);
  // `git init` takes the folder as its argument and refuses a work tree in its environment.
  if (args[0] === 'init') {
    delete env['GIT_WORK_TREE'];
    delete env['GIT_DIR'];
  }
  // Loaded with the tools, not at start-up: an editor's initialize never needs it.
  const { spawnCommand } = await import('../../tools/spawner.js');
  const child = spawnCommand('git', args, { cwd: place.workTree, env, keepChars: KEEP_CHARS, stdinFile });
  let out = '';
  let err = '';
  child.stdout.on('data', (s) => (out += s));
  child.stderr.on('data', (s) => (err += s));
  // A step with a time budget is killed at its end (and fails like any other).
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.killTree(), timeoutMs);
  let r: Awaited<typeof child>;
  try {
    r = await child;
  } finally {
    clearTimeout(timer);
  }
  if (r.exitCode === undefined || !okCodes.includes(r.exitCode)) {
    throw new GitFailed(`git ${args[0] ?? ''} failed (${r.message ?? `exit ${r.exitCode ?? r.signal ?? '?'}`}): ${err.trim().slice(0, 500)}`);
  }
  return out;
}

/** NUL-separated output as a list. */
export const zList = (out: string): string[] => out.split('\0').filter((s) => s.length > 0);
