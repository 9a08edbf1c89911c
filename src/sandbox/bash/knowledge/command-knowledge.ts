// Built-in knowledge about single commands: which ones only read (run without asking),
// and how risky the rest are. Deliberately an allowlist: anything unknown needs a person.
import { baseName, pkgSubcommand } from './command-unwrap.js';
import { judgeByOptions } from './command-options.js';
import { judgeFind } from './find-expr.js';
import { judgeGit } from './git-knowledge.js';
import { rmRecursive } from './rm-canon.js';
import type { Word } from '../parse/shell-parse.js';
import type { Judgement } from './judgement.js';
import { awkProblem, sedProblem } from './text-tools.js';
import { tarProblem } from './archive-tools.js';

import type { Risk } from '../../../protocol/index.js';

export type { Risk } from '../../../protocol/index.js';

export type { Judgement } from './judgement.js';

const set = (s: string): Set<string> => new Set(s.split(/\s+/).filter(Boolean));
const READ = (phrase = 'only reads'): Judgement => ({ readOnly: true, risk: 'low', phrase });
const ask = (risk: Risk, phrase: string, argsMayRun = false): Judgement => ({ readOnly: false, risk, phrase, argsMayRun });

/**
 * Shell builtins that only read or print, whatever their arguments. What some of them set
 * (`read NAME`, `printf -v NAME`, `getopts`, `wait -p`) and what they evaluate (`let`,
 * `test -v`) is judged by the walker like an assignment or an arithmetic expression.
 * Programs with options are judged by their option tables (command-options.ts).
 */
const BUILTINS = set(`echo printf true false : pwd type test [ cd pushd popd dirs jobs wait shift exit return break
  continue read getopts let unset expr times caller help mapfile readarray`);
/**
 * Exact version queries per tool. Left out on purpose: yarn and pnpm (a repository can point
 * them at its own script), go and cargo/rustc (a repository can pick the toolchain), and
 * `python -v` (verbose mode, reads a program from stdin).
 */
const VERSION_FLAGS: Record<string, string[]> = {
  node: ['--version', '-v'], nodejs: ['--version', '-v'], npm: ['--version', '-v'], npx: ['--version', '-v'],
  bun: ['--version', '-v'], deno: ['--version', '-V'], python: ['--version', '-V'], python3: ['--version', '-V'],
  pip: ['--version', '-V'], pip3: ['--version', '-V'], git: ['--version'], tsc: ['--version', '-v'],
  java: ['--version', '-version'], javac: ['--version', '-version'], ruby: ['--version'], perl: ['--version'],
  php: ['--version'], gcc: ['--version'], 'g++': ['--version'], clang: ['--version'], make: ['--version', '-v'],
  cmake: ['--version'], docker: ['--version', '-v'], bash: ['--version'], zsh: ['--version'], sh: ['--version'],
};

/** `node --version` and the like: prints a version and runs nothing else. */
export function isVersionQuery(base: string, args: readonly Word[]): boolean {
  const only = args.length === 1 ? args[0]?.value : undefined;
  return only !== undefined && (VERSION_FLAGS[base]?.includes(only) ?? false);
}
const HIGH = set(`dd mkswap fdisk sfdisk gdisk parted wipefs shred mount umount losetup cryptsetup shutdown reboot
  halt poweroff systemctl service launchctl crontab at insmod rmmod modprobe sysctl iptables ip6tables nft ufw
  chattr useradd userdel usermod passwd chpasswd visudo chroot nsenter docker podman kubectl su`);
const NETWORK = set('curl wget nc ncat netcat socat telnet ssh scp sftp rsync ftp lftp aria2c http https xh');
const PUBLISH = set('npm:publish pnpm:publish yarn:publish bun:publish cargo:publish gem:push twine:upload docker:push podman:push');
const RUNS_ARGS = set('ssh docker podman kubectl chroot nsenter');
/** npm only: yarn and pnpm may run a version or script the repository chooses. */
const PKG_LISTING = set('ls list ll la view info show v root prefix outdated explain why search');
const TRUSTED_DIR = /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/;

type Check = (args: string[]) => Judgement | undefined;
const writesIf = (bad: boolean, phrase: string): Judgement | undefined => (bad ? ask('medium', phrase) : undefined);

