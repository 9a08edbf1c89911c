// Canonical spellings of `rm`, so that a rule or a remembered decision on one spelling holds
// for all of them: `rm -rf x`, `rm -fr x`, `rm -r -f x`, `rm --recursive --force x`,
// `rm --rec --forc x`, `rm x -rf`, `rm -rf ./x`, `rm -rf -- x` are one command.
// Two forms: `exact` keeps everything that changes what rm does (operand order, a trailing
// slash, which of -f/-i/-I comes last), for persisted keys and allow rules; `broad` is for deny
// and ask rules, which should over-match: trailing slashes dropped, `..` resolved, `$HOME` read
// as `~`, and one form per operand (`rm -rf ./x ~` deletes `~`).
import { parseOptions, spec, staticWords } from './option-specs.js';
import type { Arg, Parsed } from './option-specs.js';

/** GNU coreutils 9.1 rm. */
const RM = spec('dfirvIR', 'dir force interactive[=] no-preserve-root one-file-system preserve-root[=] recursive verbose help version');

type Mode = 'default' | 'force' | 'never' | 'once' | 'always';

interface RmArgs {
  readonly recursive: boolean;
  readonly mode: Mode;
  readonly dir: boolean;
  readonly verbose: boolean;
  readonly oneFs: boolean;
  readonly preserve: 'default' | 'none' | 'all';
  readonly parsed: Parsed;
}

export const isRm = (name: string | undefined): boolean => name !== undefined && name.slice(name.lastIndexOf('/') + 1).toLowerCase() === 'rm';

/** rm's options as rm reads them, with the last of -f/-i/-I/--interactive winning; undefined when rm would refuse them. */
function parseRm(args: readonly Arg[]): RmArgs | undefined {
  const p = parseOptions(staticWords(args), RM);
  if (p.problem) return undefined;
  let recursive = false;
  let mode: Mode = 'default';
  let dir = false;
  let verbose = false;
  let oneFs = false;
  let preserve: RmArgs['preserve'] = 'default';
  for (const o of p.options) {
    switch (o.name) {
      case '-r': case '-R': case '--recursive': recursive = true; break;
      case '-f': case '--force': mode = 'force'; break;
      case '-i': mode = 'always'; break;
      case '-I': mode = 'once'; break;
      case '--interactive': {
        const when = o.value ?? 'always';
        if (/^(always|yes)$/.test(when)) mode = 'always';
        else if (when === 'once') mode = 'once';
        else if (/^(never|no|none)$/.test(when)) mode = mode === 'force' ? 'force' : 'never';
        else return undefined;
        break;
      }
      case '-d': case '--dir': dir = true; break;
      case '-v': case '--verbose': verbose = true; break;
      case '--one-file-system': oneFs = true; break;
      case '--no-preserve-root': preserve = 'none'; break;
      case '--preserve-root':
        if (o.value !== undefined && o.value !== 'all') return undefined;
        preserve = o.value === 'all' ? 'all' : 'default';
        break;
      default: return undefined; // --help, --version: prints, deletes nothing
    }
  }
  return { recursive, mode, dir, verbose, oneFs, preserve, parsed: p };
}

/** rm deletes directories recursively (`-r`, `-R`, `--recursive`, `--rec`, clustered). */
export function rmRecursive(args: readonly string[]): boolean {
  const a = parseRm(args);
  if (a) return a.recursive;
  return args.some((x) => (x.startsWith('--') ? x.length > 3 && 'recursive'.startsWith(x.slice(2)) : /^-[a-zA-Z]*[rR]/.test(x)));
}

/** `~`, `$HOME`, `${HOME}`, `"$HOME"`, `"$HOME/x"`, `"${HOME}"/x` → `~...`; undefined for anything else. */
export function homeForm(text: string): string | undefined {
  let m = /^(?:\$HOME|\$\{HOME\}|"\$HOME"|"\$\{HOME\}")((?:\/[\w.@%+=:,~*?-]*)*)$/.exec(text);
  if (m) return `~${m[1] ?? ''}`;
  m = /^"(?:\$HOME|\$\{HOME\})((?:\/[\w.@%+=:,~-]*)*)"$/.exec(text);
  return m ? `~${m[1] ?? ''}` : undefined;
}

/** Same file, same meaning: `./x` → `x`, `a//b` → `a/b`, `a/./b` → `a/b`, `x//` → `x/` (a trailing slash stays: it follows a symlink). */
export function exactPath(p: string): string {
  if (p === '') return p;
  const absolute = p.startsWith('/');
  const trailing = p.endsWith('/');
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.length === 0) return absolute ? '/' : trailing && p !== '.' ? './' : '.';
  return `${absolute ? '/' : ''}${parts.join('/')}${trailing ? '/' : ''}`;
}

/** For rules: also without a trailing slash, `**` as `*`. */
export function broadPath(p: string): string {
  const e = exactPath(p).replace(/\*\*+/g, '*');
  return e.length > 1 && e.endsWith('/') ? e.slice(0, -1) : e;
}

/** `..` resolved on the text (`/usr/..` → `/`, `~/a/..` → `~`); a symlink could differ, which only widens a rule. */
export function lexicalPath(p: string): string {
  const b = broadPath(p);
  const absolute = b.startsWith('/');
  const out: string[] = [];
  for (const s of b.split('/').filter((x) => x !== '')) {
    if (s === '..' && out.length > 0 && out[out.length - 1] !== '..' && out[out.length - 1] !== '~') out.pop();
    else if (s === '..' && absolute) continue;
    else out.push(s);
  }
  return absolute ? `/${out.join('/')}` : out.length === 0 ? '.' : out.join('/');
}

