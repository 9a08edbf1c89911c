// Which commands may write the workspace repository's metadata when a person approves them
// (issue 27): a command made only of git's everyday operations (commit, branch, stash, tag,
// checkout, merge, rebase…). Under workspace-write such a command, approved by a person, runs with
// `.git` writable except the paths that carry code (confine.ts: hooks, config, info, modules,
// worktrees stay read-only). Anything else keeps `.git` read-only, and the prompt says so.
import { gitGlobals } from './knowledge/command-unwrap.js';
import type { GitMetadataNeed } from './git-metadata-note.js';

/** git subcommands that write refs, the index, objects or logs in the ordinary course of work. */
const ORDINARY = new Set([
  'add', 'am', 'apply', 'branch', 'checkout', 'cherry-pick', 'commit', 'gc', 'merge', 'mv', 'notes',
  'pack-refs', 'rebase', 'reflog', 'reset', 'restore', 'revert', 'rm', 'stash', 'switch', 'tag', 'update-index',
]);

/** git subcommands that only read (the classifier's own list is finer; these never need .git writable). */
const READS = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'shortlog', 'describe', 'grep', 'cat-file', 'rev-list', 'var', 'help', 'version']);

/** Other programs that may stand beside git in such a line: they change nothing. */
const HARMLESS = new Set(['cd', 'true', ':']);

export function gitMetadataNeed(commands: readonly (readonly string[])[], opaque: boolean): GitMetadataNeed {
  let writes = false;
  let other = opaque;
  for (const argv of commands) {
    if (argv[0] !== 'git') {
      if (!HARMLESS.has(argv[0] ?? '')) other = true;
      continue;
    }
    const { sub, risky } = gitGlobals(argv);
    const name = argv[sub];
    if (name !== undefined && READS.has(name) && risky.length === 0) continue;
    writes = true;
    // A global option other than the plain ones (-C, --no-pager…) can change what git runs (`-c`, `--exec-path`).
    if (name === undefined || !ORDINARY.has(name) || risky.length > 0) other = true;
  }
  if (!writes) return undefined;
  return other ? 'kept-read-only' : 'ordinary';
}
