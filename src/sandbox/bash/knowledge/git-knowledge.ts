// What built-in knowledge says about a git command: which subcommands only read, and how
// risky the others are. Global options are skipped first, so `git -C . push` is a push.
import { gitGlobals } from './command-unwrap.js';
import { BLAME, BRANCH, CONFIG, DIFF, GREP, READ_ONLY, REV, SHORTLOG, STATUS, TAG, safeFormat } from './git-options.js';
import type { Judgement } from './judgement.js';
import { hasOption, parseOptions, staticWords, valuesOf } from './option-specs.js';
import type { OptionSpec, Parsed } from './option-specs.js';

const READ = (phrase = 'only reads the repository'): Judgement => ({ readOnly: true, risk: 'low', phrase });
const ask = (risk: 'medium' | 'high', phrase: string): Judgement => ({ readOnly: false, risk, phrase });

/** Subcommands that print and take any arguments (none of their options writes or runs anything). */
const ANY_ARGS = new Set(['rev-parse', 'var']);
const REV_TABLES: Record<string, OptionSpec> = { log: REV, show: REV, whatchanged: REV, 'rev-list': REV, diff: DIFF, shortlog: SHORTLOG, blame: BLAME, annotate: BLAME, grep: GREP, status: STATUS };
const DISCARD = /^(reset|clean|filter-branch|filter-repo|prune|gc|update-ref|replace)$/;
const NETWORK = /^(fetch|pull|clone|ls-remote|submodule|remote)$/;

/** Judge `git ...` given its static argv (dynamic words are passed as undefined). */
export function judgeGit(argv: ReadonlyArray<string | undefined>): Judgement {
  const { sub, risky } = gitGlobals(argv);
  if (sub < argv.length && argv[sub] === undefined) {
    return { readOnly: false, risk: 'high', phrase: 'runs a git subcommand only known at run time', hidden: true };
  }
  if (argv.some((a) => a === undefined)) return ask('medium', 'has git arguments only known at run time');
  const args = argv as readonly string[];
  const base = judgeSub(args[sub], args.slice(sub + 1), args.length > 1);
  if (risky.length === 0) return base;
  const high = base.risk === 'high' || risky.some((o) => o === '-c' || o === '--config-env' || o === '--exec-path');
  const phrase = base.readOnly ? `uses git option ${risky[0]}, which can change what git runs` : base.phrase;
  return ask(high ? 'high' : 'medium', phrase);
}

function judgeSub(name: string | undefined, rest: readonly string[], hasArgs: boolean): Judgement {
  if (name === undefined) return READ(hasArgs ? 'only prints git information' : 'only prints git help');
  if (name === 'push') return ask('high', 'publishes commits to a remote');
  if (name === 'config') return judgeConfig(rest);
  if (ANY_ARGS.has(name)) return READ();
  const table = REV_TABLES[name] ?? READ_ONLY[name];
  if (table && name !== 'worktree') return byTable(rest, table);
  if (name === 'branch') return judgeBranch(rest);
  if (name === 'tag') return judgeTag(rest);
  if (name === 'stash') return judgeStash(rest);
  if (name === 'reflog') return judgeReflog(rest);
  if (name === 'worktree') return rest[0] === 'list' ? byTable(rest.slice(1), READ_ONLY['worktree'] as OptionSpec) : ask('medium', 'changes worktrees');
  if (name === 'remote') {
    const listing = rest.length === 0 || (rest.length === 1 && (rest[0] === '-v' || rest[0] === '--verbose')) || rest[0] === 'get-url';
    return listing ? READ() : ask('medium', 'changes or contacts git remotes');
  }
  if (name === 'checkout' && rest.some((a) => a === '-f' || a === '--force' || a === '--' || a === '.')) {
    return ask('high', 'discards uncommitted changes');
  }
  if (name === 'restore') return ask('high', 'discards uncommitted changes');
  if (DISCARD.test(name)) return ask('high', 'can discard commits or uncommitted work');
  if (NETWORK.test(name)) return ask('medium', 'contacts a remote repository');
  return ask('medium', 'changes the repository');
}

/** Parse against a subcommand's table; undefined problem means every option is known and safe. */
function parse(rest: readonly string[], table: OptionSpec): Parsed | Judgement {
  const p = parseOptions(staticWords(rest), table);
  if (p.problem) return ask('medium', `${p.problem.replace(/^uses an option ferret does not know/, 'uses a git option ferret does not know')}`);
  if (p.unsafe) return ask('medium', `uses git option ${p.unsafe}, which writes files or runs programs`);
  const formats = valuesOf(p, '--format', '--pretty');
  if (!formats.every((f) => safeFormat(f))) return ask('medium', 'uses a format that verifies signatures (%G, which runs gpg) or names a configured format');
  return p;
}

const isJudgement = (x: Parsed | Judgement): x is Judgement => 'readOnly' in x;

function byTable(rest: readonly string[], table: OptionSpec): Judgement {
  const p = parse(rest, table);
  return isJudgement(p) ? p : READ();
}

function judgeStash(rest: readonly string[]): Judgement {
  const sub = rest[0];
  if (sub === 'list' || sub === 'show') return byTable(rest.slice(1), REV);
  if (sub === 'drop' || sub === 'clear') return ask('high', 'discards stashed changes');
  return ask('medium', 'changes the stash');
}

function judgeReflog(rest: readonly string[]): Judgement {
  const sub = rest[0];
  if (sub === 'expire' || sub === 'delete') return ask('high', 'can discard commits or uncommitted work');
  if (sub === 'exists' || sub === 'list') return READ();
  return byTable(sub === 'show' ? rest.slice(1) : rest, REV);
}

const FILTERS = ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--with', '--without'];

function judgeBranch(rest: readonly string[]): Judgement {
  const p = parseOptions(staticWords(rest), BRANCH);
  if (p.options.some((o) => o.name === '-d' || o.name === '-D' || o.name === '--delete')) return ask('high', 'deletes branches');
  if (p.problem || p.unsafe) return ask('medium', 'creates, renames or changes branches');
  const listing = hasOption(p, '-l', '--list', ...FILTERS);
  if (p.operands.length > 0 && !listing) return ask('medium', 'creates, renames or changes branches');
  if (!valuesOf(p, '--format').every((f) => safeFormat(f, true))) return ask('medium', 'uses a format that verifies signatures');
  return READ('only lists branches');
}

function judgeTag(rest: readonly string[]): Judgement {
  const p = parseOptions(staticWords(rest), TAG);
  if (p.problem || p.unsafe) return ask('medium', p.unsafe === '-v' || p.unsafe === '--verify' ? 'verifies tags with gpg.program' : 'creates or deletes tags');
  const listing = p.operands.length === 0 || hasOption(p, '-l', '--list', '-n', ...FILTERS);
  if (!listing) return ask('medium', 'creates or deletes tags');
  if (!valuesOf(p, '--format').every((f) => safeFormat(f, true))) return ask('medium', 'uses a format that verifies signatures');
  return READ('only lists tags');
}

const CONFIG_READS = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', '--get-color', '--get-colorbool'];

function judgeConfig(rest: readonly string[]): Judgement {
  const writes = ask('high', 'changes git configuration, which can make later git commands run programs');
  const p = parseOptions(staticWords(rest), CONFIG);
  if (p.problem || p.unsafe) return writes;
  const first = p.operands[0];
  const reads = hasOption(p, ...CONFIG_READS) || first === 'get' || first === 'list' || p.operands.length <= 1;
  return reads ? READ('only reads git configuration') : writes;
}
