// Wrapper programs (`env`, `sudo`, `timeout`, `xargs`, ...) run the command that follows them.
// Stripping them lets rules and built-in knowledge judge the command that really runs.
import { rmRuleForms } from './rm-canon.js';
import type { Word } from '../parse/shell-parse.js';

interface WrapperSpec {
  /** Short options that take a value (attached or the next word). */
  short?: string;
  /** Short options whose value, if any, must be attached (`xargs -i`). */
  optional?: string;
  /** Long options that take the next word as their value (unless written `--x=v`). */
  long?: string[];
  /** Positional words before the command (`timeout DURATION cmd`). */
  positional?: number;
  /** NAME=VALUE words may precede the command. */
  assigns?: boolean;
  privileged?: boolean;
  /** The command receives more arguments at run time. */
  extraArgs?: boolean;
  /** Options after which what follows is no longer a plain command. */
  opaque?: string[];
  /** Options that turn the wrapper into a query that runs nothing. */
  query?: string[];
  /** Options whose value is a file the wrapper writes. */
  writes?: string[];
  /** Long options without a value (or with an optional `=value`); with `long`, `opaque`, `query` and `writes` the whole table. */
  flags?: string[];
  /** Options whose value is a variable the wrapper removes from the command's environment (`env -u PATH`). */
  unsets?: string[];
  /**
   * Options that start the command with an empty environment (`env -i`, `env -`, `exec -c`): it
   * loses the settings every command is given (confine/git-env.ts keeps git from running a
   * repository's configuration), so what it runs is not what the command's text says.
   */
  clears?: string[];
}

const PRIV: WrapperSpec = { privileged: true };
const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    short: 'uCP', long: ['--unset', '--chdir'], assigns: true, opaque: ['-S', '--split-string'], unsets: ['-u', '--unset'], clears: ['-i', '--ignore-environment', '-'],
    flags: ['--block-signal', '--debug', '--default-signal', '--help', '--ignore-signal', '--list-signal-handling', '--null', '--version'],
  },
  sudo: {
    ...PRIV, short: 'ugpCDrtTUh', assigns: true,
    long: ['--user', '--group', '--prompt', '--close-from', '--chdir', '--role', '--type', '--other-user', '--command-timeout', '--host', '--chroot'],
    flags: ['--askpass', '--background', '--bell', '--preserve-env', '--edit', '--set-home', '--help', '--login', '--remove-timestamp',
      '--reset-timestamp', '--list', '--non-interactive', '--preserve-groups', '--stdin', '--shell', '--version', '--validate'],
  },
  doas: { ...PRIV, short: 'uC' },
  pkexec: { ...PRIV, long: ['--user'], flags: ['--disable-internal-agent', '--keep-cwd', '--help', '--version'] },
  run0: {
    ...PRIV, short: 'uDg', long: ['--user', '--group', '--chdir', '--setenv', '--property', '--unit', '--description', '--slice', '--nice', '--machine'],
    flags: ['--no-ask-password', '--slice-inherit', '--help', '--version'],
  },
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], positional: 1, flags: ['--foreground', '--preserve-status', '--verbose', '--help', '--version'] },
  gtimeout: { short: 'sk', long: ['--signal', '--kill-after'], positional: 1, flags: ['--foreground', '--preserve-status', '--verbose', '--help', '--version'] },
  nice: { short: 'n', long: ['--adjustment'], flags: ['--help', '--version'] },
  nohup: { flags: ['--help', '--version'] },
  time: { short: 'fo', long: ['--format', '--output'], writes: ['-o', '--output'], flags: ['--append', '--portability', '--verbose', '--quiet', '--help', '--version'] },
  command: { query: ['-v', '-V'] },
  builtin: {},
  exec: { short: 'a', clears: ['-c'] },
  noglob: {},
  nocorrect: {},
  stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'], flags: ['--help', '--version'] },
  ionice: { short: 'cnpPut', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'], flags: ['--ignore', '--help', '--version'] },
  chrt: { positional: 1 },
  taskset: { positional: 1 },
  setsid: {},
  unbuffer: {},
  chronic: {},
  busybox: {},
  torsocks: {},
  proxychains: { short: 'f' },
  proxychains4: { short: 'f' },
  caffeinate: { short: 'tw' },
  catchsegv: {},
  xargs: {
    short: 'adEILnPs', optional: 'eil', extraArgs: true,
    long: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
    flags: ['--eof', '--replace', '--max-lines', '--exit', '--help', '--interactive', '--no-run-if-empty', '--null', '--open-tty', '--show-limits', '--verbose', '--version'],
  },
};

export interface Unwrapped {
  /** levels[0] is the whole argv; each further level has one more wrapper stripped. */
  readonly levels: Word[][];
  /** The innermost command; empty when a wrapper was used on its own (`env`, `nice`). */
  readonly inner: Word[];
  readonly wrappers: string[];
  readonly privileged: boolean;
  readonly extraArgs: boolean;
  /** Variables a wrapper sets for the command (`env LD_PRELOAD=x cmd`) or removes (`env -u PATH`). */
  readonly assigns: Array<{ name: string; value: string | undefined; unset?: boolean }>;
  /** Files written because of wrapper options (`time -o f`). */
  readonly writes: Word[];
  /** Why the wrapped command cannot be known statically. */
  readonly problem?: string;
  /** The wrapper was only asked a question (`command -v git`). */
  readonly query?: boolean;
}

