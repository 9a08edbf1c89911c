// What built-in knowledge says about a git command: which subcommands only read, and how
// risky the others are. Global options are skipped first, so `git -C . push` is a push.
import { gitGlobals } from './command-unwrap.js';
import type { Judgement } from './judgement.js';

const READ = (phrase = 'only reads the repository'): Judgement => ({ readOnly: true, risk: 'low', phrase });
const ask = (risk: 'medium' | 'high', phrase: string): Judgement => ({ readOnly: false, risk, phrase });

/** Subcommands that never write, given the option checks below. */
const READ_SUBS = new Set([
  'status', 'log', 'show', 'diff', 'blame', 'annotate', 'rev-parse', 'ls-files', 'ls-tree', 'cat-file',
  'rev-list', 'show-ref', 'merge-base', 'describe', 'name-rev', 'for-each-ref', 'count-objects',
  'check-ignore', 'check-attr', 'shortlog', 'whatchanged', 'grep', 'version', 'var',
]);
/** Options that write a file or run a program from configuration. */
const BAD_OPTS = ['--output', '--ext-diff', '--open-files-in-pager', '-O', '--exec', '--upload-pack', '--receive-pack'];
const BRANCH_LIST_FLAGS = new Set(['-a', '--all', '-r', '--remotes', '-l', '--list', '-v', '-vv', '--verbose', '--show-current', '--no-color', '--color', '-i', '--ignore-case', '--column', '--no-column', '--omit-empty']);
const BRANCH_VALUE_FLAGS = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format', '--abbrev']);
const DISCARD = /^(reset|clean|filter-branch|filter-repo|prune|gc|reflog|update-ref|replace)$/;
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
  if (rest.some((a) => BAD_OPTS.some((o) => a === o || a.startsWith(`${o}=`)))) {
    return ask('medium', 'uses a git option that writes files or runs programs');
  }
  if (READ_SUBS.has(name)) return READ();
  if (name === 'branch') return judgeBranch(rest);
  if (name === 'tag') return listingOnly(rest, 'creates or deletes tags', ['-l', '--list', '-n']);
  if (name === 'stash') return judgeStash(rest);
  if (name === 'worktree') return rest[0] === 'list' ? READ() : ask('medium', 'changes worktrees');
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

function judgeStash(rest: readonly string[]): Judgement {
  const sub = rest[0];
  if (sub === 'list' || sub === 'show') return READ();
  if (sub === 'drop' || sub === 'clear') return ask('high', 'discards stashed changes');
  return ask('medium', 'changes the stash');
}

function judgeBranch(rest: readonly string[]): Judgement {
  if (rest.some((a) => /^-[a-zA-Z]*[dD]/.test(a) || a === '--delete')) return ask('high', 'deletes branches');
  const listing = rest.includes('-l') || rest.includes('--list');
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    const name = a.split('=')[0] as string;
    if (BRANCH_LIST_FLAGS.has(name)) continue;
    if (BRANCH_VALUE_FLAGS.has(name)) {
      if (!a.includes('=') && i + 1 < rest.length && !(rest[i + 1] as string).startsWith('-')) i++;
      continue;
    }
    if (!a.startsWith('-') && listing) continue;
    return ask('medium', 'creates, renames or changes branches');
  }
  return READ('only lists branches');
}

function listingOnly(rest: readonly string[], phrase: string, listFlags: string[]): Judgement {
  if (rest.length === 0) return READ();
  const listing = rest.some((a) => listFlags.includes(a) || /^-n\d*$/.test(a));
  const writes = rest.some((a) => /^-[a-zA-Z]*[dfasm]/.test(a) || a === '--delete' || a === '--force');
  return listing && !writes ? READ() : ask('medium', phrase);
}

const CONFIG_READ = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', 'get', 'list']);
const CONFIG_MODIFIERS = /^(--(global|local|system|worktree|show-origin|show-scope|name-only|null|includes|no-includes|type=.*|bool|int|path)|-z)$/;

function judgeConfig(rest: readonly string[]): Judgement {
  const positional = rest.filter((a) => !CONFIG_MODIFIERS.test(a) && !CONFIG_READ.has(a));
  const reads = rest.some((a) => CONFIG_READ.has(a)) || positional.length === 1;
  if (reads && !rest.some((a) => /^(--(add|unset|unset-all|replace-all|edit|rename-section|remove-section|file|blob)|-e|-f|set|unset|edit)$/.test(a))) {
    return READ('only reads git configuration');
  }
  return ask('high', 'changes git configuration, which can make later git commands run programs');
}
