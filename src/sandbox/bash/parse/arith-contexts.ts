// Bash evaluates arithmetic recursively: a variable's *value* is itself an expression, and an
// array subscript inside it is expanded, so `v='a[$(cmd)]'; echo $((v))` runs cmd. Every
// arithmetic context whose operand is not a literal (a number, an operator, `$#`) therefore
// asks. The contexts (bash(1), ARITHMETIC EVALUATION and where it is applied): `$((...))`,
// `$[...]`, `((...))`, `for ((...))`, `let`, the -eq/-ne/-lt/-le/-gt/-ge operands of `[[ ]]`,
// indexed-array subscripts (`${a[i]}`, `a[i]=x`, `a=([i]=x)`, `${#a[i]}`), substring offsets
// `${x:off:len}`, integer variables (`declare -i`), and names evaluated as variables at run
// time: `${!v}`, `[[ -v name ]]`, `test -v name`, and the NAME arguments of read, printf -v,
// mapfile, getopts, wait -p, unset, declare (var-setters.ts).
import type { SNode } from './shell-parse.js';

/** Expansions whose value is always a number, whatever is in the environment. */
const NUMERIC_SPECIALS = /\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?\}|\$\{#\}|\$[#?$!]/g;
/** Numbers in any base, operators, parentheses, `,` and the `;` of `for ((...))`. */
const LITERAL = /^(?:\s|\d+#[0-9A-Za-z@_]+|0[xX][0-9a-fA-F]+|\d+|[-+*/%<>=!&|^~?:(),;])*$/;

/** A number, operators and parentheses only: no names, expansions, subscripts or quotes. */
export function isLiteralArith(text: string): boolean {
  return LITERAL.test(text.replace(NUMERIC_SPECIALS, '0'));
}

const ARITH_TEST_OPS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$/s;

const PHRASE = 'evaluates arithmetic on a value only known at run time, which bash runs as code if it holds `a[$(cmd)]`';

/** A variable name bash will look up at run time: a plain name, or one with a literal subscript. */
export function nameProblem(name: string | undefined): string | undefined {
  if (name === undefined) return 'uses a variable whose name is only known at run time, which bash may evaluate as code';
  const m = NAME.exec(name);
  if (!m) return undefined;
  const index = m[2];
  return index === undefined || index === '@' || index === '*' || isLiteralArith(index) ? undefined : PHRASE;
}

/** Source text between the child that opens and the one that closes, e.g. inside `$(( ... ))`. */
function between(node: SNode, open: string, close: string): string | undefined {
  const a = node.children.find((c) => c.type === open);
  const b = [...node.children].reverse().find((c) => c.type === close);
  if (!a || !b || b.start < a.end) return undefined;
  return node.text.slice(a.end - node.start, b.start - node.start);
}

const unquote = (text: string): string => (/^"[^"]*"$/.test(text) ? text.slice(1, -1) : text);

/**
 * Why this node evaluates run-time data as arithmetic (or a run-time name), or undefined.
 * `source`: the whole parsed script the node is in (a loop counter is checked across it).
 */
export function arithGap(node: SNode, source?: string): string | undefined {
  switch (node.type) {
    case 'arithmetic_expansion': {
      const inner = node.text.startsWith('$[') ? node.text.slice(2, -1) : node.text.slice(3, -2);
      return isLiteralArith(inner) ? undefined : PHRASE;
    }
    case 'compound_statement': {
      if (node.children[0]?.type !== '((') return undefined;
      const inner = between(node, '((', '))');
      return inner !== undefined && isLiteralArith(inner) ? undefined : PHRASE;
    }
    case 'c_style_for_statement': {
      const inner = between(node, '((', '))');
      return inner !== undefined && (isLiteralArith(inner) || loopCounters(node, inner, source)) ? undefined : PHRASE;
    }
    case 'subscript': {
      const index = between(node, '[', ']');
      return index !== undefined && (index.trim() === '@' || index.trim() === '*' || isLiteralArith(index)) ? undefined : PHRASE;
    }
    case 'expansion':
      return expansionGap(node);
    case 'array':
      return arraySubscripts(node.text).every((i) => isLiteralArith(i)) ? undefined : PHRASE;
    case 'test_command':
      return testGap(node, node.children[0]?.type === '[[');
    default:
      return undefined;
  }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * `for ((i=0; i<3; i++))`: names the loop's first part sets to a literal value (in order, so
 * `i=0, j=i+1` counts, `i=i+1` does not) hold numbers when the rest reads them, unless something
 * else in the script sets them: so every other mention of each name in the whole script must be
 * a plain read (`$i`, `${i}`). Any other (`i=…`, `read i`, `printf -v i`, `((i=…))`, a function
 * that sets it, even `grep -i`) and the loop asks, as before.
 */
function loopCounters(node: SNode, inner: string, source: string | undefined): boolean {
  const parts = inner.split(';');
  if (parts.length !== 3 || source === undefined) return false;
  const names = new Set<string>();
  const known = (text: string) => text.replace(IDENT, (n) => (names.has(n) ? '0' : n));
  for (const part of (parts[0] as string).split(',')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)$/s.exec(part);
    if (!m || !isLiteralArith(known(m[2] as string))) return false;
    names.add(m[1] as string);
  }
  if (!isLiteralArith(known(inner))) return false;
  const open = node.children.find((c) => c.type === '((');
  const close = [...node.children].reverse().find((c) => c.type === '))');
  if (!open || !close) return false;
  for (const name of names) {
    const re = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`, 'g');
    for (const m of source.matchAll(re)) {
      const at = m.index;
      if (at >= open.end && at < close.start) continue; // the loop's own header
      const plain = source[at - 1] === '$' || (source.slice(at - 2, at) === '${' && source[at + name.length] === '}');
      if (!plain) return false;
    }
  }
  return true;
}

/** `${!v}` (indirect), `${x:off:len}` (substring offsets are arithmetic). */
function expansionGap(node: SNode): string | undefined {
  const kids = node.children;
  if (kids[1]?.type === '!') {
    const target = kids[2];
    const listing = target?.type === 'variable_name' ? kids[3]?.type === '*' || kids[3]?.type === '@'
      : target?.type === 'subscript' && /^[@*]$/.test((between(target, '[', ']') ?? '').trim());
    if (!listing) return 'expands a variable named by another variable\'s value, which bash may evaluate as code';
  }
  const colon = kids.findIndex((c) => c.type === ':');
  if (colon < 0) return undefined;
  const close = kids[kids.length - 1];
  const rest = node.text.slice((kids[colon] as SNode).end - node.start, close?.type === '}' ? close.start - node.start : undefined);
  return rest.split(':').every((part) => isLiteralArith(part)) ? undefined : PHRASE;
}

/**
 * `a=([i]=x [j]+=y)`: the `[...]` that starts an element and is followed by `=` is an arithmetic
 * subscript. Read from the text, brackets counted, because the parser splits some elements.
 */
function arraySubscripts(text: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < text.length; i++) {
    if (text[i] !== '[' || !/[\s(]/.test(text[i - 1] as string)) continue;
    let depth = 0;
    let j = i;
    for (; j < text.length; j++) {
      if (text[j] === '[') depth++;
      else if (text[j] === ']' && --depth === 0) break;
    }
    if (text.startsWith('=', j + 1) || text.startsWith('+=', j + 1)) out.push(text.slice(i + 1, j));
    i = j;
  }
  return out;
}

/** `[[ a -eq b ]]` evaluates both sides; `-v name` (in `[[ ]]` and `[ ]`) evaluates a subscript. */
function testGap(node: SNode, doubleBracket: boolean): string | undefined {
  const visit = (n: SNode): string | undefined => {
    if (n.type === 'command_substitution' || n.type === 'process_substitution') return undefined;
    const op = n.children.find((c) => c.type === 'test_operator')?.text;
    if (n.type === 'binary_expression' && doubleBracket && op !== undefined && ARITH_TEST_OPS.has(op)) {
      const sides = n.children.filter((c) => c.named && c.type !== 'test_operator');
      if (!sides.every((s) => isLiteralArith(unquote(s.text)))) return PHRASE;
    }
    if (n.type === 'unary_expression' && (op === '-v' || op === '-R')) {
      const operand = n.children.find((c) => c.named && c.type !== 'test_operator');
      if (operand && !isStaticName(operand.text)) return nameProblem(undefined);
      if (operand) return nameProblem(unquote(operand.text).replace(/^'(.*)'$/s, '$1'));
    }
    for (const c of n.children) {
      const why = visit(c);
      if (why) return why;
    }
    return undefined;
  };
  return visit(node);
}

/** Text that names a variable without expanding anything (`x`, `a[1]`, `'a[i]'`). */
function isStaticName(text: string): boolean {
  return !/[$`\\]/.test(text);
}

export { ARITH_TEST_OPS };
