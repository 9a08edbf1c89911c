// Places where tree-sitter-bash reads as plain text something bash will still expand or run:
// backquotes inside `${...}`, `<<-` here-documents, nested escaped backquotes, `${x@P}`, and
// strings handed to builtins that evaluate array subscripts (`let 'a[$(cmd)]'`). Each is
// reported so the classifier asks instead of trusting the tree.
import type { SNode, Word } from './shell-parse.js';
import { wordOf } from './shell-parse.js';

/** An unescaped backquote or `$(` in text. */
export function hasLiveSubstitution(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '`' || (c === '$' && text[i + 1] === '(')) return true;
  }
  return false;
}

const holdsCode = (value: string | undefined): boolean => value !== undefined && /\$\(|`/.test(value);

const SUSPECT_LEAVES = new Set(['word', 'string_content', 'heredoc_content', 'extglob_pattern', 'regex']);
const EVAL_NODES = new Set(['test_command', 'declaration_command', 'unset_command']);
const WORDISH = new Set(['word', 'string', 'raw_string', 'ansi_c_string', 'concatenation']);
/** Builtins that evaluate array subscripts (and so `$(...)`) inside their string arguments. */
const EVAL_BUILTINS = new Set(['let', 'printf', 'read', 'unset', 'mapfile', 'readarray', 'wait', 'getopts', 'test', '[', 'declare', 'typeset', 'local', 'export', 'readonly']);

/** Why this node hides code the parser did not read, or undefined. */
export function parseGap(node: SNode): string | undefined {
  if (SUSPECT_LEAVES.has(node.type) && hasLiveSubstitution(node.text)) {
    return 'contains a command substitution the parser read as plain text';
  }
  if (node.type === 'expansion' && /@P\}$/.test(node.text)) return 'expands a variable as a prompt, which can run commands';
  if (node.type === 'heredoc_redirect') {
    const start = node.children.find((c) => c.type === 'heredoc_start')?.text ?? '';
    const body = node.children.find((c) => c.type === 'heredoc_body');
    const parsed = body?.children.some((c) => c.named) ?? false;
    if (!/['"\\]/.test(start) && body && !parsed && hasLiveSubstitution(body.text)) {
      return 'has a here-document whose commands the parser did not read';
    }
  }
  const arithmetic = node.type === 'compound_statement' && node.children[0]?.type === '((';
  if ((EVAL_NODES.has(node.type) || arithmetic) && stringsHoldCode(node)) {
    return 'passes shell code in a string to a builtin that evaluates it';
  }
  return undefined;
}

function stringsHoldCode(node: SNode): boolean {
  if (WORDISH.has(node.type)) return holdsCode(wordOf(node).value);
  return node.children.some(stringsHoldCode);
}

/** `let 'a[$(cmd)]=1'`, `printf -v 'a[$(cmd)]' x`: a builtin that would run code hidden in a string. */
export function argsHoldCode(name: string, args: readonly Word[]): boolean {
  return EVAL_BUILTINS.has(name) && args.some((w) => holdsCode(w.value));
}

/** The text inside backquotes as bash reads it: `\\`, `` \` `` and `\$` lose their backslash. */
export function backquoteBody(node: SNode): string | undefined {
  if (node.type !== 'command_substitution' || node.children[0]?.type !== '`' || !node.text.includes('\\')) return undefined;
  return node.text.slice(1, -1).replace(/\\([\\`$])/g, '$1');
}
