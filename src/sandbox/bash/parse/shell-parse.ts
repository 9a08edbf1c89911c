// The bash parser: tree-sitter-bash (WASM, shipped in its npm package) through web-tree-sitter.
// Loaded once, lazily; after that a parse is synchronous and takes well under a millisecond.
// Trees are copied into plain objects so callers never touch WASM memory.
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import type { Node as TsNode } from 'web-tree-sitter';
import { setBounded } from '../../../util/bounded-map.js';

export interface SNode {
  readonly type: string;
  readonly text: string;
  readonly named: boolean;
  /** UTF-16 offsets into the parsed source. */
  readonly start: number;
  readonly end: number;
  readonly children: readonly SNode[];
}

/** `source` is the text the tree is for: the input with bash's line continuations applied. */
export type ParseResult = { ok: true; root: SNode; source: string } | { ok: false; reason: string };
export type ParseFn = (source: string) => ParseResult;

const ODD_SPACES = new Set([0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);

/** Control characters (other than tab and newline) and Unicode spaces: bash and tree-sitter may split them differently. */
export function isOddChar(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)
    || (code >= 0x2000 && code <= 0x200f) || ODD_SPACES.has(code);
}

export function hasOddChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isOddChar(s.charCodeAt(i))) return true;
  return false;
}

let loading: Promise<ParseFn> | undefined;

/** Why: one WASM instance for the process; a failed load may be retried by the next call. */
export function loadBashParser(): Promise<ParseFn> {
  loading ??= init().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

async function init(): Promise<ParseFn> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  const once = (source: string): ParseResult => {
    const tree = parser.parse(source);
    if (!tree) return { ok: false, reason: 'the shell parser returned nothing' };
    try {
      const root = tree.rootNode;
      if (root.hasError) return { ok: false, reason: describeError(root) };
      return { ok: true, root: copy(root, source), source };
    } finally {
      tree.delete();
    }
  };
  // The classifier and the approval key parse the same command back to back: keep the last few.
  const recent = new Map<string, ParseResult>();
  return (source) => {
    const hit = recent.get(source);
    if (hit) return hit;
    return setBounded(recent, source, parseJoined(source), 8);
  };

  function parseJoined(source: string): ParseResult {
    let result = once(source);
    // tree-sitter reads `gi\<newline>t` as two words; bash removes the continuation first.
    for (let i = 0; i < 3 && result.ok; i++) {
      const joined = removeContinuations(result.source, result.root);
      if (joined === result.source) break;
      result = once(joined);
    }
    return result;
  }
}

/** Drop backslash-newlines that lie between tokens (not inside quotes, comments or here-docs). */
function removeContinuations(source: string, root: SNode): string {
  const cuts: number[] = [];
  let pos = 0;
  const visit = (n: SNode): void => {
    if (n.children.length === 0) {
      for (let i = source.indexOf('\\\n', pos); i >= 0 && i < n.start; i = source.indexOf('\\\n', i + 2)) cuts.push(i);
      pos = Math.max(pos, n.end);
    }
    n.children.forEach(visit);
  };
  visit(root);
  for (let i = source.indexOf('\\\n', pos); i >= 0; i = source.indexOf('\\\n', i + 2)) cuts.push(i);
  if (cuts.length === 0) return source;
  let out = '';
  let from = 0;
  for (const c of cuts) {
    out += source.slice(from, c);
    from = c + 2;
  }
  return out + source.slice(from);
}

function copy(node: TsNode, source: string): SNode {
  const children: SNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child) children.push(copy(child, source));
  }
  const start = node.startIndex;
  const end = node.endIndex;
  return { type: node.type, text: source.slice(start, end), named: node.isNamed, start, end, children };
}

function describeError(root: TsNode): string {
  const bad = root.descendantsOfType('ERROR')[0];
  const where = bad ? ` near "${bad.text.slice(0, 40)}"` : '';
  return `the command could not be parsed${where}`;
}

/** One shell word as the shell would see it, when that can be known without running anything. */
export interface Word {
  /** The source text, used for display and for rules when the value is unknown. */
  readonly text: string;
  /** The word after quote removal; undefined when it depends on expansions or globbing. */
  readonly value: string | undefined;
  /** An unquoted `*`, `?` or `[`: the shell replaces it with file names. */
  readonly glob: boolean;
  /** An unquoted leading `~`: the shell replaces it with a home directory. */
  readonly tilde: boolean;
  /**
   * A dynamic word that may become zero or several words at run time: an unquoted expansion
   * (field splitting), `"$@"`, `"${a[@]}"`, a brace expansion.
   */
  readonly split?: true;
}