export function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** Strip wrappers from the front of argv, as deep as they go. */
export function unwrap(argv: Word[]): Unwrapped {
  const levels: Word[][] = [argv];
  const wrappers: string[] = [];
  const assigns: Unwrapped['assigns'] = [];
  const writes: Word[] = [];
  let privileged = false;
  let extraArgs = false;
  let cur = argv;
  for (;;) {
    const head = cur[0]?.value;
    const spec = head === undefined ? undefined : WRAPPERS[baseName(head)];
    if (!spec || head === undefined) break;
    const step = stripOne(cur, spec);
    wrappers.push(baseName(head));
    privileged ||= spec.privileged === true;
    extraArgs ||= spec.extraArgs === true;
    assigns.push(...step.assigns);
    writes.push(...step.writes);
    const base = { levels, wrappers, privileged, extraArgs, assigns, writes };
    if (step.problem) return { ...base, inner: [], problem: `${baseName(head)} ${step.problem}` };
    if (step.query) return { ...base, inner: [], query: true };
    cur = step.rest;
    if (cur.length === 0) break;
    levels.push(cur);
  }
  return { levels, inner: cur, wrappers, privileged, extraArgs, assigns, writes };
}

interface Step {
  rest: Word[];
  assigns: Array<{ name: string; value: string | undefined; unset?: boolean }>;
  writes: Word[];
  problem?: string;
  query?: boolean;
}

/**
 * What an emptied environment loses that matters: told as the removal of GIT_CONFIG_COUNT (the
 * neutral git settings), which asks like any removal of a variable that changes what runs.
 */
const CLEARED = { name: 'GIT_CONFIG_COUNT', value: undefined, unset: true } as const;

function stripOne(argv: Word[], spec: WrapperSpec): Step {
  const step: Step = { rest: [], assigns: [], writes: [] };
  let j = 1;
  const has = (list: string[] | undefined, opt: string): boolean => list?.includes(opt) === true;
  for (; j < argv.length; j++) {
    const v = argv[j]?.value;
    if (v === undefined) return { ...step, problem: 'is given an argument only known at run time' };
    if (v === '--') { j++; break; }
    if (has(spec.clears, v)) { step.assigns.push(CLEARED); continue; }
    if (!v.startsWith('-') || v === '-') break;
    if (v.startsWith('--')) {
      const given = v.split('=')[0] as string;
      // GNU getopt_long takes any unique prefix (`env --split-s=...` is --split-string).
      const name = longName(spec, given);
      if (name === undefined) return { ...step, problem: `is given ${given}, an option ferret does not know` };
      if (has(spec.opaque, name)) return { ...step, problem: `${name} hides the command` };
      if (has(spec.clears, name)) { step.assigns.push(CLEARED); continue; }
      if (has(spec.query, name)) return { ...step, query: true };
      const takesNext = !v.includes('=') && has(spec.long, name);
      if (has(spec.writes, name)) step.writes.push(takesNext ? (argv[j + 1] ?? argv[j]!) : argv[j]!);
      if (has(spec.unsets, name)) step.assigns.push({ name: (takesNext ? argv[j + 1]?.value : v.slice(v.indexOf('=') + 1)) ?? '', value: undefined, unset: true });
      if (takesNext) j++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const opt = `-${v[k]}`;
      if (has(spec.opaque, opt)) return { ...step, problem: `${opt} hides the command` };
      if (has(spec.clears, opt)) step.assigns.push(CLEARED);
      if (has(spec.query, opt)) return { ...step, query: true };
      if (spec.optional?.includes(v[k] as string)) break;
      if (spec.short?.includes(v[k] as string)) {
        const attached = k + 1 < v.length;
        if (has(spec.writes, opt)) step.writes.push(attached ? argv[j]! : (argv[j + 1] ?? argv[j]!));
        if (has(spec.unsets, opt)) step.assigns.push({ name: (attached ? v.slice(k + 1) : argv[j + 1]?.value) ?? '', value: undefined, unset: true });
        if (!attached) j++;
        break;
      }
    }
  }
  j += spec.positional ?? 0;
  if (spec.assigns) {
    for (; j < argv.length; j++) {
      const w = argv[j] as Word;
      if (w.value === undefined) return { ...step, problem: 'is given an argument only known at run time' };
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w.value);
      if (!m) break;
      step.assigns.push({ name: m[1] as string, value: m[2] });
    }
  }
  step.rest = argv.slice(j);
  return step;
}

