// sed and awk are small languages that can write files (`w`, `>`) and run commands (`e`,
// `system()`), so they count as read-only only when their program is visibly harmless.
import { hasOption, parseOptions, spec, staticWords, valuesOf } from './option-specs.js';

const ADDR = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
const RANGE = String.raw`(?:${ADDR}(?:,(?:${ADDR}|\+?\d+|~\d+))?)?!?`;
const PAT = String.raw`(?:[^/\\\n]|\\.)*`;
/** Print, delete, quit, hold-space and substitution commands without the `w` and `e` flags. */
const SAFE_SED = new RegExp(String.raw`^${RANGE}\s*(?:[pdqQ=lnNgGhHxDP]|s/${PAT}/${PAT}/[gpiIm0-9]*|y/${PAT}/${PAT}/)?$`);

/** GNU sed 4.9's options; `-i` edits files and `-f` runs a script file ferret cannot see. */
const SED = spec('nrsuzEb !i:: !f: e: l:', `quiet/silent debug expression= !file= follow-symlinks !in-place[=] line-length= null-data
  zero-terminated posix regexp-extended sandbox separate unbuffered binary help version`);

/** Why a sed invocation is not read-only, or undefined when it is. */
export function sedProblem(args: readonly string[]): string | undefined {
  const p = parseOptions(staticWords(args), SED);
  if (p.problem) return p.problem;
  if (p.unsafe) return p.unsafe === '-i' || p.unsafe === '--in-place' ? 'edits files in place (-i)' : 'runs a sed script read from a file';
  const given = valuesOf(p, '-e', '--expression');
  const scripts = given.length > 0 ? given : p.operands.slice(0, 1);
  if (hasOption(p, '--sandbox')) return undefined;
  const ok = scripts.every((s) => s !== undefined && s.split(/[;\n]/).every((cmd) => SAFE_SED.test(cmd.trim())));
  return ok ? undefined : 'runs a sed program that may write files or run commands';
}

/** Why an awk invocation is not read-only, or undefined when it is. */
export function awkProblem(args: readonly string[]): string | undefined {
  let program: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-F' || a === '-v') i++;
    else if (/^-[Fv]./.test(a)) continue;
    else if (a === '--') {
      program = args[i + 1];
      break;
    } else if (a.startsWith('-')) return `uses awk option ${a}`;
    else {
      program = a;
      break;
    }
  }
  if (program === undefined) return 'runs an awk program read from a file';
  return awkCodeProblem(program) ? 'runs an awk program that may write files or run commands' : undefined;
}

/**
 * True when an awk program may write a file or run a command: `system`, `getline`, `close`,
 * `fflush`, a pipe (`print | "cmd"`, `"cmd" | getline`, gawk's `|&`), gawk's `@` calls, or a
 * `>` that redirects output. Read with its string literals blanked, so text like `" | "` counts
 * for nothing (in a program without regex literals or comments); `||` is logical or; a `>` inside parentheses or in a pattern (outside any action)
 * compares, never redirects (awk's grammar: `print a > b` redirects, `print (a > b)` compares).
 */
function awkCodeProblem(program: string): boolean {
  let code = '';
  for (let i = 0; i < program.length; i++) {
    const c = program[i] as string;
    if (c !== '"') {
      code += c;
      continue;
    }
    // A string: to its closing quote, escapes skipped; one left open is not understood.
    let j = i + 1;
    while (j < program.length && program[j] !== '"') j += program[j] === '\\' ? 2 : 1;
    if (j >= program.length) return true;
    code += '""';
    i = j;
  }
  // A regex literal or a comment may hold a `"` that is no string: the first of them is outside
  // every string read so far, so it shows here; then the program is read without blanking.
  if (/[/#]/.test(code)) return /\b(system|getline|close|fflush)\b|[|>@]/.test(program);
  if (/\b(system|getline|close|fflush)\b|@/.test(code)) return true;
  let braces = 0;
  let parens = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '{') braces++;
    else if (c === '}') braces--;
    else if (c === '(') parens++;
    else if (c === ')') parens--;
    else if (c === '|') {
      if (code[i + 1] === '|') i++;
      else return true;
    } else if (c === '>' && braces > 0 && parens <= 0) return true;
  }
  return false;
}