/** The canonical flag word: `-r` first, then `-f`/`-i`/`-I`, `-d`, `-v` (`rm -rf`), then long-only options. */
function exactFlags(a: RmArgs): string[] {
  const letters = `${a.recursive ? 'r' : ''}${a.mode === 'force' ? 'f' : a.mode === 'always' ? 'i' : a.mode === 'once' ? 'I' : ''}${a.dir ? 'd' : ''}${a.verbose ? 'v' : ''}`;
  const out = letters ? [`-${letters}`] : [];
  if (a.mode === 'never') out.push('--interactive=never');
  if (a.oneFs) out.push('--one-file-system');
  if (a.preserve === 'none') out.push('--no-preserve-root');
  if (a.preserve === 'all') out.push('--preserve-root=all');
  return out;
}

export interface RmExact {
  /** Canonical option words. */
  readonly flags: string[];
  /** Operands in order: the index of the argument, and its canonical path when it is static. */
  readonly operands: Array<{ readonly at: number; readonly path?: string }>;
  /** `--` is needed before the operands. */
  readonly dashdash: boolean;
}

/**
 * rm's arguments in exact canonical form; `args` are values, undefined for words only known at
 * run time (kept as written, in place). Undefined when a run-time word comes before an option
 * (it could be one) or rm would refuse its options.
 */
export function rmExact(args: readonly Arg[]): RmExact | undefined {
  const a = parseRm(args);
  if (!a) return undefined;
  const p = a.parsed;
  if (args.some((v, i) => v === undefined && i < p.lastOption)) return undefined;
  const operands = p.operandAt.map((at, k) => {
    const v = p.operands[k];
    return v === undefined ? { at } : { at, path: exactPath(v) };
  });
  const hadDashDash = args.slice(0, p.operandAt[0] ?? args.length).includes('--');
  const dashdash = operands.some((o) => o.path?.startsWith('-')) || (hadDashDash && operands.some((o) => o.path === undefined));
  return { flags: exactFlags(a), operands, dashdash };
}

/** The exact canonical argv (`rm -rf x`) when it can be built from static words; else undefined. */
export function rmExactArgv(argv: readonly string[]): string[] | undefined {
  const c = rmExact(argv.slice(1).map((w) => homeForm(w) ?? w));
  if (!c) return undefined;
  return [argv[0] as string, ...c.flags, ...(c.dashdash ? ['--'] : []), ...c.operands.map((o) => o.path ?? '')];
}

/** Flag words for a set of broad flags. */
const flagWord = (r: boolean, f: boolean): string[] => (r || f ? [`-${r ? 'r' : ''}${f ? 'f' : ''}`] : []);

/**
 * Spellings of an rm argv for deny/ask rules (argv[0] is rm): every subset of its -r/-f (so
 * `rm -r:*` and `rm:*` match `rm -rf x`), with all operands, with them sorted, and with each
 * operand alone in its broad and `..`-resolved forms. `implyForce`: -r counts as -rf (without a
 * terminal, rm -r does not prompt), used for deny rules. Dynamic words arrive as their source text.
 */
export function rmRuleForms(argv: readonly string[], implyForce: boolean): string[][] {
  const name = argv[0] as string;
  const args = argv.slice(1);
  const a = parseRm(args);
  let r: boolean;
  let f: boolean;
  let ops: string[];
  if (a) {
    r = a.recursive;
    f = a.mode === 'force' || a.mode === 'never';
    ops = a.parsed.operands.map((o) => o ?? '');
  } else {
    // Options rm would refuse: read them leniently, so a rule still holds.
    const end = args.indexOf('--');
    const opts = (end < 0 ? args : args.slice(0, end)).filter((x) => x.startsWith('-') && x.length > 1);
    r = opts.some((x) => (x.startsWith('--') ? 'recursive'.startsWith(x.slice(2)) && x.length > 3 : /[rR]/.test(x)));
    f = opts.some((x) => (x.startsWith('--') ? 'force'.startsWith(x.slice(2)) && x.length > 3 : x.includes('f')));
    ops = args.filter((x, i) => !opts.includes(x) && !(x === '--' && i === end));
  }
  f ||= implyForce && r;
  const paths = ops.map((o) => broadPath(homeForm(o) ?? o));
  const sorted = [...paths].sort();
  const singles = new Set<string>();
  for (const p of paths) {
    singles.add(p);
    singles.add(lexicalPath(p));
  }
  const forms: string[][] = [];
  for (const [rr, ff] of [[r, f], [r, false], [false, f], [false, false]] as const) {
    if ((rr && !r) || (ff && !f)) continue;
    const flags = flagWord(rr, ff);
    forms.push([name, ...flags, ...paths]);
    if (paths.length > 1) forms.push([name, ...flags, ...sorted]);
    if (paths.length > 1 || lexicalPath(paths[0] ?? '') !== paths[0]) for (const p of singles) forms.push([name, ...flags, p]);
  }
  return dedupe(forms);
}

/** A rule's words (`rm -fr ~/`) in the broad canonical form its matching uses (`rm -rf ~`). */
export function rmRuleWords(words: readonly string[]): string[] {
  const args = words.slice(1);
  const a = parseRm(args);
  if (!a) return [...words];
  const ops = a.parsed.operands.map((o) => broadPath(homeForm(o ?? '') ?? o ?? '')).sort();
  return [words[0] as string, ...flagWord(a.recursive, a.mode === 'force' || a.mode === 'never'), ...ops];
}

function dedupe(forms: string[][]): string[][] {
  const seen = new Set<string>();
  return forms.filter((f) => {
    const k = f.join('\0');
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