/** A wrapper's long option as it reads it: an exact name or a unique prefix of one. */
function longName(spec: WrapperSpec, given: string): string | undefined {
  const all = [...(spec.long ?? []), ...(spec.flags ?? []), ...(spec.opaque ?? []), ...(spec.query ?? []), ...(spec.writes ?? []), ...(spec.unsets ?? []), ...(spec.clears ?? [])]
    .filter((o) => o.startsWith('--'));
  if (all.includes(given)) return given;
  const hits = [...new Set(all.filter((o) => o.startsWith(given)))];
  return hits.length === 1 ? hits[0] : undefined;
}

/** Git options that may come before the subcommand, and whether they take a value. */
const GIT_VALUE_OPTS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--exec-path', '--attr-source', '--list-cmds']);
/** Global options that can make git run code or use another repository's config. */
// `--bare` makes the working folder the git directory, as GIT_DIR does: git then opens a folder that
// only looks like a repository, which safe.bareRepository (confine/git-env.ts) otherwise refuses.
const GIT_RISKY_OPTS = new Set(['-c', '--config-env', '--exec-path', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '-p', '--paginate', '--attr-source', '--bare']);
/** Global options that change nothing about what git runs; any other (unknown, newer) one counts as risky. */
const GIT_SAFE_OPTS = new Set(['-C', '-P', '--no-pager', '--no-replace-objects', '--no-lazy-fetch', '--no-optional-locks', '--no-advice',
  '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--version', '-v', '--help', '-h',
  '--html-path', '--man-path', '--info-path', '--list-cmds']);

/** A word for rule matching: its value, or undefined when only known at run time. */
export type Arg = string | undefined;

/** Find git's subcommand after its global options (`git -C . push` → index of "push"). */
export function gitGlobals(args: readonly Arg[]): { sub: number; risky: string[] } {
  const risky: string[] = [];
  let i = 1;
  while (i < args.length) {
    const a = args[i];
    if (a === undefined || !a.startsWith('-')) break;
    const name = a.startsWith('--') ? (a.split('=')[0] as string) : a.slice(0, 2);
    if (GIT_RISKY_OPTS.has(name) || !GIT_SAFE_OPTS.has(name) || (!a.startsWith('--') && a.length > 2)) risky.push(name);
    const attached = a.startsWith('--') ? a.includes('=') : a.length > 2;
    i += GIT_VALUE_OPTS.has(name) && !attached && name !== '--exec-path' ? 2 : 1;
  }
  return { sub: i, risky };
}

const PKG_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/** Index of a package manager's subcommand in its arguments, past options like `--prefix dir`. */
export function pkgSubcommand(args: readonly Arg[]): number {
  let i = 0;
  for (let a = args[0]; a !== undefined && a.startsWith('-'); a = args[i]) i += PKG_VALUE_OPTS.has(a) ? 2 : 1;
  return i;
}

const PKG_VALUE_OPTS = new Set(['--prefix', '-C', '--dir', '--cwd', '-w', '--workspace', '--filter', '-F', '--registry', '--otp', '--userconfig', '--cache', '--loglevel']);

/**
 * Extra spellings of argv that mean the same command, for deny/ask rules (which match broadly):
 * the program's base name, lower case, git without global options, rm with its flags in one
 * canonical cluster, a package manager without leading options.
 */
export function ruleForms<T extends Arg>(argv: readonly T[], implyForce = false): Arg[][] {
  const forms: Arg[][] = [argv.slice()];
  const name = argv[0];
  if (name === undefined) return forms;
  const base = baseName(name).toLowerCase();
  const rest = argv.slice(1);
  if (base !== name) forms.push([base, ...rest]);
  if (base === 'git') {
    const { sub } = gitGlobals(argv);
    if (sub > 1) forms.push(['git', ...argv.slice(sub)]);
  } else if (base === 'rm') {
    if (rest.every((a) => a !== undefined)) forms.push(...rmRuleForms(['rm', ...(rest as string[])], implyForce));
    else forms.push(canonicalRm(rest, implyForce));
  } else if (PKG_MANAGERS.has(base)) {
    const i = pkgSubcommand(rest);
    if (i > 0) forms.push([base, ...rest.slice(i)]);
  }
  return forms;
}

/** With words only known at run time: `rm -r -f x`, `rm --rec --force x` → `rm -rf x` (other flags dropped). */
function canonicalRm(args: readonly Arg[], implyForce: boolean): Arg[] {
  let r = false;
  let f = false;
  const operands: Arg[] = [];
  let opts = true;
  for (const a of args) {
    if (a === undefined || !opts) operands.push(a);
    else if (a === '--') opts = false;
    else if (a.startsWith('--')) {
      r ||= a.length > 3 && 'recursive'.startsWith(a.slice(2));
      f ||= a.length > 3 && 'force'.startsWith(a.slice(2));
    } else if (a.startsWith('-') && a.length > 1) {
      r ||= /[rR]/.test(a);
      f ||= a.includes('f');
    } else operands.push(a);
  }
  f ||= implyForce && r;
  const flag = r && f ? ['-rf'] : r ? ['-r'] : f ? ['-f'] : [];
  return ['rm', ...flag, ...operands];
}
