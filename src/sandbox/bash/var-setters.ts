// Ways a command sets a shell variable without `NAME=value`: read, printf -v, mapfile and
// readarray, getopts, wait -p, declare/typeset/local/export/readonly NAME, unset (a variable
// that disappears changes lookups too). The walker treats each target like an assignment
// (classify-decide.ts decideAssignment), so `read -r PATH <<< ./bin` is judged as `PATH=...`.
// for/select loops and `{fd}>file` redirections are read from the parse tree in the walker.
import type { Word } from './parse/shell-parse.js';

export interface Target {
  /** The variable's name as written (maybe with a subscript); undefined when only known at run time. */
  readonly name: string | undefined;
  /** The word that names it, for display. */
  readonly text: string;
  /** Its new value when it is static (`export NAME=value`). */
  readonly value?: string;
  /** The value's source text when it is not static (`$#` in `n=$#`). */
  readonly valueText?: string;
  /** The variable goes into the environment of the programs run after it. */
  readonly env?: boolean;
  /** The variable is removed rather than set. */
  readonly unset?: boolean;
  /** The name is only evaluated (`test -v NAME`), not set. */
  readonly named?: boolean;
}

/** Builtins that set variables named in their arguments. */
export const SETTERS = new Set(['read', 'printf', 'mapfile', 'readarray', 'getopts', 'wait', 'unset', 'declare', 'typeset', 'local', 'export', 'readonly', 'test', '[']);
export const DECLARERS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

interface Opts {
  /** Option letters that take a value (`-d delim`, `-ddelim`). */
  readonly values: string;
  /** Option letters whose value is a variable name. */
  readonly names: string;
}

/** Walk bash builtin options (`-rs`, `-d x`, `-dx`, `--`): names from options, and the first operand index. */
function builtinOptions(args: readonly Word[], o: Opts, targets: Target[]): number {
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i] as Word;
    const v = w.value;
    if (v === undefined) {
      targets.push({ name: undefined, text: w.text });
      continue;
    }
    if (v === '--') return i + 1;
    if (!v.startsWith('-') || v === '-') return i;
    for (let k = 1; k < v.length; k++) {
      const c = v[k] as string;
      if (!o.values.includes(c)) continue;
      const attached = v.slice(k + 1);
      const valueWord = attached === '' ? args[++i] : undefined;
      if (o.names.includes(c)) {
        const name = attached !== '' ? attached : valueWord?.value;
        targets.push({ name, text: attached !== '' ? v : valueWord?.text ?? v });
      }
      break;
    }
  }
  return i;
}

const names = (words: readonly Word[], extra: Partial<Target> = {}): Target[] => words.map((w) => ({ name: w.value, text: w.text, ...extra }));

/** Variables a builtin sets (or removes), or names it evaluates (`test -v`); [] for none. */
export function setterTargets(base: string, args: readonly Word[]): Target[] {
  const targets: Target[] = [];
  switch (base) {
    case 'read': {
      const at = builtinOptions(args, { values: 'adinNptu', names: 'a' }, targets);
      const rest = args.slice(at);
      return rest.length > 0 || targets.length > 0 ? [...targets, ...names(rest)] : [{ name: 'REPLY', text: 'read' }];
    }
    case 'printf':
      builtinOptions(args, { values: 'v', names: 'v' }, targets);
      return targets;
    case 'mapfile':
    case 'readarray': {
      const at = builtinOptions(args, { values: 'dnOsuCc', names: '' }, targets);
      const arr = args[at];
      return arr ? [...targets, { name: arr.value, text: arr.text }] : targets;
    }
    case 'getopts': {
      const name = args[1];
      return name ? [{ name: name.value, text: name.text }] : [];
    }
    case 'wait':
      builtinOptions(args, { values: 'p', names: 'p' }, targets);
      return targets;
    case 'unset': {
      const at = builtinOptions(args, { values: '', names: '' }, targets);
      const functions = args.slice(0, at).some((w) => /^-[a-z]*f/.test(w.value ?? ''));
      return functions ? targets : [...targets, ...names(args.slice(at), { unset: true })];
    }
    case 'test':
    case '[': {
      const out: Target[] = [];
      args.forEach((w, i) => {
        const next = args[i + 1];
        if ((w.value === '-v' || w.value === '-R') && next) out.push({ name: next.value, text: next.text, named: true });
      });
      return out;
    }
    default:
      return DECLARERS.has(base) ? declared(base, args) : [];
  }
}

/** `declare [-flags] NAME[=VALUE]...` given as plain words (a string, or after a wrapper like `command`). */
export function declared(base: string, args: readonly Word[]): Target[] {
  const out: Target[] = [];
  let env = base === 'export';
  /** `-f`, `-F`: the names are functions; `-p`: they are only printed. */
  let functions = false;
  for (const w of args) {
    const v = w.value;
    if (v === undefined) {
      // `"X=$y"`: the name is plain text inside the quotes even when the value is not.
      const m = /^["']?([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(w.text);
      out.push(m ? { name: m[1], text: w.text, ...(env ? { env } : {}) } : { name: undefined, text: w.text });
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(v)) {
      if (v.startsWith('-') && v.includes('x')) env = true;
      if (/[fFp]/.test(v)) functions = true;
      continue;
    }
    if (v === '--' || functions) continue;
    const eq = v.search(/\+?=/);
    const name = eq < 0 ? v : v.slice(0, eq);
    out.push({ name, text: w.text, ...(eq < 0 ? {} : { value: v.slice(v.indexOf('=', eq) + 1) }), ...(env ? { env } : {}) });
  }
  return out;
}

/** The variable part of `a[i]`. */
export const baseVar = (name: string): string => name.replace(/\[.*$/s, '');
