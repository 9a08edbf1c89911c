// Built-in knowledge about single commands: which ones only read (run without asking),
// and how risky the rest are. Deliberately an allowlist: anything unknown needs a person.
import { baseName, pkgSubcommand } from './command-unwrap.js';
import { judgeGit } from './git-knowledge.js';
import type { Word } from './shell-parse.js';
import type { Judgement } from './judgement.js';
import { awkProblem, sedProblem } from './text-tools.js';

import type { Risk } from '../protocol/index.js';

export type { Risk } from '../protocol/index.js';

export type { Judgement } from './judgement.js';

const set = (s: string): Set<string> => new Set(s.split(/\s+/).filter(Boolean));
const READ = (phrase = 'only reads'): Judgement => ({ readOnly: true, risk: 'low', phrase });
const ask = (risk: Risk, phrase: string, argsMayRun = false): Judgement => ({ readOnly: false, risk, phrase, argsMayRun });

/** Read-only whatever their arguments: no option of theirs writes files or runs programs. */
const ANY_ARGS = set(`cat head tail wc ls pwd echo printf true false : which whoami id uname basename dirname
  realpath readlink nl paste rev seq stat cut tr tac numfmt groups du df locale printenv type test [ cd pushd
  popd dirs jobs expr column fold fmt comm join od hexdump strings md5sum sha1sum sha224sum sha256sum sha384sum
  sha512sum b2sum cksum sum uptime arch nproc getconf tty sleep wait grep egrep fgrep diff cmp jq whereis shift
  exit return break continue read getopts let unset`);
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
const positionals = (args: string[]): string[] => args.filter((a) => !a.startsWith('-') || a === '-');

/** Commands that only read unless given certain options; undefined means read-only. */
const CHECKED: Record<string, Check> = {
  find: (a) => a.includes('-delete') ? ask('high', 'deletes the files it finds (-delete)')
    : writesIf(a.some((x) => /^-f(print0?|printf|ls)$/.test(x)), 'writes files (-fprint)'),
  rg: (a) => writesIf(a.some((x) => /^--(pre|pre-glob|hostname-bin|search-zip)(=|$)/.test(x) || /^-[a-zA-Z]*z/.test(x)), 'can run other programs (--pre, -z)'),
  sort: (a) => writesIf(a.some((x) => /^--(output|compress-program)/.test(x) || /^-[a-zA-Z]*o/.test(x)), 'writes a file or runs a program (-o)'),
  uniq: (a) => writesIf(positionals(a).length > 1, 'writes its second file argument'),
  date: (a) => writesIf(a.some((x) => x.startsWith('--set') || /^-[a-zA-Z]*s/.test(x)), 'sets the clock'),
  tree: (a) => writesIf(a.some((x) => /^-[a-zA-Z]*o/.test(x)), 'writes a file (-o)'),
  file: (a) => writesIf(a.some((x) => /^-[a-zA-Z]*C/.test(x) || x === '--compile'), 'writes a magic file (-C)'),
  xxd: (a) => writesIf(positionals(a).length > 1 || a.some((x) => /^-[a-z]*r/.test(x)), 'writes a file'),
  hostname: (a) => writesIf(positionals(a).length > 0, 'sets the host name'),
  tee: (a) => writesIf(positionals(a).some((x) => !/^\/dev\/(null|stdout|stderr)$/.test(x)), 'writes files'),
  history: (a) => writesIf(a.some((x) => x.startsWith('-')), 'changes the shell history'),
  sed: (a) => problem(sedProblem(a)),
  awk: (a) => problem(awkProblem(a)), gawk: (a) => problem(awkProblem(a)),
  mawk: (a) => problem(awkProblem(a)), nawk: (a) => problem(awkProblem(a)),
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
  if (ANY_ARGS.has(base)) return READ();
  if (isVersionQuery(base, words)) return READ('only prints a version');
  if (base === 'git') return judgeGit(['git', ...values, ...(extraArgs ? [undefined] : [])]);
  const check = CHECKED[base];
  const known = values.every((v) => v !== undefined) && !extraArgs;
  if (check && known) return check(values) ?? READ();
  if (check) return ask('medium', 'has arguments only known at run time, which could change what it does');
  return riskOf(base, values.filter((v): v is string => v !== undefined));
}

/** Risk of a command that is not read-only. */
function riskOf(base: string, args: string[]): Judgement {
  const sub = args[pkgSubcommand(args)];
  const recursive = args.some((x) => /^-[a-zA-Z]*[rR]/.test(x) || x === '--recursive');
  if (base === 'rm') return recursive ? ask('high', 'deletes files recursively') : ask('medium', 'deletes files');
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
