// Command-line options parsed the way the programs parse them: GNU getopt_long (a long option
// may be abbreviated to a unique prefix, `--opt=value` or `--opt value`, clustered short flags
// `-abc`, attached values `-n5`, options after operands, `--` ends them), git's parse-options,
// and exact-match parsers. A table lists every option a program has, marking the unsafe ones,
// so an abbreviation resolves as the program would resolve it; anything not in the table, and
// anything only known at run time where an option could be, is a problem (not read-only).
import type { Word } from '../parse/shell-parse.js';

export type Arg = string | undefined;
type Kind = 'none' | 'required' | 'optional';

export interface OptionSpec {
  readonly short: ReadonlyMap<string, Kind>;
  readonly long: ReadonlyMap<string, Kind>;
  /** Long names that are another name for the same option (`colour` → `color`): not ambiguous with it. */
  readonly alias: ReadonlyMap<string, string>;
  /** Option names (`-o`, `--output`) that write files or run programs. */
  readonly unsafe: ReadonlySet<string>;
  /** Long options may be abbreviated to a unique prefix (GNU getopt_long, git parse-options). */
  readonly prefixes: boolean;
  /** Options may follow operands (GNU argument permutation). */
  readonly permute: boolean;
  /** `-abc` means `-a -b -c`. */
  readonly cluster: boolean;
  /**
   * The table was written by hand (not read from the program): a value given as the next word
   * that looks like an option must also be acceptable as an option, whichever way it is read.
   */
  readonly strictValues: boolean;
  /** `-5`, `-20`: a number as an option (git log -5, git grep -3). */
  readonly numeric: boolean;
  /** No option writes or runs anything: words only known at run time cannot change that. */
  readonly allSafe: boolean;
}

export interface SpecFlags {
  prefixes?: boolean;
  permute?: boolean;
  cluster?: boolean;
  strictValues?: boolean;
  numeric?: boolean;
}

/**
 * Build a table. `shorts`: option letters, `x:` takes a value (attached or the next word),
 * `x::` an optional attached value; `longs`: names separated by blanks, `name=` takes a value,
 * `name[=]` an optional `=value`, `a/b` two names of one option. A leading `!` marks an unsafe option.
 */
export function spec(shorts: string, longs: string, flags: SpecFlags = {}): OptionSpec {
  const short = new Map<string, Kind>();
  const long = new Map<string, Kind>();
  const alias = new Map<string, string>();
  const unsafe = new Set<string>();
  let bad = false;
  for (let i = 0; i < shorts.length; i++) {
    const c = shorts[i] as string;
    if (c === ' ') continue;
    if (c === '!') { bad = true; continue; }
    let kind: Kind = 'none';
    if (shorts.startsWith('::', i + 1)) { kind = 'optional'; i += 2; } else if (shorts[i + 1] === ':') { kind = 'required'; i += 1; }
    short.set(c, kind);
    if (bad) unsafe.add(`-${c}`);
    bad = false;
  }
  for (const tok of longs.split(/\s+/).filter(Boolean)) {
    const m = /^(!?)(?:--)?([^=[\]]+)(=|\[=\])?$/.exec(tok);
    if (!m) throw new Error(`bad option spec ${tok}`);
    const names = (m[2] as string).split('/');
    for (const name of names) {
      long.set(name, m[3] === '=' ? 'required' : m[3] === '[=]' ? 'optional' : 'none');
      alias.set(name, names[0] as string);
      if (m[1]) unsafe.add(`--${name}`);
    }
  }
  return {
    short, long, alias, unsafe,
    prefixes: flags.prefixes ?? true,
    permute: flags.permute ?? true,
    cluster: flags.cluster ?? true,
    strictValues: flags.strictValues ?? false,
    numeric: flags.numeric ?? false,
    allSafe: unsafe.size === 0,
  };
}

export interface ParsedOption {
  /** Canonical name: `-o`, or the full long name `--output` even when abbreviated. */
  readonly name: string;
  readonly value?: Arg;
  /** The value was given (attached or as the next word). */
  readonly hasValue: boolean;
}

export interface Parsed {
  readonly options: ParsedOption[];
  readonly operands: Arg[];
  /** Where each operand is in the arguments. */
  readonly operandAt: number[];
  /** Index of the last argument that is an option or an option's value (-1 when none). */
  readonly lastOption: number;
  /** Some operand is only known at run time, or may be several words. */
  readonly operandsUnknown: boolean;
  /** Why the arguments cannot be judged (unknown option, run-time word where an option could be). */
  readonly problem?: string;
  /** The first unsafe option used, if any. */
  readonly unsafe?: string;
}

/** A word as an option parser sees it: undefined when it may be (or expand to) an option at run time. */
export interface OptWord {
  readonly value: Arg;
  /** May become several words (or none). */
  readonly multi: boolean;
}

