// git reads executable settings from whatever repository it discovers: a folder committed in the
// workspace that merely looks like a repository (HEAD, config, objects/, refs/) is one, and its
// `core.fsmonitor`, `diff.external`, textconv and filter drivers would run on `git -C folder
// status`. Every command ferret starts (and ferret's own `git status`) gets these settings in its
// environment, in git's command-line scope, which wins over every configuration file. See
// docs/security.md, "git's executable settings", for what each closes and what stays open.

/**
 * Configuration given to every git a command runs (as `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`).
 * Only keys that have a single, safe value are here: per-driver keys (`diff.<driver>.textconv`,
 * `filter.<driver>.clean`) cannot be blanked by name, and an empty `diff.external` makes
 * `git diff` fail, so those are closed by never opening a repository that arrived as files.
 */
export const GIT_NEUTRAL_CONFIG: ReadonlyArray<readonly [string, string]> = [
  // The cause: a committed folder with HEAD, config, objects/ and refs/ is a bare repository to
  // git's discovery. With `explicit`, git opens a bare repository only when named by --git-dir or
  // GIT_DIR (both of which ask), so such a folder's configuration is never read at all.
  ['safe.bareRepository', 'explicit'],
  // Runs on every index refresh (status, diff, ls-files): never needed by a command.
  ['core.fsmonitor', 'false'],
  // Commands have no terminal, so no pager starts; this holds even if one finds a terminal.
  ['core.pager', 'cat'],
  // `git log` would run gpg.program for every signed commit.
  ['log.showSignature', 'false'],
  // A remote URL `ext::<command>` runs that command (a partial clone's lazy fetch on `git log -p`).
  ['protocol.ext.allow', 'never'],
];

/** Plain variables set for every command (a command's own `VAR=x git ...` still wins, and asks when it is not harmless). */
export const GIT_NEUTRAL_VARS: Readonly<Record<string, string>> = {
  GIT_PAGER: 'cat',
  // `git status` takes no optional index lock, so it writes no index and runs no post-index-change hook.
  GIT_OPTIONAL_LOCKS: '0',
  GIT_TERMINAL_PROMPT: '0',
  // git 2.44+: a read in a partial clone does not fetch missing objects (ssh, credential helpers).
  GIT_NO_LAZY_FETCH: '1',
};

/**
 * `env` with the neutral git settings added. Entries already in `env` (a name config.json's
 * env.pass lets through) come first and keep their numbers; ours are appended, and for git's
 * single-valued keys the last one wins.
 */
export function withNeutralGit(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  const given = Number(env['GIT_CONFIG_COUNT']);
  let n = Number.isSafeInteger(given) && given > 0 && given < 1000 ? given : 0;
  for (const [key, value] of GIT_NEUTRAL_CONFIG) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out['GIT_CONFIG_COUNT'] = String(n);
  for (const [name, value] of Object.entries(GIT_NEUTRAL_VARS)) out[name] = value;
  return out;
}
