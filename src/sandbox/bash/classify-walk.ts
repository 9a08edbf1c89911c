// Walks a bash parse tree and finds everything that runs or writes: every simple command
// (in lists, pipelines, subshells, groups, loops, functions, substitutions, here-docs),
// every writing redirection and every risky assignment, recursing into nested shell code.
import { arithGap, isLiteralArith } from './parse/arith-contexts.js';
import { decideCommand, decideWrite, hidden, label, maxRisk, printable } from './classify-decide.js';
import type { Item } from './classify-decide.js';
import { isSystemName, judgeArgv } from './knowledge/command-knowledge.js';
import type { Judgement } from './knowledge/command-knowledge.js';
import { baseName, unwrap } from './knowledge/command-unwrap.js';
import { nestedCode } from './nested-code.js';
import { argsHoldCode, backquoteBody, parseGap } from './parse/parse-gaps.js';
import type { Stdin } from './nested-code.js';
import type { RuleSet } from '../policy/rules.js';
import { hasOddChars, wordOf } from './parse/shell-parse.js';
import type { ParseFn, SNode, Word } from './parse/shell-parse.js';
import { DECLARERS, SETTERS, declared, setterTargets } from './var-setters.js';
import { VarTracker } from './var-tracker.js';

export type { Item } from './classify-decide.js';

const MAX_DEPTH = 4;
const MAX_LENGTH = 16_384;
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const WRITE_OPS = new Set(['>', '>>', '&>', '&>>', '>|']);
const SAFE_SINKS = /^\/dev\/(null|stdout|stderr)$/;
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request']);

interface Ctx {
  readonly depth: number;
  readonly bashLike: boolean;
  /** The parsed source the nodes' offsets point into (for checks that look beyond one node). */
  readonly source?: string;
  readonly download?: string;
  /** Assignments here go into a program's environment (`FOO=1 cmd`, `export FOO=1`). */
  readonly env?: boolean;
  /** Assignments here declare integer variables (`declare -i x=...`). */
  readonly integer?: boolean;
  /** Assignments here prefix this builtin (`IFS= read -r line`). */
  readonly prefixOf?: string;
}

