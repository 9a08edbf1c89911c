// A small Markdown parser for the model's messages. It builds a tree, never HTML: the view turns
// the tree into elements, so raw HTML in a message stays text and no string is ever parsed as
// markup (the console never sets HTML from a string). Links keep only http(s) and mailto targets.
// Covers what models write: headings, paragraphs, emphasis, code spans and fences, lists,
// quotes, rules, pipe tables, links and bare URLs. Streaming text (an open fence) parses too.

export type Inline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'em' | 'strong' | 'del'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] }
  | { t: 'br' };

export type Block =
  | { t: 'p'; c: Inline[] }
  | { t: 'h'; level: 1 | 2 | 3 | 4 | 5 | 6; c: Inline[] }
  | { t: 'code'; lang: string; v: string }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'quote'; c: Block[] }
  | { t: 'table'; head: Inline[][]; rows: Inline[][][] }
  | { t: 'hr' };

/** The link targets a message may carry; anything else (javascript:, data:, relative) is dropped. */
export function safeHref(raw: string): string | undefined {
  const href = raw.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(href)) return undefined;
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(\s+|$)(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Past this size a message is shown as plain paragraphs (the parser stays fast on any input). */
const MAX_PARSED = 100_000;

/**
 * Where a streaming message can be cut: its last blank line outside a code fence. What comes
 * before it no longer changes as text arrives, so it is parsed once, not on every chunk.
 */
export function stableCut(text: string): number {
  if (text.length < 4000) return 0;
  // A blank line followed by a new top-level block (not an indented continuation, not a list item).
  for (let cut = text.lastIndexOf('\n\n'), tries = 0; cut > 0 && tries < 20; cut = text.lastIndexOf('\n\n', cut - 1), tries++) {
    if (/^\n\n(?:[\s>]|[-*+] |\d{1,9}[.)] )/.test(text.slice(cut, cut + 14))) continue;
    const fences = text.slice(0, cut).match(/^ {0,3}(```|~~~)/gm)?.length ?? 0;
    if (fences % 2 === 0) return cut; // else the blank line is inside a code fence
  }
  return 0;
}

export function parseMarkdown(src: string): Block[] {
  const text = src.replace(/\r\n?/g, '\n');
  if (text.length > MAX_PARSED) return text.split(/\n{2,}/).map((p) => ({ t: 'p', c: [{ t: 'text', v: p }] }));
  return blocks(text.split('\n'));
}

function blocks(lines: string[]): Block[] {
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const mark = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^ {0,3}${mark[0] === '`' ? '`' : '~'}{${mark.length},}\\s*$`).test(lines[i]!)) body.push(lines[i++]!);
      i++; // the closing fence (or the end of a message still streaming)
      out.push({ t: 'code', lang: fence[2] ?? '', v: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ t: 'h', level: heading[1]!.length as 1 | 2 | 3 | 4 | 5 | 6, c: inlines(heading[2] ?? '') });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (QUOTE.test(lines[i]!) || body.length > 0)) body.push(lines[i++]!.replace(QUOTE, ''));
      out.push({ t: 'quote', c: blocks(body) });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      i = list(lines, i, out);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const head = cells(line);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(cells(lines[i++]!));
      out.push({ t: 'table', head, rows });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!)) para.push(lines[i++]!);
    if (para.length === 0) para.push(lines[i++]!);
    out.push({ t: 'p', c: inlines(para.join('\n')) });
  }
  return out;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

/** A list starting at lines[i]; its items' bodies are parsed as blocks (nested lists included). */
function list(lines: string[], i: number, out: Block[]): number {
  const first = ITEM.exec(lines[i]!)!;
  const ordered = /\d/.test(first[2]!);
  const items: Block[][] = [];
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]!);
    if (!m || /\d/.test(m[2]!) !== ordered) break;
    const indent = m[1]!.length + m[2]!.length + Math.min(m[3]!.length || 1, 4);
    const body = [m[4]!];
    i++;
    while (i < lines.length) {
      const l = lines[i]!;
      if (l.trim() === '') {
        // A blank line continues the item only if indented content follows.
        const next = lines[i + 1];
        if (next !== undefined && /^\s+\S/.test(next) && leading(next) >= indent) {
          body.push('');
          i++;
          continue;
        }
        break;
      }
      if (leading(l) >= indent) body.push(l.slice(indent));
      else if (ITEM.exec(l) || startsBlock(l)) break;
      else body.push(l); // a lazy continuation line
      i++;
    }
    items.push(blocks(body));
    if (lines[i]?.trim() === '' && lines[i + 1] !== undefined && ITEM.test(lines[i + 1]!)) i++;
  }
  out.push({ t: 'list', ordered, start: ordered ? Number.parseInt(first[2]!, 10) : 1, items });
  return i;
}

const leading = (l: string) => l.length - l.trimStart().length;

