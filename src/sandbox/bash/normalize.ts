// A canonical spelling of a bash command, used as the key of persisted always/never decisions.
// Whitespace, comments and quoting style do not change the key (`git  push 'origin'` ==
// `git push origin`); anything that changes meaning does. The output is itself valid bash
// that parses back to the same structure, so two different commands cannot share a key.
import { homeForm, rmExact } from './knowledge/rm-canon.js';
import { hasOddChars, loadBashParser, wordOf } from './parse/shell-parse.js';
import type { SNode } from './parse/shell-parse.js';

const WORDISH = new Set(['word', 'string', 'raw_string', 'ansi_c_string', 'number', 'concatenation', 'translated_string']);
/** Nodes rebuilt from their children; every other named node keeps its source text. */
const STRUCTURAL = new Set([
  'program', 'list', 'pipeline', 'command', 'redirected_statement', 'subshell', 'if_statement', 'elif_clause',
  'else_clause', 'while_statement', 'for_statement', 'do_group', 'case_statement', 'case_item', 'function_definition',
  'negated_command', 'declaration_command', 'unset_command', 'variable_assignments', 'herestring_redirect',
  'command_substitution', 'process_substitution', 'test_command',
]);
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', 'function', 'select', 'time', 'coproc', '{', '}', '[[', ']]', '!']);

/** Canonical key for a command; falls back to the trimmed text when it cannot be parsed. */
export async function normalizeBash(command: string): Promise<string> {
  const raw = command.trim();
  if (hasOddChars(raw)) return raw;
  const parse = await loadBashParser();
  const parsed = parse(raw);
  // Here-documents are kept verbatim: their body is positional text, not words.
  if (!parsed.ok || hasHeredoc(parsed.root)) return raw;
  const out: string[] = [];
  emit(parsed.root, parsed.source, out, false);
  return join(out);
}

function hasHeredoc(node: SNode): boolean {
  return node.type === 'heredoc_redirect' || node.children.some(hasHeredoc);
}

/** Shell-quote a word value canonically: bare when safe, else single quotes. */
export function quoteWord(value: string, commandName = false): string {
  const bare = /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) && !RESERVED.has(value) && !(commandName && value.includes('='));
  return bare ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

function emit(node: SNode, src: string, out: string[], commandName: boolean): void {
  if (node.type === 'comment') return;
  if (node.type === 'command' && emitRm(node, src, out)) return;
  if (WORDISH.has(node.type)) {
    // `{fd}>file` stores the descriptor in fd: only while `{fd}` is bare and touches the operator.
    if (FD_VAR.test(node.text) && /[<>]/.test(src[node.end] ?? '')) return void out.push(`${node.text}${GLUE}`);
    const w = wordOf(node);
    out.push(w.value !== undefined && !w.glob && !w.tilde ? quoteWord(w.value, commandName) : node.text);
    return;
  }
  if (node.type === 'command_name') {
    for (const c of node.children) emit(c, src, out, true);
    return;
  }
  if (node.type === 'variable_assignment') {
    const value: string[] = [];
    for (const c of node.children.slice(2)) emit(c, src, value, false);
    out.push(`${node.children[0]?.text ?? ''}=${value.join(' ')}`);
    return;
  }
  if (node.type === 'file_redirect') {
    const [first, ...rest] = node.children;
    const fd = first?.type === 'file_descriptor' ? first.text : '';
    const op = (fd ? rest.shift()?.text : first?.text) ?? '';
    out.push(fd + op);
    for (const c of fd ? rest : node.children.slice(1)) emit(c, src, out, false);
    return;
  }
  const structural = STRUCTURAL.has(node.type) || (node.type === 'compound_statement' && node.children[0]?.type === '{');
  if (!structural) {
    out.push(node.text);
    return;
  }
  let prev: SNode | undefined;
  for (const c of node.children) {
    // A newline that separated two parts (not a backslash continuation) stays a separator.
    if (prev && /(^|[^\\])\n/.test(src.slice(prev.end, c.start))) out.push('\n');
    emit(c, src, out, false);
    prev = c;
  }
}

const NOT_ARGS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect', 'comment']);

/**
 * `rm` in its exact canonical spelling (rm-canon.ts): `rm -fr ./x`, `rm -r -f x` and
 * `rm x --recursive --force` share the key `rm -rf x`; false when it cannot be rebuilt safely.
 */
function emitRm(node: SNode, src: string, out: string[]): boolean {
  const at = node.children.findIndex((c) => c.type === 'command_name');
  const head = node.children[at]?.children.find((c) => c.named);
  if (!head || wordOf(head).value !== 'rm') return false;
  const args = node.children.slice(at + 1).filter((c) => c.named);
  if (args.some((c) => NOT_ARGS.has(c.type))) return false;
  const tilde: boolean[] = [];
  const values = args.map((c, i) => {
    const w = wordOf(c);
    const home = w.value === undefined ? homeForm(c.text) : undefined;
    tilde[i] = w.tilde || home !== undefined;
    if (home !== undefined) return /[*?[]/.test(home) ? undefined : home;
    return w.glob ? undefined : w.value;
  });
  const canon = rmExact(values);
  if (!canon) return false;
  const words: string[] = [];
  for (const o of canon.operands) {
    if (o.path === undefined) {
      emit(args[o.at] as SNode, src, words, false);
    } else if (tilde[o.at]) {
      if (!/^~[\w@%+=:,./-]*$/.test(o.path)) return false;
      words.push(o.path);
    } else words.push(quoteWord(o.path));
  }
  for (const c of node.children.slice(0, at)) emit(c, src, out, false);
  out.push('rm', ...canon.flags, ...(canon.dashdash ? ['--'] : []), ...words);
  return true;
}

const FD_VAR = /^\{[A-Za-z_][A-Za-z0-9_]*\}$/;
/** Marks a token that the next one follows without a blank. */
const GLUE = '\u0000';

function join(tokens: readonly string[]): string {
  let s = '';
  for (const t of tokens) {
    if (s.endsWith(GLUE)) {
      s = s.slice(0, -1) + t;
      continue;
    }
    if (t === '\n') s = s.endsWith('\n') || s === '' ? s : `${s.trimEnd()}\n`;
    else if (t === ';' || t === ';;') s = `${s.trimEnd()}${t}`;
    else s += s === '' || s.endsWith('\n') ? t : ` ${t}`;
  }
  return s.replace(/[;\n\s]+$/, '');
}
