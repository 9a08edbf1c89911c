// A canonical spelling of a bash command, used as the key of persisted always/never decisions.
// Whitespace, comments and quoting style do not change the key (`git  push 'origin'` ==
// `git push origin`); anything that changes meaning does. The output is itself valid bash
// that parses back to the same structure, so two different commands cannot share a key.
import { hasOddChars, loadBashParser, wordOf } from './shell-parse.js';
import type { SNode } from './shell-parse.js';

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
  if (WORDISH.has(node.type)) {
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

function join(tokens: readonly string[]): string {
  let s = '';
  for (const t of tokens) {
    if (t === '\n') s = s.endsWith('\n') || s === '' ? s : `${s.trimEnd()}\n`;
    else if (t === ';' || t === ';;') s = `${s.trimEnd()}${t}`;
    else s += s === '' || s.endsWith('\n') ? t : ` ${t}`;
  }
  return s.replace(/[;\n\s]+$/, '');
}
