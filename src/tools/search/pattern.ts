// grep's pattern language: the regular-expression syntax ripgrep's engines and JavaScript's read
// alike, written as in JavaScript. A pattern is read once here and written out for each engine,
// so that `\w`, `\d`, `\s`, `\b` and `.` mean the same thing everywhere (JavaScript's meaning:
// ASCII word characters and digits, its list of spaces, `.` not matching line or paragraph
// separators). Lookaround and backreferences need a backtracking engine: ripgrep's PCRE2 when it
// has one, else the built-in JavaScript engine. What one engine would read differently (inline
// flags, POSIX classes, \p{…}, \A, \z, a bare `{`) is refused with a message saying so.

export interface ReadPattern {
  /** For JavaScript's RegExp (flags: '' or 'i'). */
  js: string;
  /** For ripgrep's default engine (Rust regex), when the pattern needs no backtracking. */
  rust: string;
  /** For ripgrep's PCRE2 engine (-P). */
  pcre: string;
  /** Lookaround or a backreference: ripgrep's default engine cannot run it. */
  backtracking: boolean;
}

const WORD = '0-9A-Za-z_';
const DIGIT = '0-9';
/** JavaScript's \s, written out. */
const SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
/** Characters Rust's regex parser treats as meta (and so accepts escaped); any other is written raw. */
const RUST_META = new Set('\\.+*?()|[]{}^$#&-~'.split(''));
const lit = (c: string) => (RUST_META.has(c) ? `\\${c}` : c);
const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`;
const PCRE_WB_AHEAD = `(?=[${WORD}])`;

export class PatternError extends Error {}

/** Reads `pattern`, or throws a PatternError saying what is not supported and why. */
export function readPattern(pattern: string, ignoreCase: boolean): ReadPattern {
  let rust = '';
  let pcre = '';
  let backtracking = false;
  /** Open groups: true for a lookbehind. */
  const groups: boolean[] = [];
  const inLookbehind = () => groups.includes(true);
  const fixedOnly = (what: string) => {
    if (inLookbehind()) throw new PatternError(`${what} inside a lookbehind: a lookbehind must have a fixed length`);
  };
  const both = (s: string) => {
    rust += s;
    pcre += s;
  };
  const n = pattern.length;
  let i = 0;
  const escape = (inClass: boolean): void => {
    const e = pattern[i + 1];
    if (e === undefined) throw new PatternError('the pattern ends with a lone \\');
    i += 2;
    switch (e) {
      case 'd':
        both(inClass ? DIGIT : `[${DIGIT}]`);
        return;
      case 'w':
        both(inClass ? WORD : `[${WORD}]`);
        return;
      case 's':
        both(inClass ? SPACE : `[${SPACE}]`);
        return;
      case 'D':
      case 'W':
      case 'S': {
        if (inClass) throw new PatternError(`\\${e} inside [...] is not supported; write the class out (e.g. [^0-9] for \\D)`);
        both(`[^${e === 'D' ? DIGIT : e === 'W' ? WORD : SPACE}]`);
        return;
      }
      case 'b':
      case 'B': {
        if (inClass) throw new PatternError('\\b inside [...] (a backspace in JavaScript) is not supported');
        rust += `(?-u:\\${e})`;
        // PCRE2 in Unicode mode reads \b by Unicode word characters; JavaScript by ASCII ones.
        const at = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])${PCRE_WB_AHEAD})`;
        const notAt = `(?:(?<=[${WORD}])${PCRE_WB_AHEAD}|(?<![${WORD}])(?![${WORD}]))`;
        pcre += e === 'b' ? at : notAt;
        return;
      }
      case 'n':
      case 'r':
      case 't':
      case 'f':
        both(`\\${e}`);
        return;
      case 'v':
        both(hex(0x0b));
        return;
      case 'x': {
        const h = pattern.slice(i, i + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) throw new PatternError('\\x takes two hex digits (\\x41)');
        i += 2;
        both(hex(parseInt(h, 16)));
        return;
      }
      case 'u': {
        const h = pattern.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) throw new PatternError('\\u takes four hex digits (\\u00e9)');
        i += 4;
        both(hex(parseInt(h, 16)));
        return;
      }
      case 'k': {
        const m = /^<([A-Za-z_][A-Za-z0-9_]*)>/.exec(pattern.slice(i));
        if (!m || inClass) throw new PatternError('\\k takes a group name: \\k<name>');
        i += m[0].length;
        backtracking = true;
        fixedOnly('a backreference');
        pcre += `\\k<${m[1]}>`;
        return;
      }
      default:
        break;
    }
    if (/[1-9]/.test(e) && !inClass) {
      if (/[0-9]/.test(pattern[i] ?? '')) throw new PatternError('backreferences go up to \\9');
      backtracking = true;
      fixedOnly('a backreference');
      pcre += `\\${e}`;
      return;
    }
    if (/[0-9A-Za-z]/.test(e)) {
      throw new PatternError(`\\${e} is not supported (the engines read it differently); supported escapes: \\d \\w \\s \\D \\W \\S \\b \\B \\n \\r \\t \\f \\v \\xHH \\uHHHH \\1-\\9 \\k<name>, and \\ before punctuation`);
    }
    both(lit(e));
  };
  const quantified = () => {
    // A quantifier just read: a lookbehind must stay fixed-length.
    fixedOnly('a quantifier');
  };
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      escape(false);
      continue;
    }
    if (c === '[') {
      i++;
      let negate = false;
      if (pattern[i] === '^') {
        negate = true;
        i++;
      }
      if (pattern[i] === ']') throw new PatternError('[] and [^] mean different things to the engines; write \\] for a literal ]');
      both(negate ? '[^' : '[');
      while (i < n && pattern[i] !== ']') {
        const d = pattern[i]!;
        if (d === '\\') {
          escape(true);
          continue;
        }
        if (d === '-' && !rust.endsWith('[') && !rust.endsWith('[^') && pattern[i + 1] !== ']' && pattern[i + 1] !== undefined) {
          both('-'); // a range
          i++;
          continue;
        }
        both(lit(d));
        i++;
      }
      if (i >= n) throw new PatternError('unclosed [');
      both(']');
      i++;
      continue;
    }
    if (c === '(') {
      if (pattern[i + 1] === '?') {
        const rest = pattern.slice(i + 2);
        if (rest.startsWith(':')) {
          both('(?:');
          groups.push(false);
          i += 3;
          continue;
        }
        const look = /^(=|!|<=|<!)/.exec(rest);
        if (look) {
          backtracking = true;
          pcre += `(?${look[1]}`;
          groups.push(look[1]!.startsWith('<'));
          i += 2 + look[1]!.length;
          continue;
        }
        const named = /^<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
        if (named) {
          rust += `(?P<${named[1]}>`;
          pcre += `(?<${named[1]}>`;
          groups.push(false);
          i += 2 + named[0].length;
          continue;
        }
        throw new PatternError('(? groups other than (?:…), (?<name>…) and lookaround are not supported; for case use ignore_case');
      }
      both('(');
      groups.push(false);
      i++;
      continue;
    }
    if (c === ')') {
      groups.pop();
      both(')');
      i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) throw new PatternError('a literal { must be written \\{ (a bare { is a repetition {n}, {n,} or {n,m})');
      if (m[2] !== undefined && m[3] !== m[1]) quantified();
      both(m[0]);
      i += m[0].length;
      continue;
    }
    if (c === '}' || c === ']') {
      both(`\\${c}`);
      i++;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      // `??`, `*?`, `+?` (lazy) are quantifiers too.
      quantified();
      both(c);
      i++;
      continue;
    }
    if (c === '|') {
      fixedOnly('| (an alternative)');
      both('|');
      i++;
      continue;
    }
    if (c === '.') {
      both(DOT);
      i++;
      continue;
    }
    if (c === '^' || c === '$') {
      both(c);
      i++;
      continue;
    }
    both(lit(c));
    i++;
  }
  try {
    new RegExp(pattern, ignoreCase ? 'i' : ''); // syntax only: matching runs in the worker
  } catch (e) {
    throw new PatternError((e as Error).message);
  }
  return { js: pattern, rust, pcre, backtracking };
}
