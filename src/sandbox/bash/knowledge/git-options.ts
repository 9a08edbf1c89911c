// Option tables of the git subcommands ferret runs without asking (git 2.39; long names from
// `git <cmd> --git-completion-helper-all`). Options marked `!` write files or run programs
// (`--output`, `--ext-diff`, `--textconv`, `grep -O`, `--show-signature`, which runs
// gpg.program). Builtins using parse-options accept unique abbreviations (`git grep --open`
// is `--open-files-in-pager`), so their tables resolve prefixes; the revision and diff options
// of log/show/diff take no abbreviations (verified: `git log --outp=x` is refused).
import { spec } from './option-specs.js';
import type { OptionSpec } from './option-specs.js';

const PLAIN = { prefixes: false, cluster: false, strictValues: true, numeric: true } as const;
const PARSE_OPTIONS = { prefixes: true, cluster: true, strictValues: true } as const;

/** Revision walking and commit formatting (log, show, rev-list, whatchanged, reflog, stash list). */
const REV_LONG = `all not first-parent exclude-first-parent-only merges no-merges no-min-parents no-max-parents reverse topo-order
  date-order author-date-order all-match invert-grep regexp-ignore-case extended-regexp fixed-strings perl-regexp basic-regexp
  remove-empty oneline abbrev-commit no-abbrev-commit no-abbrev no-expand-tabs no-notes standard-notes no-standard-notes
  relative-date parents children left-right graph no-graph cherry-mark cherry-pick cherry left-only right-only boundary
  simplify-by-decoration full-history dense sparse simplify-merges show-pulls no-decorate clear-decorations source no-source
  use-mailmap mailmap no-mailmap no-use-mailmap full-diff log-size follow no-follow walk-reflogs stdin quiet no-quiet do-walk
  in-commit-order bisect single-worktree reflog alternate-refs ignore-missing count objects objects-edge unpacked timestamp
  header no-commit-id root merge no-diff-merges cc dd remerge-diff combined-all-paths no-show-signature
  max-count= skip= since= after= until= before= max-age= min-age= author= committer= grep= grep-reflog= min-parents=
  max-parents= encoding= glob= exclude= date= diff-merges= decorate-refs= decorate-refs-exclude= format=
  pretty[=] abbrev[=] decorate[=] expand-tabs[=] notes[=] show-notes[=] branches[=] tags[=] remotes[=] no-walk[=]
  show-linear-break[=] ancestry-path[=] !show-signature`;
/** Diff output options (diff, log -p, show, stash show). */
const DIFF_LONG = `name-only name-status numstat shortstat summary patch no-patch raw patch-with-raw patch-with-stat no-color full-index
  no-full-index binary find-copies-harder no-find-copies-harder no-renames rename-empty no-rename-empty irreversible-delete
  pickaxe-all pickaxe-regex no-relative text no-text ignore-cr-at-eol ignore-space-at-eol ignore-space-change ignore-all-space
  ignore-blank-lines no-ignore-matching-lines function-context no-function-context exit-code no-exit-code no-ext-diff
  no-textconv no-prefix default-prefix ita-invisible-in-index ita-visible-in-index minimal no-minimal patience histogram
  compact-summary no-compact-summary cumulative check indent-heuristic no-indent-heuristic no-color-moved no-color-moved-ws
  no-abbrev
  diff-filter= word-diff-regex= color-moved-ws= ws-error-highlight= src-prefix= dst-prefix= line-prefix= inter-hunk-context=
  output-indicator-new= output-indicator-old= output-indicator-context= anchored= diff-algorithm= ignore-matching-lines=
  find-object= rotate-to= skip-to= stat-width= stat-name-width= stat-graph-width= stat-count=
  stat[=] dirstat[=] dirstat-by-file[=] relative[=] color[=] word-diff[=] color-words[=] color-moved[=] ignore-submodules[=]
  submodule[=] find-renames[=] find-copies[=] break-rewrites[=] unified[=] abbrev[=]
  !output= !ext-diff !textconv`;
const REV_SHORT = 'pusz R a b w W D t r m c i E F P g q n: S: G: O: l: L: I: U:: M:: C:: B:: X::';

