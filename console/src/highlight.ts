// A small syntax highlighter for code in messages and diffs, shared by the web console and the
// VS Code extension's chat. It returns tokens, never HTML: each view makes text nodes in spans, so
// code can never become markup (and the webview's CSP stays strict). It knows the shapes most
// languages share — comments, strings, numbers, keywords — which is what a reader needs to scan
// code; it is not a parser, and an unknown language gets the common rules.

export type TokenKind = 'kw' | 'str' | 'com' | 'num' | 'plain';
export interface Token {
  k: TokenKind;
  v: string;
}

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue def default defer del do elif else enum export extends ' +
    'false final finally fn for from func function go if impl import in interface is lambda let loop match mod module mut ' +
    'new nil None not null or and package pass private protected pub public raise return self static struct super switch ' +
    'this throw throws trait true True False try type typeof undefined use var void where while with yield then fi done esac echo local'
  ).split(' '),
);

/** Languages whose comments start with # (shell, Python, Ruby, YAML, TOML…); the rest use // and /* *\/. */
const HASH = new Set(['sh', 'bash', 'zsh', 'shell', 'console', 'py', 'python', 'rb', 'ruby', 'yaml', 'yml', 'toml', 'make', 'makefile', 'dockerfile', 'r', 'perl', 'pl', 'conf', 'ini']);
const SLASH = new Set(['js', 'jsx', 'ts', 'tsx', 'javascript', 'typescript', 'c', 'cpp', 'h', 'hpp', 'cs', 'java', 'kt', 'go', 'rs', 'rust', 'swift', 'scala', 'php', 'css', 'scss', 'json', 'jsonc', 'dart']);

/** The language a file name suggests (for diffs): its extension. */
export function languageOf(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? '';
  if (/^(Makefile|Dockerfile)$/i.test(base)) return base.toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function rules(lang: string): RegExp {
  const hash = HASH.has(lang) || (!SLASH.has(lang) && lang !== '');
  const comment = hash && !SLASH.has(lang) ? String.raw`#[^\n]*` : String.raw`\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)`;
  const both = lang === '' ? String.raw`\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|(?<![\w$])#(?![{!\[])[^\n]*` : comment;
  const string = String.raw`"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|\x60(?:[^\x60\\]|\\.)*\x60?`;
  const number = String.raw`\b(?:0x[\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b`;
  const word = String.raw`[A-Za-z_$][\w$]*`;
  return new RegExp(`(${both})|(${string})|(${number})|(${word})`, 'g');
}

/** `code` split into tokens (their texts joined give back `code` exactly). */
export function highlight(code: string, lang = ''): Token[] {
  const out: Token[] = [];
  const push = (k: TokenKind, v: string) => {
    if (!v) return;
    const last = out.at(-1);
    if (last && last.k === k && k === 'plain') last.v += v;
    else out.push({ k, v });
  };
  const re = rules(lang.toLowerCase());
  let at = 0;
  for (const m of code.matchAll(re)) {
    push('plain', code.slice(at, m.index));
    const [all, com, str, num, word] = m;
    if (com) push('com', all);
    else if (str) push('str', all);
    else if (num) push('num', all);
    else push(word && KEYWORDS.has(word) ? 'kw' : 'plain', all);
    at = m.index + all.length;
  }
  push('plain', code.slice(at));
  return out;
}
