// Commands that run other code: shells (`bash -c`, scripts on stdin), `eval`, `trap`, `watch`,
// `su -c`, `find -exec`, and language interpreters. Shell code we can see is handed back for
// parsing; code we cannot see (stdin, run-time strings) is reported so it is never auto-allowed.
import { baseName } from './knowledge/command-unwrap.js';
import { isVersionQuery } from './knowledge/command-knowledge.js';
import type { Judgement } from './knowledge/command-knowledge.js';
import type { Word } from './parse/shell-parse.js';

export interface NestedCode {
  /** Shell source to parse and judge like the outer command (`bash -c '...'`). */
  readonly scripts: Array<{ source: string; bashLike: boolean }>;
  /** Commands given as words (`find -exec rm {} ;`). */
  readonly argvs: Word[][];
  /** How to judge the outer command itself; undefined = ordinary built-in knowledge. */
  readonly outer?: Judgement;
  /** Judge this argv instead of the original (`find` without its `-exec` parts). */
  readonly outerArgv?: Word[];
  /** Code that cannot be seen before it runs. */
  readonly hidden?: string;
}

/** What the command reads on standard input, when that matters for shells. */
export interface Stdin {
  /** A here-document or here-string with a static body. */
  readonly text?: string;
  /** Piped from a downloader such as curl. */
  readonly download?: string;
}

const NEUTRAL: Judgement = { readOnly: true, risk: 'low', phrase: 'runs the shell code shown' };
const SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'yash', 'zsh', 'fish', 'csh', 'tcsh']);
const BASH_LIKE = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'yash']);
const INTERPRETER = /^(python[0-9.]*|node|nodejs|perl|ruby|php|lua(jit)?|Rscript|tclsh|pwsh|powershell|osascript)$/;
const INLINE_OPTS = new Set(['-c', '-e', '-E', '--eval', '-p', '--print', '-r', '-Command', '-command', '-m']);

const empty = (): { scripts: NestedCode['scripts']; argvs: Word[][] } => ({ scripts: [], argvs: [] });

export function nestedCode(argv: readonly Word[], stdin: Stdin): NestedCode | undefined {
  const name = argv[0]?.value;
  if (name === undefined) return undefined;
  const base = baseName(name);
  const args = argv.slice(1);
  if (isVersionQuery(base, args)) return undefined;
  if (SHELLS.has(base)) return shellCode(base, args, stdin);
  if (INTERPRETER.test(base)) return interpreterCode(base, args, stdin);
  if (base === 'eval') {
    const src = staticJoin(args);
    const outer: Judgement = { readOnly: false, risk: 'high', phrase: 'evaluates a string as shell code' };
    if (src === undefined) return { ...empty(), outer, hidden: 'evaluates shell code only known at run time' };
    return { ...empty(), scripts: [{ source: src, bashLike: true }], outer };
  }
  if (base === 'coproc') {
    // tree-sitter-bash misreads `coproc NAME { ...; }`; judge the words, but never auto-allow.
    return { ...empty(), argvs: args.length > 0 ? [args] : [], hidden: 'runs a coprocess, which the parser does not fully understand' };
  }
  if (base === 'trap') return trapCode(args);
  if (base === 'alias') return aliasCode(args);
  if (base === 'watch') return watchCode(args);
  if (base === 'su') return suCode(args);
  if (base === 'find') return findExec(argv);
  if (base === 'jobs') {
    // `jobs -x cmd args` runs cmd with job specs replaced by process group ids.
    const x = args.findIndex((w) => w.value === undefined || /^-[a-z]*x/.test(w.value));
    if (x < 0) return undefined;
    const rest = args.slice(x + 1);
    if (args[x]?.value === undefined || rest[0]?.value === undefined) return { ...empty(), hidden: 'runs a command only known at run time (jobs -x)' };
    return { ...empty(), outer: NEUTRAL, argvs: [rest] };
  }
  if (base === 'source' || base === '.') {
    const file = args[0]?.value;
    if (file === undefined) return { ...empty(), hidden: 'runs a file whose name is only known at run time' };
    if (/^(-|\/dev\/(stdin|fd\/\d+)|\/proc\/self\/fd\/\d+)$/.test(file)) return { ...empty(), hidden: 'runs code read from standard input' };
  }
  return undefined;
}

function staticJoin(words: readonly Word[]): string | undefined {
  const parts = words.map((w) => w.value);
  return parts.every((p): p is string => p !== undefined) ? parts.join(' ') : undefined;
}