export const REV = spec(REV_SHORT, `${REV_LONG} ${DIFF_LONG}`, PLAIN);
export const DIFF = spec(REV_SHORT, `${DIFF_LONG} cached staged no-index merge-base base ours theirs quiet follow`, PLAIN);
/** shortlog's own options go through parse-options (`-sn` clusters; its -n is --numbered, -w is --wrap). */
export const SHORTLOG = spec('nsceiEFPg w:: S: G: L:', `${REV_LONG} ${DIFF_LONG} numbered summary email committer group= wrap[=]`, { ...PLAIN, cluster: true });
export const BLAME = spec('bcflnpstweh S: L: M:: C::', `root show-stats reverse first-parent porcelain line-porcelain incremental
  encoding= contents= date= progress no-progress ignore-rev= ignore-revs-file= color-lines color-by-age score-debug show-name
  show-number show-email abbrev[=] minimal since= no-abbrev`, PLAIN);

export const GREP = spec('aiIwvhHEGFPnlLcoqzpWr !O:: e: f: A: B: C: m:', `cached no-index untracked exclude-standard
  recurse-submodules invert-match ignore-case word-regexp text recursive extended-regexp basic-regexp fixed-strings perl-regexp
  line-number column full-name files-with-matches name-only files-without-match null only-matching count color[=] break heading
  show-function function-context and or not quiet all-match index ext-grep no-cached no-untracked no-exclude-standard
  no-recurse-submodules no-invert-match no-ignore-case no-word-regexp no-text no-textconv no-recursive no-extended-regexp
  no-basic-regexp no-fixed-strings no-perl-regexp no-line-number no-column no-full-name no-files-with-matches no-name-only
  no-files-without-match no-null no-only-matching no-count no-color no-break no-heading no-context no-before-context
  no-after-context no-threads no-show-function no-function-context no-or no-quiet no-all-match no-open-files-in-pager
  no-ext-grep no-max-count max-depth= context= before-context= after-context= threads= max-count=
  !textconv !open-files-in-pager[=]`, { ...PARSE_OPTIONS, numeric: true });

export const STATUS = spec('sbvz u:: M::', `verbose short branch show-stash ahead-behind long null no-renames renames no-verbose no-short
  no-branch no-show-stash no-ahead-behind no-porcelain no-long no-null no-untracked-files no-ignored no-ignore-submodules
  no-column porcelain[=] untracked-files[=] ignored[=] ignore-submodules[=] column[=] find-renames[=]`, PARSE_OPTIONS);

export const BRANCH = spec('arlvqi !d !D !m !M !c !C !f !t:: !u:', `verbose quiet remotes all list show-current ignore-case
  recurse-submodules no-verbose no-quiet no-color no-remotes no-abbrev no-all no-list no-show-current no-column no-sort
  no-points-at no-ignore-case no-format no-track no-recurse-submodules omit-empty contains= no-contains= with= without= merged=
  no-merged= points-at= sort= format= color[=] abbrev[=] column[=]
  !track[=] !set-upstream !set-upstream-to= !unset-upstream !delete !move !copy !create-reflog !edit-description !force
  no-set-upstream no-set-upstream-to no-unset-upstream no-delete no-move no-copy no-create-reflog no-edit-description no-force`,
PARSE_OPTIONS);

export const TAG = spec('li n:: !a !s !u: !f !d !v !m: !F: !e', `list ignore-case column[=] no-column contains= no-contains= with=
  without= merged= no-merged= sort= no-sort points-at= no-points-at format= no-format color[=] no-color no-ignore-case omit-empty
  no-annotate no-sign no-edit no-file no-cleanup no-local-user no-force no-create-reflog
  !delete !verify !annotate !message= !file= !edit !sign !cleanup= !local-user= !force !create-reflog`, PARSE_OPTIONS);

