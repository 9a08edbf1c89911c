// Turning one simple command, one redirection or one assignment into a verdict item:
// deny/ask rules match broadly (every wrapper level and canonical spelling), allow rules
// narrowly (the innermost command), and built-in knowledge decides when no rule does.
import path from 'node:path';
import type { Judgement, Risk } from './knowledge/command-knowledge.js';
import { gitGlobals, ruleForms } from './knowledge/command-unwrap.js';
import { rmExactArgv } from './knowledge/rm-canon.js';
import { findRule, matchRule } from '../policy/rules.js';
import type { Rule, RuleSet } from '../policy/rules.js';
import { isOddChar } from './parse/shell-parse.js';
import type { Word } from './parse/shell-parse.js';

export interface Item {
  readonly action: 'allow' | 'ask' | 'deny';
  readonly risk: Risk;
  readonly reason: string;
  readonly rule?: string;
  readonly readOnly: boolean;
  readonly opaque?: boolean;
  /** Short display of what was judged, e.g. `git push origin`. */
  readonly label: string;
}

const RISK_RANK: Record<Risk, number> = { low: 0, medium: 1, high: 2 };
export const maxRisk = (a: Risk, b: Risk): Risk => (RISK_RANK[a] >= RISK_RANK[b] ? a : b);

/** Words as a person would type them; dynamic words keep their source text. */
export function label(words: readonly Word[]): string {
  return printable(words.map((w) => (w.value === undefined ? w.text : quote(w.value))).join(' '));
}

