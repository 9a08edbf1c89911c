// The words of a command line that may name a file, as far as they can be known before it runs,
// for the read-reach check (paths/read-reach.ts): every argument, redirection target and assigned
// value, at any depth (substitutions, loops, functions), with `~`, `$HOME` and `${HOME}` kept as a
// home marker and other expansions as an unknown part. A pure function of the text.
import type { ParseFn, SNode } from './parse/shell-parse.js';

/** A part only known at run time (an expansion, a substitution). */
export const UNKNOWN = '\0';

export interface PathWord {
  /** The word after quote removal: `~` for a leading home, UNKNOWN for each run-time part. */
  value: string;
  /** The word is the name of the program run (not read as a file, but still judged as a secret). */
  program?: true;
  /** The word is the target of `cd`/`pushd` (no word: `cd` alone, which goes home). */
  cd?: true;
  /** A string that may be shell code run by another shell (`bash -c '…'`): judged by its tokens. */
  code?: true;
}

export interface CommandWords {
  words: PathWord[];
  /** The command changes its working folder somewhere (`cd`, `pushd`, `popd`): relative words are not known to stay put. */
  changesDir: boolean;
}

const CD = new Set(['cd', 'pushd', 'popd']);
const HOME_VAR = /^\$(HOME|\{HOME\})$/;

/** The words, or undefined when the text does not parse (the classifier asks for such a command anyway). */
export function commandWords(parse: ParseFn, command: string): CommandWords | undefined {
  const parsed = parse(command);
  if (!parsed.ok) return undefined;
  const out: CommandWords = { words: [], changesDir: false };
  visit(parsed.root, out);
  return out;
}

function visit(node: SNode, out: CommandWords): void {
  if (node.type === 'command') {
    command(node, out);
  } else if (node.type === 'file_redirect' || node.type === 'herestring_redirect') {
    for (const c of node.children) if (c.named && c.type !== 'file_descriptor') out.words.push({ value: valueOf(c) });
  } else if (node.type === 'variable_assignment') {
    const v = node.children.find((c, i) => i > 1 && c.named);
    if (v) out.words.push({ value: valueOf(v), code: true });
  }
  for (const c of node.children) visit(c, out);
}

function command(node: SNode, out: CommandWords): void {
  const nameNode = node.children.find((c) => c.type === 'command_name');
  const name = nameNode ? valueOf(nameNode.children.find((c) => c.named) ?? nameNode) : undefined;
  if (name !== undefined) out.words.push({ value: name, program: true });
  const args = node.children.filter((c) => c.named && c !== nameNode && c.type !== 'variable_assignment' && c.type !== 'comment' && !c.type.endsWith('redirect'));
  const base = name?.split('/').pop() ?? '';
  if (CD.has(base)) {
    out.changesDir = true;
    const target = args.map(valueOf).find((a) => !a.startsWith('-') || a === '-');
    // `cd` alone (or `cd -`, `popd`: a folder named elsewhere) goes where this check cannot follow.
    out.words.push({ value: target === undefined ? (base === 'cd' ? '~' : UNKNOWN) : target === '-' ? UNKNOWN : target, cd: true });
    return;
  }
  for (const a of args) out.words.push({ value: valueOf(a), code: true });
}

/** A word's value with quotes removed, `~`/`$HOME` kept as `~`, and run-time parts as UNKNOWN. */
export function valueOf(node: SNode): string {
  switch (node.type) {
    case 'word':
      return unescape(node.text);
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'number':
      return node.text;
    case 'string': {
      let v = '';
      let first = true;
      for (const c of node.children) {
        if (!c.named) continue;
        if (c.type === 'string_content') v += c.text.replace(/\\([$`"\\\n])/g, (_m, ch: string) => (ch === '\n' ? '' : ch));
        else v += first && HOME_VAR.test(c.text) ? '~' : UNKNOWN;
        first = false;
      }
      return v;
    }
    case 'concatenation':
      return node.children.map((c, i) => (i === 0 && HOME_VAR.test(c.text) ? '~' : c.named || c.type === 'word' ? valueOf(c) : c.text)).join('');
    case 'simple_expansion':
    case 'expansion':
      return HOME_VAR.test(node.text) ? '~' : UNKNOWN;
    default:
      return UNKNOWN;
  }
}

function unescape(text: string): string {
  let v = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\') {
      const next = text[++i];
      if (next !== undefined && next !== '\n') v += next;
    } else v += ch;
  }
  return v;
}