/** A glob that starts with a pattern character may match a file named like an option (`*` → `-rf`). */
export function optWord(w: Word): OptWord {
  if (w.value === undefined) return { value: undefined, multi: w.split === true };
  if (w.glob) return { value: /^[*?[]/.test(w.value) ? undefined : w.value, multi: true };
  return { value: w.value, multi: false };
}

export const optWords = (words: readonly Word[]): OptWord[] => words.map(optWord);
export const staticWords = (args: readonly Arg[]): OptWord[] => args.map((value) => ({ value, multi: false }));

/** Resolve a long option name as getopt_long / parse-options would: exact match, else a unique prefix. */
export function resolveLong(s: OptionSpec, name: string): string | { problem: string } {
  if (s.long.has(name)) return name;
  if (!s.prefixes || name === '') return { problem: `uses an option ferret does not know (--${name})` };
  const hits: string[] = [];
  for (const k of s.long.keys()) if (k.startsWith(name)) hits.push(k);
  if (hits.length === 1 || new Set(hits.map((h) => s.alias.get(h))).size === 1) return hits[0] as string;
  if (hits.length === 0) return { problem: `uses an option ferret does not know (--${name})` };
  return { problem: `uses --${name}, which abbreviates several options (${hits.map((h) => `--${h}`).join(', ')})` };
}

/** Parse arguments (argv without the program name) against a table. */
export function parseOptions(args: readonly OptWord[], s: OptionSpec): Parsed {
  const options: ParsedOption[] = [];
  const operands: Arg[] = [];
  const operandAt: number[] = [];
  let lastOption = -1;
  let operandsUnknown = false;
  let unsafe: string | undefined;
  let ended = false;
  const operand = (a: Arg, i: number): void => {
    operands.push(a);
    operandAt.push(i);
  };
  const done = (problem?: string): Parsed => ({ options, operands, operandAt, lastOption, operandsUnknown, ...(problem ? { problem } : {}), ...(unsafe ? { unsafe } : {}) });
  const add = (name: string, value: Arg, hasValue: boolean): void => {
    options.push({ name, value, hasValue });
    if (unsafe === undefined && s.unsafe.has(name)) unsafe = name;
  };
  /** The next word as an option's value; undefined problem when it is fine. */
  const takeValue = (i: number): { value: Arg; problem?: string } => {
    const w = args[i];
    if (w === undefined) return { value: undefined };
    if (w.value === undefined && w.multi && !s.allSafe) return { value: undefined, problem: 'gives an option a value only known at run time, which may split into more options' };
    if (s.strictValues && w.value !== undefined && w.value.length > 1 && w.value.startsWith('-')) {
      const alt = parseOptions([w], s);
      if (alt.problem || alt.unsafe) return { value: w.value, problem: `gives an option the value ${w.value}, which could also be read as an option` };
    }
    return { value: w.value };
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as OptWord;
    const a = w.value;
    if (ended) {
      operand(a, i);
      if (a === undefined || w.multi) operandsUnknown = true;
      continue;
    }
    if (a === undefined) {
      if (!s.allSafe) return done('has an argument only known at run time where an option could be');
      operand(undefined, i);
      operandsUnknown = true;
      if (!s.permute) ended = true;
      continue;
    }
    if (a === '--') {
      ended = true;
      lastOption = i;
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      operand(a, i);
      if (w.multi) operandsUnknown = true;
      if (!s.permute) ended = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = resolveLong(s, a.slice(2, eq < 0 ? undefined : eq));
      if (typeof name !== 'string') return done(name.problem);
      const kind = s.long.get(name) as Kind;
      if (eq >= 0) {
        if (kind === 'none') return done(`gives --${name} a value it does not take`);
        add(`--${name}`, a.slice(eq + 1), true);
      } else if (kind === 'required') {
        const v = takeValue(i + 1);
        if (v.problem) return done(v.problem);
        add(`--${name}`, v.value, i + 1 < args.length);
        i++;
      } else add(`--${name}`, undefined, false);
      lastOption = Math.min(i, args.length - 1);
      continue;
    }
    if (s.numeric && /^-\d+$/.test(a)) {
      add('-NUM', a.slice(1), true);
      lastOption = i;
      continue;
    }
    {
      for (let k = 1; k < a.length; k++) {
        const c = a[k] as string;
        const kind = s.short.get(c);
        if (kind === undefined || (!s.cluster && k > 1)) return done(`uses an option ferret does not know (-${c}${k > 1 ? ` in ${a}` : ''})`);
        if (kind === 'none') {
          add(`-${c}`, undefined, false);
          continue;
        }
        const rest = a.slice(k + 1);
        if (kind === 'optional' || rest !== '') {
          add(`-${c}`, rest === '' ? undefined : rest, rest !== '');
        } else {
          const v = takeValue(i + 1);
          if (v.problem) return done(v.problem);
          add(`-${c}`, v.value, i + 1 < args.length);
          i++;
        }
        break;
      }
      lastOption = Math.min(i, args.length - 1);
    }
  }
  return done();
}

/** The values given to any of the named options, in order. */
export function valuesOf(p: Parsed, ...names: string[]): Arg[] {
  return p.options.filter((o) => names.includes(o.name)).map((o) => o.value);
}

export const hasOption = (p: Parsed, ...names: string[]): boolean => p.options.some((o) => names.includes(o.name));