function shellCode(base: string, args: readonly Word[], stdin: Stdin): NestedCode {
  const bashLike = BASH_LIKE.has(base);
  let command = false;
  let readsStdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]?.value;
    if (v === undefined) return { ...empty(), hidden: `gives ${base} options only known at run time` };
    if (v === '-' || v === '--') { readsStdin = v === '-'; i++; break; }
    if (/^--(rcfile|init-file)$/.test(v) || /^[-+][a-zA-Z]*[oO]$/.test(v)) { i++; continue; }
    if (v.startsWith('--') || (/^[-+]/.test(v) && v.length > 1)) {
      if (/^-[a-zA-Z]*c/.test(v)) command = true;
      if (/^-[a-zA-Z]*s/.test(v)) readsStdin = true;
      continue;
    }
    break;
  }
  const target = args[i];
  if (command) {
    if (target?.value === undefined) return { ...empty(), outer: NEUTRAL, hidden: `runs ${base} code only known at run time` };
    return { ...empty(), outer: NEUTRAL, scripts: [{ source: target.value, bashLike }] };
  }
  if (target && !readsStdin && target.value !== '/dev/stdin') {
    if (target.value === undefined) return { ...empty(), hidden: `runs a ${base} script only known at run time` };
    return { ...empty(), outer: { readOnly: false, risk: 'medium', phrase: `runs the script ${target.value}` } };
  }
  return fromStdin(base, stdin, bashLike);
}

function fromStdin(base: string, stdin: Stdin, bashLike: boolean): NestedCode {
  if (stdin.text !== undefined && bashLike) return { ...empty(), outer: NEUTRAL, scripts: [{ source: stdin.text, bashLike }] };
  const what = stdin.download ? `code downloaded by ${stdin.download}` : 'code read from standard input';
  return { ...empty(), hidden: `runs ${what} (${stdin.download ? `${stdin.download} | ${base}` : base})` };
}

function interpreterCode(base: string, args: readonly Word[], stdin: Stdin): NestedCode | undefined {
  for (const w of args) {
    const v = w.value;
    if (v === undefined) return { ...empty(), hidden: `runs ${base} code only known at run time` };
    if (INLINE_OPTS.has(v) || /^--(eval|print)=/.test(v) || /^-[a-zA-Z]*[ceE]$/.test(v)) {
      return { ...empty(), outer: { readOnly: false, risk: 'medium', phrase: `runs inline ${base} code` } };
    }
    if (v === '-') break;
    if (v.startsWith('-')) continue;
    return { ...empty(), outer: { readOnly: false, risk: 'medium', phrase: `runs the ${base} script ${v}` } };
  }
  return fromStdin(base, stdin, false);
}

function trapCode(args: readonly Word[]): NestedCode {
  const first = args[0];
  if (!first || (first.value?.startsWith('-') ?? false)) return { ...empty(), outer: NEUTRAL };
  if (first.value === undefined) return { ...empty(), hidden: 'sets a trap whose code is only known at run time' };
  return { ...empty(), outer: NEUTRAL, scripts: [{ source: first.value, bashLike: true }] };
}

function aliasCode(args: readonly Word[]): NestedCode {
  const scripts: NestedCode['scripts'] = [];
  for (const w of args) {
    if (w.value === undefined) return { ...empty(), hidden: 'defines an alias only known at run time' };
    const eq = w.value.indexOf('=');
    if (eq > 0) scripts.push({ source: w.value.slice(eq + 1), bashLike: true });
  }
  return { ...empty(), outer: NEUTRAL, scripts };
}

function watchCode(args: readonly Word[]): NestedCode {
  let i = 0;
  let exec = false;
  for (; i < args.length; i++) {
    const v = args[i]?.value;
    if (v === undefined || !v.startsWith('-')) break;
    if (v === '-x' || v === '--exec') exec = true;
    if (/^-[a-zA-Z]*[nq]$/.test(v) || v === '--interval') i++;
  }
  const rest = args.slice(i);
  if (exec) return { ...empty(), outer: NEUTRAL, argvs: rest.length ? [rest] : [] };
  const src = staticJoin(rest);
  if (src === undefined) return { ...empty(), hidden: 'watches a command only known at run time' };
  return { ...empty(), outer: NEUTRAL, scripts: [{ source: src, bashLike: true }] };
}

function suCode(args: readonly Word[]): NestedCode | undefined {
  const k = args.findIndex((w) => w.value === '-c' || w.value === '--command');
  if (k < 0) return undefined;
  const code = args[k + 1]?.value;
  if (code === undefined) return { ...empty(), hidden: 'runs code only known at run time as another user' };
  return { ...empty(), scripts: [{ source: code, bashLike: true }] };
}

/** Split `find ... -exec cmd {} ;` into find itself and the commands it runs. */
function findExec(argv: readonly Word[]): NestedCode | undefined {
  const outerArgv: Word[] = [];
  const argvs: Word[][] = [];
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i] as Word;
    if (!/^-(exec|execdir|ok|okdir)$/.test(w.value ?? '')) {
      outerArgv.push(w);
      continue;
    }
    const cmd: Word[] = [];
    for (i++; i < argv.length && !/^[;+]$/.test(argv[i]?.value ?? ''); i++) cmd.push(argv[i] as Word);
    if (cmd.length === 0 || cmd[0]?.value === undefined) return { ...empty(), hidden: 'find runs a command only known at run time' };
    argvs.push(cmd);
  }
  return argvs.length ? { ...empty(), argvs, outerArgv } : undefined;
}