export const CONFIG = spec('lz f: b: !e', `global system local worktree get get-all get-regexp get-urlmatch list fixed-value get-color
  get-colorbool type= bool int bool-or-int bool-or-str path expiry-date null name-only includes no-includes show-origin
  show-scope default= file= blob= no-global no-system no-local no-worktree no-file no-blob no-type no-null no-name-only
  no-show-origin no-show-scope no-default no-fixed-value
  !replace-all !add !unset !unset-all !rename-section !remove-section !edit`, PARSE_OPTIONS);

const SAFE = (shorts: string, longs: string): OptionSpec => spec(shorts, longs, PARSE_OPTIONS);

/** Subcommands whose every option only reads. */
export const READ_ONLY: Record<string, OptionSpec> = {
  'ls-files': SAFE('cdmoiskuvtfz x: X:', `cached deleted modified others ignored stage killed directory eol empty-directory unmerged
    resolve-undo exclude= exclude-from= exclude-per-directory= exclude-standard full-name recurse-submodules error-unmatch
    with-tree= abbrev[=] debug deduplicate sparse format= no-cached no-deleted no-modified no-others no-ignored no-stage
    no-killed no-directory no-eol no-empty-directory no-unmerged no-resolve-undo no-exclude-per-directory
    no-recurse-submodules no-error-unmatch no-with-tree no-abbrev no-debug no-deduplicate no-sparse`),
  'ls-tree': SAFE('drtlz', 'long name-only name-status object-only full-name full-tree format= abbrev[=] no-full-name no-full-tree no-abbrev'),
  'cat-file': SAFE('tsepZ', `allow-unknown-type use-mailmap mailmap batch[=] batch-check[=] batch-command[=] batch-all-objects
    buffer follow-symlinks unordered path= no-allow-unknown-type no-use-mailmap no-mailmap no-buffer no-follow-symlinks
    no-unordered no-path no-textconv no-filters !textconv !filters`),
  'check-ignore': SAFE('qvnz', 'quiet verbose stdin non-matching no-index index no-quiet no-verbose no-stdin no-non-matching'),
  'check-attr': SAFE('az', 'all cached stdin source= no-all no-cached no-stdin'),
  'show-ref': SAFE('dsq', `tags heads verify head dereference hash[=] abbrev[=] quiet exclude-existing[=] no-tags no-heads
    no-verify no-head no-dereference no-hash no-abbrev no-quiet`),
  'name-rev': SAFE('', `name-only tags refs= exclude= all stdin annotate-stdin undefined always peel-tag no-name-only no-tags
    no-refs no-exclude no-all no-stdin no-annotate-stdin no-undefined no-always no-peel-tag`),
  'merge-base': SAFE('a', 'all octopus independent is-ancestor fork-point no-all'),
  'count-objects': SAFE('vH', 'verbose human-readable no-verbose no-human-readable'),
  describe: SAFE('', `contains debug all tags long first-parent abbrev[=] exact-match candidates= match= exclude= always dirty[=]
    broken[=] no-contains no-debug no-all no-tags no-long no-first-parent no-abbrev no-exact-match no-candidates no-match
    no-exclude no-always no-dirty no-broken`),
  'for-each-ref': SAFE('s', `shell perl python tcl count= format= color[=] sort= points-at= merged= no-merged= contains=
    no-contains= ignore-case no-shell no-perl no-python no-tcl no-count no-format no-color no-sort no-points-at
    no-ignore-case`),
  worktree: SAFE('vz', 'porcelain verbose expire='),
  version: SAFE('', 'build-options no-build-options'),
};

/** Built-in pretty formats; any other bare name may be a `pretty.<name>` alias from configuration. */
const PRETTY_NAMES = new Set(['oneline', 'short', 'medium', 'full', 'fuller', 'reference', 'email', 'raw', 'mboxrd']);

/**
 * A `--format`/`--pretty` value that cannot make git run a program: `%G` placeholders verify
 * signatures with gpg.program, and an alias name comes from the repository's configuration.
 */
export function safeFormat(value: string | undefined, refFormat = false): boolean {
  if (value === undefined) return !refFormat;
  if (refFormat) return !/%\(\s*signature/.test(value);
  if (/%G/.test(value)) return false;
  return PRETTY_NAMES.has(value) || /^t?format:/.test(value) || value.includes('%');
}