/** Shortened, with control and invisible characters shown as escapes (`\r`, `\u00a0`). */
export function printable(s: string): string {
  const short = s.length > 80 ? `${s.slice(0, 77)}...` : s;
  let out = '';
  for (const ch of short) {
    const code = ch.charCodeAt(0);
    if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else out += isOddChar(code) ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}

function quote(v: string): string {
  return /^[\w@%+=:,./~-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`;
}

export function hidden(source: string, phrase: string): Item {
  const what = printable(source);
  return { action: 'ask', risk: 'high', reason: `\`${what}\` ${phrase}.`, readOnly: false, opaque: true, label: what };
}

type Arg = string | undefined;

/**
 * A bash rule against one spelling of argv. Unknown words (undefined) match any rule word, and
 * with `openTail` the command gets more words at run time (`xargs`), so a shorter argv may match.
 */
function matchLoose(rule: Rule, argv: readonly Arg[], openTail: boolean): boolean {
  if (rule.tool !== 'bash') return false;
  if (rule.kind === 'any') return true;
  const fits = (words: readonly string[]): boolean => {
    if (argv.length < words.length && !openTail) return false;
    if (rule.kind === 'exact' && (openTail ? argv.length > words.length : argv.length !== words.length)) return false;
    return words.every((w, i) => i >= argv.length || argv[i] === undefined || argv[i] === w);
  };
  return fits(rule.words ?? []) || (rule.canon !== undefined && fits(rule.canon.broad));
}

/** The first rule, in list order, that matches any of the spellings. */
function firstHit(rules: readonly Rule[], forms: readonly (readonly string[])[], spelling: 'broad' | 'exact'): Rule | undefined {
  return rules.find((r) => forms.some((argv) => matchRule(r, 'bash', { argv }, spelling)));
}

function firstLoose(rules: readonly Rule[], forms: readonly (readonly Arg[])[], openTail: boolean): Rule | undefined {
  return rules.find((r) => forms.some((argv) => matchLoose(r, argv, openTail)));
}

export interface CommandFacts {
  /** levels[0] is the full argv, the last one the innermost command after wrappers. */
  readonly levels: readonly (readonly Word[])[];
  readonly judgement: Judgement;
  readonly privileged: boolean;
  readonly extraArgs: boolean;
}

/** Every spelling deny/ask rules are tried on: each wrapper level, canonical forms, and for
 * programs that run their arguments (`ssh host git push`) every suffix of the innermost argv. */
function broadForms<T extends Arg>(levels: readonly (readonly T[])[], argsMayRun: boolean, implyForce = false): Arg[][] {
  const forms = levels.flatMap((l) => ruleForms(l, implyForce));
  const inner = levels[levels.length - 1] ?? [];
  if (argsMayRun) {
    for (let i = 1; i < inner.length; i++) {
      const w = inner[i];
      if (w !== undefined && !w.startsWith('-')) forms.push(...ruleForms(inner.slice(i), implyForce));
    }
  }
  return forms;
}

/**
 * For programs that run their arguments: words inside one argument (`ssh host 'git push'`,
 * `script -c 'rm -rf /'`), split at blanks and shell operators. A guess, so it can only
 * make a command ask, never be refused outright.
 */
function stringForms(inner: readonly Arg[], implyForce: boolean): Arg[][] {
  const forms: Arg[][] = [];
  for (const value of inner.slice(1)) {
    if (value === undefined || !/[\s;&|()`$]/.test(value)) continue;
    const tokens = value.split(/[\s;&|()`$]+/).filter(Boolean);
    tokens.forEach((t, i) => {
      if (!t.startsWith('-')) forms.push(...ruleForms(tokens.slice(i), implyForce));
    });
  }
  return forms;
}

export function decideCommand(rules: RuleSet, f: CommandFacts): Item {
  const strs = f.levels.map((l) => l.map((w) => w.value ?? w.text));
  const loose = f.levels.map((l) => l.map((w) => (w.glob ? undefined : w.value)));
  const full = strs[0] ?? [];
  const inner = strs[strs.length - 1] ?? [];
  const j = f.judgement;
  const what = label(f.levels[0] ?? []);
  const strict = broadForms(strs, j.argsMayRun === true) as string[][];
  // Deny rules read `rm -r` as `rm -rf`: without a terminal rm does not prompt, so they delete alike.
  const rm = strs.some((l) => l.some((w) => w.includes('rm')));
  const strictDeny = rm ? (broadForms(strs, j.argsMayRun === true, true) as string[][]) : strict;
  const unsure = broadForms(loose, j.argsMayRun === true);
  const unsureDeny = rm ? broadForms(loose, j.argsMayRun === true, true) : unsure;
  if (j.argsMayRun) {
    unsure.push(...stringForms(loose[loose.length - 1] ?? [], false));
    if (unsureDeny !== unsure) unsureDeny.push(...stringForms(loose[loose.length - 1] ?? [], true));
  }
  const base = { readOnly: j.readOnly, label: what };
  const deny = firstHit(rules.deny, strictDeny, 'broad');
  if (deny) return { ...base, action: 'deny', risk: 'high', rule: deny.text, reason: `Rule ${deny.text} refuses \`${what}\`.` };
  const ask = firstHit(rules.ask, strict, 'broad') ?? firstLoose(rules.ask, unsure, f.extraArgs);
  const mayDeny = firstLoose(rules.deny, unsureDeny, f.extraArgs);
  if (mayDeny) {
    const reason = `\`${what}\` may run a command that rule ${mayDeny.text} refuses, which cannot be checked before it runs.`;
    return { ...base, action: 'ask', risk: 'high', rule: mayDeny.text, reason, readOnly: false, opaque: true };
  }
  if (ask) {
    const reason = j.readOnly ? `Rule ${ask.text} asks before \`${what}\`.` : `\`${what}\` ${j.phrase}; rule ${ask.text} asks first.`;
    return { ...base, action: 'ask', risk: maxRisk(j.risk, 'medium'), rule: ask.text, reason, ...(j.hidden ? { opaque: true } : {}) };
  }
  if (j.hidden) return { ...base, action: 'ask', risk: 'high', reason: `\`${what}\` ${j.phrase}.`, opaque: true };
  const allow = firstHit(rules.allow.filter((r) => r.kind !== 'exact' || !f.extraArgs), narrowForms(f, full, inner), 'exact')
    ?? firstHit(rules.allow.filter((r) => r.kind === 'exact'), [full], 'exact');
  if (allow) return { ...base, action: 'allow', risk: j.risk, rule: allow.text, reason: `Rule ${allow.text} allows \`${what}\`.` };
  return { ...base, action: j.readOnly ? 'allow' : 'ask', risk: j.risk, reason: `\`${what}\` ${j.phrase}.` };
}

/** Allow rules see the innermost command (git without harmless global options); under sudo, only the whole line. */
function narrowForms(f: CommandFacts, full: string[], inner: string[]): string[][] {
  if (f.privileged) return [full];
  const forms = [inner];
  if (inner[0] === 'git') {
    const { sub, risky } = gitGlobals(inner);
    if (risky.length === 0 && sub > 1) forms.push(['git', ...inner.slice(sub)]);
  }
  const rm = inner[0] === 'rm' && f.levels[f.levels.length - 1]?.every((w) => w.value !== undefined && !w.glob) ? rmExactArgv(inner) : undefined;
  if (rm) forms.push(rm);
  return forms;
}

const SENSITIVE = /(^|\/)\.(git|ferret|chimera|ssh|gnupg|aws|config|vscode|claude|codex)(\/|$)|(^|\/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|envrc|gitconfig|npmrc)$/;

/** A redirection that writes: judged by write_file rules, else asked (high when outside the workspace). */
export function decideWrite(rules: RuleSet, target: Word, op: string): Item {
  const v = target.value;
  const what = `${op} ${target.text}`;
  if (v === undefined || target.glob) {
    return { action: 'ask', risk: 'medium', readOnly: false, label: what, reason: `Writes to a file only known at run time (${what}).` };
  }
  const norm = target.tilde || v.startsWith('~') ? v : path.posix.normalize(v);
  const outside = target.tilde || norm.startsWith('/') || norm === '..' || norm.startsWith('../');
  const hit = findRule(rules, 'write_file', { path: norm });
  const base = { readOnly: false, label: what, ...(hit ? { rule: hit.rule.text } : {}) };
  if (hit?.list === 'deny') return { ...base, action: 'deny', risk: 'high', reason: `Rule ${hit.rule.text} refuses writing ${v}.` };
  if (hit?.list === 'allow') return { ...base, action: 'allow', risk: 'low', reason: `Rule ${hit.rule.text} allows writing ${v}.` };
  // A bare `bash` allow rule trusts every command, redirections included.
  const anyBash = rules.allow.find((r) => r.tool === 'bash' && r.kind === 'any');
  if (anyBash) return { ...base, rule: anyBash.text, action: 'allow', risk: 'low', reason: `Rule ${anyBash.text} allows writing ${v}.` };
  const risk = outside || SENSITIVE.test(norm) ? 'high' : 'medium';
  const where = outside ? ', outside the workspace' : '';
  return { ...base, action: 'ask', risk, reason: `Writes ${v} by redirection${where}.` };
}

/** Variables that change which program runs or what it loads. */
const RISKY_VAR = /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|BASH_FUNC_\w*|IFS|PS[0-4]|PROMPT_COMMAND|EXECIGNORE|BASH_LOADABLES_PATH|SHELLOPTS|BASHOPTS|CDPATH|GLOBIGNORE|HOME|XDG_\w+|GIT_\w+|PAGER|MANPAGER|LESSOPEN|LESSCLOSE|EDITOR|VISUAL|BROWSER|NODE_OPTIONS|NODE_PATH|NPM_CONFIG_\w+|npm_config_\w+|PYTHON\w*|PERL5\w*|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|\w*ASKPASS|SHELL|TMPDIR|GCONV_PATH|RIPGREP_CONFIG_PATH|TAR_OPTIONS|GREP_OPTIONS)$/;
/** A name whose value changes which program runs or what it loads, however it is set. */
export const isRiskyVar = (name: string): boolean => RISKY_VAR.test(name);
/** Variables known not to change what a program runs, safe to pass in a command's environment. */
const HARMLESS_ENV = /^(LANG|LANGUAGE|LC_\w+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|COLUMNS|LINES|TERM|COLORTERM|CI|DEBUG|NODE_ENV|RUST_BACKTRACE|RUST_LOG|LS_COLORS|TIME_STYLE|QUOTING_STYLE|POSIXLY_CORRECT|GREP_COLORS?|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|GIT_TERMINAL_PROMPT|GIT_OPTIONAL_LOCKS)$/;

/**
 * An assignment; undefined when harmless. `standalone` is a shell variable (`x=1`); `env` goes
 * into a program's environment (`FOO=1 cmd`, `export FOO=1`, `env FOO=1 cmd`), where only
 * known-harmless names pass without asking.
 */
export function decideAssignment(name: string, value: string | undefined, mode: 'standalone' | 'env'): Item | undefined {
  const what = `${name}=${value ?? '…'}`;
  const pagerIsCat = /^(GIT_PAGER|PAGER|MANPAGER)$/.test(name) && (value === 'cat' || value === '');
  const base = { action: 'ask', readOnly: false, label: what } as const;
  if (pagerIsCat || HARMLESS_ENV.test(name)) return undefined;
  if (RISKY_VAR.test(name)) return { ...base, risk: 'high', reason: `Sets ${name}, which can change what later commands run.` };
  if (mode === 'env') return { ...base, risk: 'medium', reason: `Passes ${name} to a program's environment, which may change what it does.` };
  if (holdsCode(value)) return { ...base, risk: 'medium', reason: `Stores shell code in ${name}, which arithmetic or eval could run.` };
  return undefined;
}

const holdsCode = (value: string | undefined): boolean => value !== undefined && /\$\(|`/.test(value);