function cells(row: string): Inline[][] {
  let r = row.trim();
  if (r.startsWith('|')) r = r.slice(1);
  if (r.endsWith('|') && !r.endsWith('\\|')) r = r.slice(0, -1);
  return r.split(/(?<!\\)\|/).map((c) => inlines(c.trim().replace(/\\\|/g, '|')));
}

const PUNCT = /[!-/:-@[-`{-~]/;

/** Past this many characters a link's label is not looked for (labels are short; the scan stays linear). */
const MAX_LABEL = 500;

/** Past this many characters a link's target is not looked for. */
const MAX_TARGET = 2048;

/** Where a closing mark was looked for in vain: none exists past that point (keys: a backtick run's length, or the mark). */
type Misses = Map<number | string, number>;

function nothingAfter(src: string, mark: string, from: number, misses: Misses): boolean {
  const missFrom = misses.get(mark);
  if (missFrom !== undefined && from >= missFrom) return true;
  if (src.indexOf(mark, from) >= 0) return false;
  misses.set(mark, from);
  return true;
}

/** A run of `*`, `_` or `~` that may open and/or close emphasis (CommonMark's flanking rules). */
interface Delim {
  ch: string;
  len: number;
  open: boolean;
  close: boolean;
}
interface Cell {
  v: Inline | Delim;
  prev: Cell | undefined;
  next: Cell | undefined;
}
const isDelim = (v: Inline | Delim): v is Delim => 'ch' in v;
const WS = /\s/;
const PUNCT_CHAR = /[!-/:-@[-`{-~\p{P}\p{S}]/u;

/** Inline spans of one paragraph's text. */
export function inlines(src: string): Inline[] {
  const misses: Misses = new Map();
  const head: Cell = { v: { t: 'text', v: '' }, prev: undefined, next: undefined };
  let tail = head;
  const add = (v: Inline | Delim) => {
    const c: Cell = { v, prev: tail, next: undefined };
    tail.next = c;
    tail = c;
  };
  let text = '';
  const flush = () => {
    if (text) add({ t: 'text', v: text });
    text = '';
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length) {
      const next = src[i + 1]!;
      if (next === '\n') {
        flush();
        add({ t: 'br' });
        i += 2;
        continue;
      }
      if (PUNCT.test(next)) {
        text += next;
        i += 2;
        continue;
      }
    }
    if (ch === '\n') {
      // Two trailing spaces make a hard break; otherwise a newline is a space.
      if (text.endsWith('  ')) {
        text = text.replace(/ +$/, '');
        flush();
        add({ t: 'br' });
      } else text = text.replace(/ +$/, '') + '\n';
      i++;
      continue;
    }
    if (ch === '`') {
      let n = 1;
      while (src[i + n] === '`') n++;
      const close = codeCloser(src, n, i + n, misses);
      if (close > 0) {
        flush();
        let v = src.slice(i + n, close).replace(/\n/g, ' ');
        if (/^ .*[^ ].* $/.test(v)) v = v.slice(1, -1);
        add({ t: 'code', v });
        i = close + n;
        continue;
      }
      text += '`'.repeat(n);
      i += n;
      continue;
    }
    if (ch === '*' || ch === '_' || ch === '~') {
      let n = 1;
      while (src[i + n] === ch) n++;
      const before = i > 0 ? src[i - 1]! : ' ';
      const after = src[i + n] ?? ' ';
      const left = !WS.test(after) && (!PUNCT_CHAR.test(after) || WS.test(before) || PUNCT_CHAR.test(before));
      const right = !WS.test(before) && (!PUNCT_CHAR.test(before) || WS.test(after) || PUNCT_CHAR.test(after));
      // `_` inside a word (snake_case) neither opens nor closes; `~` counts only as `~~`.
      const open = ch === '_' ? left && (!right || PUNCT_CHAR.test(before)) : left;
      const close = ch === '_' ? right && (!left || PUNCT_CHAR.test(after)) : right;
      if ((open || close) && (ch !== '~' || n === 2)) {
        flush();
        add({ ch, len: n, open, close });
      } else text += ch.repeat(n);
      i += n;
      continue;
    }
    if (ch === '[') {
      const link = linkAt(src, i, misses);
      if (link) {
        flush();
        for (const n of link.nodes) add(n);
        i = link.end;
        continue;
      }
    }
    if (ch === '<') {
      const m = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(src.slice(i, i + 2048));
      const href = m ? safeHref(m[1]!) : undefined;
      if (m && href) {
        flush();
        add({ t: 'link', href, c: [{ t: 'text', v: m[1]! }] });
        i += m[0].length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H') && /^https?:\/\//i.test(src.slice(i, i + 8)) && (i === 0 || /[\s(]/.test(src[i - 1]!))) {
      const m = /^https?:\/\/[^\s<>]+/i.exec(src.slice(i, i + 2048))!;
      const url = m[0].replace(/[.,:;!?)'"]+$/, '');
      const href = safeHref(url);
      if (href) {
        flush();
        add({ t: 'link', href, c: [{ t: 'text', v: url }] });
        i += url.length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  emphasis(head);
  return collect(head.next, undefined);
}

/**
 * Pairs delimiter runs into em / strong / del, CommonMark's way: each closer takes the nearest
 * opener of its kind. A kind whose search failed is not searched below that point again, so any
 * input is handled in linear time.
 */
function emphasis(head: Cell): void {
  const openers: Cell[] = [];
  const bottom = new Map<string, number>();
  for (let c = head.next; c; c = c.next) {
    const d = c.v;
    if (!isDelim(d)) continue;
    if (d.close) {
      while (d.len > 0) {
        let k = openers.length - 1;
        const floor = bottom.get(d.ch) ?? 0;
        while (k >= floor && (openers[k]!.v as Delim).ch !== d.ch) k--;
        if (k < floor) {
          bottom.set(d.ch, openers.length);
          break;
        }
        const oc = openers[k]!;
        const o = oc.v as Delim;
        const use = d.ch === '~' ? 2 : o.len >= 2 && d.len >= 2 ? 2 : 1;
        const node: Inline = { t: d.ch === '~' ? 'del' : use === 2 ? 'strong' : 'em', c: collect(oc.next, c) };
        const cell: Cell = { v: node, prev: oc, next: c };
        oc.next = cell;
        c.prev = cell;
        o.len -= use;
        d.len -= use;
        openers.length = k + 1; // openers inside the span can no longer match
        if (o.len === 0) {
          unlink(oc);
          openers.pop();
        }
      }
    }
    if (d.len > 0 && d.open) openers.push(c);
    else if (d.len === 0) unlink(c);
  }
}

function unlink(c: Cell): void {
  if (c.prev) c.prev.next = c.next;
  if (c.next) c.next.prev = c.prev;
}

/** The cells from `from` up to (not including) `to` as inline nodes; unmatched runs are text. */
function collect(from: Cell | undefined, to: Cell | undefined): Inline[] {
  const out: Inline[] = [];
  for (let c = from; c && c !== to; c = c.next) {
    const v = c.v;
    const node: Inline = isDelim(v) ? { t: 'text', v: v.ch.repeat(v.len) } : v;
    const last = out.at(-1);
    if (node.t === 'text' && last?.t === 'text') last.v += node.v;
    else if (node.t !== 'text' || node.v !== '') out.push(node.t === 'text' ? { ...node } : node);
  }
  return out;
}

/** The closing run of n backticks at or after `from`, remembering where there is none. */
function codeCloser(src: string, n: number, from: number, misses: Misses): number {
  const missFrom = misses.get(n);
  if (missFrom !== undefined && from >= missFrom) return -1;
  const run = '`'.repeat(n);
  for (let at = src.indexOf(run, from); at >= 0; at = src.indexOf(run, at + 1)) {
    // Exactly n: a longer run is not this span's end.
    if (src[at - 1] !== '`' && src[at + n] !== '`') return at;
    while (src[at + 1] === '`') at++;
  }
  misses.set(n, Math.min(missFrom ?? from, from));
  return -1;
}

/** `[text](url)` at i; a link whose target is not allowed stays its text. */
function linkAt(src: string, i: number, misses: Misses): { nodes: Inline[]; end: number } | undefined {
  // No ']' (or no ')') anywhere after: no link can start here or later.
  if (nothingAfter(src, ']', i, misses) || nothingAfter(src, ')', i, misses)) return undefined;
  let depth = 0;
  let j = i;
  const stop = Math.min(src.length, i + MAX_LABEL);
  for (; j < stop; j++) {
    if (src[j] === '\\') {
      j++;
      continue;
    }
    if (src[j] === '[') depth++;
    else if (src[j] === ']' && --depth === 0) break;
  }
  if (j >= stop || src[j + 1] !== '(') return undefined;
  // The target ends at its balanced ')': javascript:alert(1) is one target, not `javascript:alert(1`.
  let close = -1;
  for (let k = j + 2, d = 0; k < Math.min(src.length, j + 2 + MAX_TARGET); k++) {
    const c = src[k];
    if (c === '\\') k++;
    else if (c === '(') d++;
    else if (c === ')' && d-- === 0) {
      close = k;
      break;
    } else if (c === '\n' && src[k + 1] === '\n') break;
  }
  if (close < 0) return undefined;
  const target = src.slice(j + 2, close).trim().split(/\s+/)[0]?.replace(/^<|>$/g, '') ?? '';
  const label = inlines(src.slice(i + 1, j));
  const href = safeHref(target);
  return { nodes: href ? [{ t: 'link', href, c: label }] : label, end: close + 1 };
}