/** Builtins for which an `IFS=...` prefix only changes how they split what they read. */
const IFS_READERS = new Set(['read', 'mapfile', 'readarray']);
/** `{fd}>file`: bash stores the new file descriptor's number in the variable. */
const FD_VAR = /^\{([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\}$/;

export class ShellWalk {
  readonly items: Item[] = [];
  readonly commands: string[][] = [];
  private readonly vars = new VarTracker((item) => this.items.push(item));

  constructor(private readonly parse: ParseFn, private readonly rules: RuleSet) {}

  /** Findings that need the whole command (integer variables given run-time values). */
  finish(): void {
    this.vars.finish();
  }

  /** Judge a piece of shell source; nested code (bash -c, eval) comes back here one level deeper. */
  script(source: string, depth: number, bashLike: boolean): void {
    const what = source;
    if (depth > MAX_DEPTH) return void this.items.push(hidden(what, 'nests shell code too deeply to judge'));
    if (source.length > MAX_LENGTH) return void this.items.push(hidden(what, 'is too long to judge'));
    if (hasOddChars(source)) {
      return void this.items.push(hidden(what, 'contains control or unusual space characters that shells and parsers read differently'));
    }
    const parsed = this.parse(source);
    if (!parsed.ok) return void this.items.push(hidden(what, `cannot be judged: ${parsed.reason}`));
    const from = this.items.length;
    this.walk(parsed.root, { depth, bashLike, source: parsed.source });
    if (!bashLike) this.capForeignShell(from);
  }

  /** zsh/fish code parsed with the bash grammar may mean something else: never auto-allow it. */
  private capForeignShell(from: number): void {
    for (let i = from; i < this.items.length; i++) {
      const it = this.items[i] as Item;
      if (it.action === 'allow') {
        this.items[i] = { ...it, action: 'ask', risk: maxRisk(it.risk, 'medium'), readOnly: false, reason: `\`${it.label}\` runs in a shell whose syntax is not fully understood.` };
      }
    }
  }

  private walk(node: SNode, ctx: Ctx): void {
    const gap = parseGap(node);
    if (gap) this.items.push(hidden(node.text, gap));
    const arith = arithGap(node, ctx.source);
    if (arith) this.items.push(evaluates(node.text, arith));
    switch (node.type) {
      case 'command':
        return this.command(node, [], ctx);
      case 'redirected_statement': {
        const body = node.children.find((c) => c.named && !REDIRECTS.has(c.type));
        const redirs = node.children.filter((c) => REDIRECTS.has(c.type));
        if (body?.type === 'command') this.command(body, redirs, ctx);
        else if (body) {
          this.walk(body, ctx);
          if (redirs.some((r) => redirectArgs(r).length > 0)) this.items.push(hidden(node.text, 'has words after a redirection that the parser cannot place'));
        }
        for (const r of redirs) this.walk(r, ctx);
        return;
      }
      case 'file_redirect':
        this.redirect(node);
        return this.children(node, ctx);
      case 'variable_assignment': {
        const target = node.children[0];
        const name = target?.type === 'subscript' ? target.children.find((c) => c.type === 'variable_name')?.text : target?.text;
        const valueNode = node.children.find((c, i) => i > 1 && c.named);
        const value = valueNode ? wordOf(valueNode).value : '';
        if (ctx.integer && name !== undefined) this.vars.integer(name);
        const ifsPrefix = name === 'IFS' && ctx.env && IFS_READERS.has(ctx.prefixOf ?? '') && value !== undefined && !/[$`]/.test(value);
        const valueText = value === undefined && valueNode ? { valueText: valueNode.text } : {};
        if (name !== undefined && !ifsPrefix) this.vars.set({ name, text: node.text, value, ...valueText, ...(ctx.env ? { env: true } : {}) }, node.text);
        return this.children(node, { depth: ctx.depth, bashLike: ctx.bashLike, ...(ctx.download ? { download: ctx.download } : {}) });
      }
      case 'declaration_command':
        return this.declaration(node, ctx);
      case 'unset_command': {
        const words = node.children.filter((c) => c.named && c.type !== 'comment').map((c) => (c.type === 'variable_name' ? { text: c.text, value: c.text, glob: false, tilde: false } : wordOf(c)));
        for (const t of setterTargets('unset', words)) this.vars.set(t, node.text);
        return this.children(node, ctx);
      }
      case 'for_statement':
        this.loopVariable(node);
        return this.children(node, ctx);
      case 'expansion': {
        // `${NAME:=value}`, `${NAME=value}` assign NAME when it is unset (or empty).
        const at = node.children.findIndex((c) => c.type === ':=' || c.type === '=');
        const name = at > 0 ? node.children[at - 1] : undefined;
        if (name?.type === 'variable_name') {
          const value = node.children[at + 1];
          const v = value && value.type !== '}' ? wordOf(value).value : '';
          this.vars.set({ name: name.text, text: node.text, ...(v !== undefined ? { value: v } : {}) }, node.text);
        }
        return this.children(node, ctx);
      }
      case 'pipeline':
        return this.pipeline(node, ctx);
      case 'command_substitution': {
        // Escaped backquotes nest: bash re-reads the body, so judge it as bash would read it.
        const body = backquoteBody(node);
        return body === undefined ? this.children(node, ctx) : this.script(body, ctx.depth + 1, ctx.bashLike);
      }
      case 'comment':
        return;
      default:
        return this.children(node, ctx);
    }
  }

  private children(node: SNode, ctx: Ctx): void {
    const inner = ctx.env ? { ...ctx, env: false } : ctx;
    for (const c of node.children) this.walk(c, c.type === 'variable_assignment' ? ctx : inner);
  }

  /** Later stages of `curl ... | sh` are told what feeds them, for the reason text. */
  private pipeline(node: SNode, ctx: Ctx): void {
    let download = ctx.download;
    for (const stage of node.children) {
      this.walk(stage, download === undefined ? ctx : { ...ctx, download });
      const cmd = stage.type === 'command' ? stage : stage.children.find((c) => c.type === 'command');
      const head = cmd?.children.find((c) => c.type === 'command_name')?.children[0];
      const name = head ? wordOf(head).value : undefined;
      if (name !== undefined && DOWNLOADERS.has(baseName(name))) download = baseName(name);
    }
  }

  private redirect(node: SNode): void {
    const op = node.children.find((c) => !c.named)?.type ?? '';
    const dest = node.children.find((c) => c.named && c.type !== 'file_descriptor');
    if (!dest) return;
    const target = wordOf(dest);
    if (/^\/dev\/(tcp|udp)\//.test(target.value ?? '')) {
      return void this.items.push({ ...hidden(`${op} ${dest.text}`, 'opens a network connection through bash'), opaque: false });
    }
    const dup = op === '>&' && /^(\d+|-)$/.test(dest.text);
    if (!WRITE_OPS.has(op) && (op !== '>&' || dup)) return;
    if (target.value !== undefined && SAFE_SINKS.test(target.value)) return;
    this.items.push(decideWrite(this.rules, target, op));
  }

  /** One simple command: words in source order, including words tree-sitter files under a redirection. */
  private command(node: SNode, siblingRedirs: readonly SNode[], ctx: Ctx): void {
    const words: Word[] = [];
    const redirs: SNode[] = [];
    const redirAt = (pos: number): boolean => siblingRedirs.some((r) => r.start === pos) || node.children.some((r) => r.start === pos && REDIRECTS.has(r.type));
    for (const c of node.children) {
      if (REDIRECTS.has(c.type)) {
        redirs.push(c);
        words.push(...redirectArgs(c).map(wordOf));
      } else if (c.type === 'command_name') {
        const head = c.children.find((x) => x.named);
        if (head) words.push(wordOf(head));
      } else if (c.named && c.type !== 'variable_assignment' && c.type !== 'comment') {
        const fd = c.text.startsWith('{') && redirAt(c.end) ? FD_VAR.exec(c.text) : null;
        if (fd) this.vars.set({ name: fd[1], text: c.text, value: '10' }, `${c.text}>`);
        else words.push(wordOf(c));
      }
    }
    for (const r of siblingRedirs) words.push(...redirectArgs(r).map(wordOf));
    if (words.length > 0) this.simple(words, { ...stdinOf([...redirs, ...siblingRedirs]), ...(ctx.download ? { download: ctx.download } : {}) }, ctx);
    const prefixOf = words[0]?.value;
    const assignCtx: Ctx = { ...ctx, env: true, ...(prefixOf !== undefined ? { prefixOf } : {}) };
    const otherCtx: Ctx = { ...ctx, env: false };
    for (const c of node.children) this.walk(c, c.type === 'variable_assignment' ? assignCtx : otherCtx);
  }

  /** `declare -i x=1 y`, `export PATH`, `local -n ref=x`, `declare "PATH=./bin"`. */
  private declaration(node: SNode, ctx: Ctx): void {
    const keyword = node.children[0]?.type ?? '';
    const flagWords = node.children.filter((c) => c.type === 'word' && /^[-+][a-zA-Z]+$/.test(c.text)).map((c) => c.text);
    const flags = flagWords.filter((f) => f.startsWith('-')).join('');
    const exported = keyword === 'export' || flags.includes('x');
    if (flags.includes('n')) this.items.push(evaluates(node.text, 'declares a name reference, through which later commands set or read a variable named at run time'));
    const printing = /[pfF]/.test(flags);
    const others: Word[] = [];
    for (const c of node.children) {
      if (!c.named || c.type === 'variable_assignment' || c.type === 'comment' || flagWords.includes(c.text)) continue;
      if (c.type === 'variable_name') {
        if (flags.includes('i')) this.vars.integer(c.text);
        if (!printing) this.vars.set({ name: c.text, text: c.text, valueText: '', ...(exported ? { env: true } : {}) }, node.text);
      } else others.push(wordOf(c));
    }
    if (!printing) for (const t of declared(keyword, others)) this.vars.set(exported ? { ...t, env: true } : t, node.text);
    this.children(node, { ...ctx, env: exported, ...(flags.includes('i') ? { integer: true } : {}) });
  }

  /** `for NAME in ...` and `select NAME in ...` set NAME to each word. */
  private loopVariable(node: SNode): void {
    const name = node.children.find((c) => c.type === 'variable_name');
    if (!name) return;
    const inAt = node.children.findIndex((c) => c.type === 'in');
    const items = inAt < 0 ? [] : node.children.slice(inAt + 1).filter((c) => c.named && c.type !== 'do_group' && c.type !== 'comment');
    const only = items.length === 1 ? wordOf(items[0] as SNode) : undefined;
    const value = only && !only.glob ? only.value : undefined;
    this.vars.set({ name: name.text, text: name.text, ...(value !== undefined ? { value } : {}) }, node.text.slice(0, (items[items.length - 1] ?? name).end - node.start));
  }

  /** Variables a builtin sets or names (`read PATH`, `printf -v x`), and `let`'s expressions. */
  private builtinVars(inner: readonly Word[]): void {
    const base = baseName(inner[0]?.value ?? '');
    const args = inner.slice(1);
    if (base === 'let') {
      if (!args.every((w) => isLiteralArith(w.value ?? w.text.replace(/^"(.*)"$/s, '$1')))) this.items.push(evaluates(label(inner), 'evaluates arithmetic on a value only known at run time, which bash runs as code if it holds `a[$(cmd)]`'));
      return;
    }
    if (!SETTERS.has(base)) return;
    const flags = DECLARERS.has(base) ? args.filter((w) => /^-[a-zA-Z]+$/.test(w.value ?? '')).map((w) => w.value).join('') : '';
    if (flags.includes('n')) this.items.push(evaluates(label(inner), 'declares a name reference, through which later commands set or read a variable named at run time'));
    for (const t of setterTargets(base, args)) {
      if (flags.includes('i') && t.name !== undefined) this.vars.integer(t.name);
      this.vars.set(t, label(inner));
    }
  }

  private simple(words: Word[], stdin: Stdin, ctx: Ctx): void {
    const head = words[0] as Word;
    if (head.value === undefined) {
      this.commands.push(words.map((w) => w.text));
      return void this.items.push(hidden(label(words), `runs a command whose name is only known at run time (${head.text})`));
    }
    const u = unwrap(words);
    for (const a of u.assigns) {
      this.vars.set({ name: a.name, text: a.unset ? a.name : `${a.name}=${a.value ?? ''}`, ...(a.value !== undefined ? { value: a.value } : {}), env: true, ...(a.unset ? { unset: true } : {}) }, label(words));
    }
    for (const w of u.writes) this.items.push(decideWrite(this.rules, w, '-o'));
    if (u.problem) {
      this.commands.push(words.map((w) => w.value ?? w.text));
      return void this.items.push(hidden(label(words), u.problem));
    }
    const inner = u.inner;
    if (inner[0] !== undefined && inner[0].value === undefined) {
      this.commands.push(inner.map((w) => w.value ?? w.text));
      return void this.items.push(hidden(label(words), `runs a command whose name is only known at run time (${inner[0].text})`));
    }
    if (inner.length > 0 && argsHoldCode(baseName(inner[0]?.value ?? ''), inner.slice(1))) {
      this.items.push(hidden(label(inner), 'passes shell code in a string to a builtin that evaluates it'));
    }
    if (inner.length > 0) this.builtinVars(inner);
    const code = inner.length > 0 ? nestedCode(inner, stdin) : undefined;
    let j: Judgement = inner.length === 0
      ? { readOnly: true, risk: 'low', phrase: u.query ? 'only looks up a command' : 'runs no other program' }
      : code?.outer ?? judgeArgv(code?.outerArgv ?? inner, u.extraArgs);
    if (code?.outer && j.readOnly && !isSystemName(inner[0]?.value ?? '')) {
      j = { readOnly: false, risk: 'medium', phrase: `runs ${inner[0]?.value ?? ''}, not a system program` };
    }
    if (u.privileged) j = { readOnly: false, risk: 'high', phrase: `runs as another user (${u.wrappers.join(' ')})` };
    this.commands.push((inner.length > 0 ? inner : words).map((w) => w.value ?? w.text));
    this.items.push(decideCommand(this.rules, { levels: u.levels, judgement: j, privileged: u.privileged, extraArgs: u.extraArgs }));
    if (code?.hidden) this.items.push(hidden(label(inner), code.hidden));
    for (const s of code?.scripts ?? []) this.script(s.source, ctx.depth + 1, s.bashLike && ctx.bashLike);
    for (const argv of code?.argvs ?? []) this.simple(argv, {}, { ...ctx, depth: ctx.depth + 1 });
  }
}

/** Arithmetic or a variable name evaluated at run time: asks, because a value can hold `a[$(cmd)]`. */
function evaluates(source: string, phrase: string): Item {
  const what = printable(source);
  return { action: 'ask', risk: 'medium', readOnly: false, label: what, reason: `\`${what}\` ${phrase}.` };
}

/** Words tree-sitter attaches to a redirection that bash treats as command arguments (`>f a b`). */
function redirectArgs(r: SNode): SNode[] {
  if (r.type !== 'file_redirect') return [];
  const dests = r.children.filter((c) => c.named && c.type !== 'file_descriptor');
  return dests.slice(1);
}

/** Static text a here-document or here-string feeds to the command, if any. */
function stdinOf(redirs: readonly SNode[]): Stdin {
  for (const r of redirs) {
    if (r.type === 'herestring_redirect') {
      const w = r.children.find((c) => c.named);
      const text = w ? wordOf(w).value : undefined;
      return text === undefined ? {} : { text };
    }
    if (r.type === 'heredoc_redirect') {
      const start = r.children.find((c) => c.type === 'heredoc_start')?.text ?? '';
      const body = r.children.find((c) => c.type === 'heredoc_body');
      const quoted = /['"\\]/.test(start);
      if (!body) return { text: '' };
      if (!quoted && (body.children.some((c) => c.named && c.type !== 'heredoc_content') || body.text.includes('\\'))) return {};
      return { text: body.text };
    }
  }
  return {};
}
