// sed and awk are small languages that can write files (`w`, `>`) and run commands (`e`,
// `system()`), so they count as read-only only when their program is visibly harmless.

const ADDR = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
const RANGE = String.raw`(?:${ADDR}(?:,(?:${ADDR}|\+?\d+|~\d+))?)?!?`;
const PAT = String.raw`(?:[^/\\\n]|\\.)*`;
/** Print, delete, quit, hold-space and substitution commands without the `w` and `e` flags. */
const SAFE_SED = new RegExp(String.raw`^${RANGE}\s*(?:[pdqQ=lnNgGhHxDP]|s/${PAT}/${PAT}/[gpiIm0-9]*|y/${PAT}/${PAT}/)?$`);

/** Why a sed invocation is not read-only, or undefined when it is. */
export function sedProblem(args: readonly string[]): string | undefined {
  const scripts: string[] = [];
  let explicit = false;
  let sandboxed = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-e' || a === '--expression') {
      scripts.push(args[++i] ?? '');
      explicit = true;
    } else if (a.startsWith('--expression=')) {
      scripts.push(a.slice('--expression='.length));
      explicit = true;
    } else if (a === '-i' || a.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(a)) {
      return 'edits files in place (-i)';
    } else if (a === '-f' || a.startsWith('--file') || /^-[a-zA-Z]*f/.test(a)) {
      return 'runs a sed script read from a file';
    } else if (a === '-l' || a === '--line-length') {
      i++;
    } else if (a === '--sandbox') {
      sandboxed = true;
    } else if (/^-[nErsuz]+$/.test(a) || /^--(quiet|silent|regexp-extended|posix|debug|null-data|separate|unbuffered)$/.test(a)) {
      continue;
    } else if (a.startsWith('-') && a !== '-') {
      return `uses sed option ${a}`;
    } else if (!explicit && scripts.length === 0) {
      scripts.push(a);
    }
  }
  if (sandboxed) return undefined;
  const ok = scripts.every((s) => s.split(/[;\n]/).every((cmd) => SAFE_SED.test(cmd.trim())));
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