/** Commands with their own small languages or subcommands; undefined means read-only. */
const CHECKED: Record<string, Check> = {
  history: (a) => writesIf(!(a.length === 0 || (a.length === 1 && /^\d+$/.test(a[0] as string))), 'changes the shell history'),
  sed: (a) => problem(sedProblem(a)),
  awk: (a) => problem(awkProblem(a)), gawk: (a) => problem(awkProblem(a)),
  mawk: (a) => problem(awkProblem(a)), nawk: (a) => problem(awkProblem(a)),
  tar: (a) => problem(tarProblem(a)),
  set: (a) => writesIf(!a.every((x) => /^[-+][euxvnfCBhHPT]*o?$/.test(x) || /^(pipefail|errexit|nounset|xtrace|noclobber|noglob|verbose)$/.test(x) || x === '--'), 'changes shell options'),
  shopt: (a) => writesIf(a.some((x) => /^-[a-z]*[su]/.test(x)), 'changes shell options'),
  hash: (a) => writesIf(a.some((x) => /^-[a-z]*p/.test(x)), 'changes where commands are found'),
  npm: (a) => (PKG_LISTING.has(a[pkgSubcommand(a)] ?? '') ? undefined : riskOf('npm', a)),
};
function problem(why: string | undefined): Judgement | undefined {
  return why === undefined ? undefined : ask('medium', why);
}

/**
 * Judge one command (wrappers already stripped). `extraArgs` says the command gets more
 * arguments at run time (`xargs`). argv[0] must have a static value.
 */
export function judgeArgv(argv: readonly Word[], extraArgs: boolean): Judgement {
  const name = argv[0]?.value ?? '';
  const base = baseName(name);
  const words = argv.slice(1);
  const j = judgeKnown(base, words, extraArgs);
  return j.readOnly && !isSystemName(name) ? ask('medium', `runs ${name}, not the system ${base}`) : j;
}

/** A bare name (found on PATH) or a program in a system bin directory, not `./ls`. */
export function isSystemName(name: string): boolean {
  return !name.includes('/') || TRUSTED_DIR.test(name);
}

function judgeKnown(base: string, words: readonly Word[], extraArgs: boolean): Judgement {
  const values = words.map((w) => (w.glob ? undefined : w.value));
  if (BUILTINS.has(base)) return judgeBuiltin(base, words);
  if (isVersionQuery(base, words)) return READ('only prints a version');
  if (base === 'git') return judgeGit(['git', ...values, ...(extraArgs ? [undefined] : [])]);
  if (base === 'find') return judgeFind(words, extraArgs);
  const byOptions = judgeByOptions(base, words, extraArgs);
  if (byOptions) return byOptions;
  const check = CHECKED[base];
  const known = values.every((v) => v !== undefined) && !extraArgs;
  if (check && known) return check(values) ?? READ();
  if (check) return ask('medium', 'has arguments only known at run time, which could change what it does');
  return riskOf(base, values.filter((v): v is string => v !== undefined));
}

/** `mapfile -C callback` runs shell code every few lines it reads. */
function judgeBuiltin(base: string, words: readonly Word[]): Judgement {
  if (base === 'mapfile' || base === 'readarray') {
    const opts = words.filter((w) => w.value === undefined || w.value.startsWith('-'));
    if (opts.some((w) => w.value === undefined || /^-[a-zA-Z]*C/.test(w.value))) return ask('medium', 'runs a callback (-C) on the lines it reads');
  }
  return READ();
}

/** Risk of a command that is not read-only. */
function riskOf(base: string, args: string[]): Judgement {
  const sub = args[pkgSubcommand(args)];
  const recursive = args.some((x) => /^-[a-zA-Z]*[rR]/.test(x) || x === '--recursive');
  if (base === 'rm') return rmRecursive(args) ? ask('high', 'deletes files recursively') : ask('medium', 'deletes files');
  if (/^(chmod|chown|chgrp)$/.test(base)) {
    return recursive ? ask('high', 'changes ownership or permissions recursively') : ask('medium', 'changes ownership or permissions');
  }
  if (sub !== undefined && PUBLISH.has(`${base}:${sub}`)) return ask('high', 'publishes a package');
  if (NETWORK.has(base)) return ask('high', 'uses the network', RUNS_ARGS.has(base));
  if (HIGH.has(base) || base.startsWith('mkfs') || base.startsWith('mke2fs')) {
    return ask('high', 'can destroy data or change the system', RUNS_ARGS.has(base));
  }
  if (base === 'source' || base === '.') return ask('medium', 'runs the commands in another file');
  return ask('medium', 'is not known to be read-only', true);
}
