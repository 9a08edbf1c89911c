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
  if (/\b(system|getline|close|fflush)\b|[|>@]/.test(program)) {
    return 'runs an awk program that may write files or run commands';
  }
  return undefined;
}
