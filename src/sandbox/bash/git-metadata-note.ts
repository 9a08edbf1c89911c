// What a person reads about `.git` before approving a command that writes it (git-metadata.ts
// decides which commands those are). Apart from the classifier, so the door can export it
// without loading the classifier at start-up.
/**
 * - `ordinary`: every simple command is git, each an everyday operation or a read, with no global
 *   option that changes what git runs; approved by a person, it may write `.git` (not its code).
 * - `kept-read-only`: a git command that writes metadata, but not only that (another program in
 *   the line, `git config`, `git remote`, `git submodule`, `-c …`): `.git` stays read-only.
 * - undefined: the command writes no git metadata (nothing to say).
 */
export type GitMetadataNeed = 'ordinary' | 'kept-read-only' | undefined;

/** What the permission prompt adds, under workspace-write, so the person knows before answering. */
export function gitMetadataNote(need: GitMetadataNeed): string | undefined {
  if (need === 'ordinary') {
    return 'If you allow it, git may write this repository\'s metadata (.git) for this command only; its hooks, config, info, modules and worktrees stay read-only.';
  }
  if (need === 'kept-read-only') {
    return 'ferret keeps .git read-only for this command even if you allow it (only a command made of everyday git operations such as commit, branch, stash, tag, checkout, merge or rebase may write it), so its git writes will fail.';
  }
  return undefined;
}