const DYNAMIC = new Set([
  'simple_expansion', 'expansion', 'command_substitution', 'process_substitution',
  'arithmetic_expansion', 'brace_expression',
]);

/** Evaluate a word node statically; anything that needs the shell to run makes it dynamic. */
export function wordOf(node: SNode): Word {
  const text = node.text;
  const dyn = (split: boolean): Word => ({ text, value: undefined, glob: false, tilde: false, ...(split ? { split: true as const } : {}) });
  switch (node.type) {
    case 'word': {
      const w = unescapeBare(text);
      return hasBraceExpansion(text) ? dyn(true) : { text, ...w };
    }
    case 'number':
      return { text, value: text, glob: false, tilde: false };
    case 'raw_string':
      return { text, value: text.slice(1, -1), glob: false, tilde: false };
    case 'ansi_c_string': {
      const value = decodeAnsiC(text.slice(2, -1));
      return { text, value, glob: false, tilde: false };
    }
    case 'string': {
      let value = '';
      for (const c of node.children) {
        if (!c.named) continue;
        if (c.type !== 'string_content') return dyn(quotedSplits(node));
        value += c.text.replace(/\\([$`"\\\n])/g, (_m, ch: string) => (ch === '\n' ? '' : ch));
      }
      return { text, value, glob: false, tilde: false };
    }
    case 'translated_string': {
      const inner = node.children.find((c) => c.type === 'string');
      return inner ? { ...wordOf(inner), text } : dyn(true);
    }
    case 'concatenation': {
      if (hasBraceExpansion(text)) return dyn(true);
      let value = '';
      let glob = false;
      let first = true;
      let tilde = false;
      for (const c of node.children) {
        if (DYNAMIC.has(c.type)) return dyn(true);
        const w = wordOf(c);
        if (w.value === undefined) return dyn(w.split === true || node.children.some((k) => DYNAMIC.has(k.type) || wordOf(k).split === true));
        value += w.value;
        glob ||= w.glob;
        if (first) tilde = w.tilde;
        first = false;
      }
      return { text, value, glob, tilde };
    }
    default:
      return dyn(true);
  }
}

/** `"$@"`, `"${a[@]}"`, `"${!p@}"`: a double-quoted string that still becomes several words. */
function quotedSplits(node: SNode): boolean {
  return node.children.some((c) => (c.type === 'simple_expansion' || c.type === 'expansion') && c.text.includes('@'));
}

/** Backslash removal for an unquoted word, noting unescaped glob characters and a leading tilde. */
function unescapeBare(text: string): { value: string; glob: boolean; tilde: boolean } {
  let value = '';
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\') {
      const next = text[i + 1];
      i++;
      if (next !== undefined && next !== '\n') value += next;
      continue;
    }
    if (ch === '*' || ch === '?' || ch === '[') glob = true;
    value += ch;
  }
  return { value, glob, tilde: text.startsWith('~') };
}

/** `{a,b}` and `{1..3}` outside quotes expand into several words (a crude but fail-closed check). */
function hasBraceExpansion(text: string): boolean {
  const open = text.search(/(^|[^\\])\{/);
  if (open < 0) return false;
  const rest = text.slice(open);
  return /\}/.test(rest) && /,|\.\./.test(rest);
}

const SIMPLE_ESC: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decode the body of `$'...'` as bash does. */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== '\\' || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const n = body[++i] as string;
    const simple = SIMPLE_ESC[n];
    let m: RegExpExecArray | null;
    if (simple !== undefined) out += simple;
    else if ((m = /^[0-7]{1,3}/.exec(body.slice(i)))) {
      out += String.fromCharCode(parseInt(m[0], 8));
      i += m[0].length - 1;
    } else if (n === 'x' && (m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1)))) {
      out += String.fromCharCode(parseInt(m[0], 16));
      i += m[0].length;
    } else if ((n === 'u' || n === 'U') && (m = /^[0-9a-fA-F]{1,8}/.exec(body.slice(i + 1)))) {
      const hex = m[0].slice(0, n === 'u' ? 4 : 8);
      out += String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff));
      i += hex.length;
    } else if (n === 'c' && i + 1 < body.length) {
      out += String.fromCharCode((body.charCodeAt(++i) & 0x1f));
    } else out += `\\${n}`;
  }
  const nul = out.indexOf('\0');
  return nul >= 0 ? out.slice(0, nul) : out;
}
