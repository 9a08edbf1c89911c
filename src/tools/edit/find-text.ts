// Finding the text an edit replaces. Exact first; when that fails, the slips models make most
// (trailing spaces, a block indented one level off, LF written for a CRLF file) are forgiven, but
// only where exactly one place fits, and the result says which slip was forgiven so the model
// can tell the person. Anything looser would edit a place the model did not mean.

import { reindent } from './reindent.js';

export type MatchHow = 'exact' | 'line endings' | 'trailing whitespace' | 'indentation';

export interface TextMatch {
  /**
   * Where each replaced piece starts and how long it is in the file's text, in file order, and
   * what is written there (re-indented to that occurrence's own indentation, or given CRLF
   * endings, when needed).
   */
  spans: { start: number; length: number; replacement: string }[];
  how: MatchHow;
}

export type FindResult = { ok: true; match: TextMatch } | { ok: false; reason: 'not found' | 'ambiguous'; count?: number };

/** Finds `old` in `text` (every occurrence with `all`, else the one occurrence) and gives `replacement` as it should be written. */
export function findText(text: string, old: string, replacement: string, all = false): FindResult {
  const exact = occurrences(text, old);
  if (exact.length > 0) {
    if (exact.length > 1 && !all) return { ok: false, reason: 'ambiguous', count: exact.length };
    return { ok: true, match: { spans: exact.map((start) => ({ start, length: old.length, replacement })), how: 'exact' } };
  }
  // A CRLF file edited with LF text (or the reverse): the same text in the file's own endings.
  const crlf = text.includes('\r\n');
  if (crlf !== old.includes('\r\n') && old.includes('\n')) {
    const swap = (s: string) => (crlf ? s.replace(/\r?\n/g, '\r\n') : s.replace(/\r\n/g, '\n'));
    const found = occurrences(text, swap(old));
    if (found.length === 1 || (found.length > 1 && all)) {
      return { ok: true, match: { spans: found.map((start) => ({ start, length: swap(old).length, replacement: swap(replacement) })), how: 'line endings' } };
    }
    if (found.length > 1) return { ok: false, reason: 'ambiguous', count: found.length };
  }
  const lines = splitLines(text);
  const want = splitLines(old.replace(/\r\n/g, '\n'));
  while (want.length > 1 && want[want.length - 1]!.text === '') want.pop(); // a trailing newline in `old`
  const nl = crlf ? '\r\n' : '\n';
  // `old` ended with a line break, which the line windows below do not take: nor does the replacement then.
  if (/\n$/.test(old)) replacement = replacement.replace(/\r?\n$/, '');
  const rightTrimmed = lineWindows(lines, want, (a, b) => a.trimEnd() === b.trimEnd());
  if (rightTrimmed.length > 0) {
    const r = replacement.replace(/\r?\n/g, nl);
    return windowsResult(lines, want.length, rightTrimmed, () => r, 'trailing whitespace', all);
  }
  const trimmed = lineWindows(lines, want, (a, b) => a.trim() === b.trim());
  if (trimmed.length === 0) return { ok: false, reason: 'not found' };
  // Indentation: the block is right but shifted; the replacement is shifted the same way, at
  // each occurrence to that occurrence's own indentation (replace_all may find several).
  const oldLines = want.map((l) => l.text);
  const newLines = splitLines(replacement.replace(/\r\n/g, '\n')).map((l) => l.text);
  const reindented = (at: number) => reindent(newLines, oldLines, lines.slice(at, at + want.length).map((l) => l.text)).join(nl);
  return windowsResult(lines, want.length, trimmed, reindented, 'indentation', all);
}

function windowsResult(lines: Line[], size: number, starts: number[], replacement: (at: number) => string, how: MatchHow, all: boolean): FindResult {
  if (starts.length > 1 && !all) return { ok: false, reason: 'ambiguous', count: starts.length };
  const spans = starts.map((i) => {
    const start = lines[i]!.start;
    const last = lines[i + size - 1]!;
    return { start, length: last.start + last.text.length - start, replacement: replacement(i) };
  });
  return { ok: true, match: { spans, how } };
}

/** Writes the replacement at every span of a match. */
export function applyMatch(text: string, m: TextMatch): string {
  let out = '';
  let at = 0;
  for (const s of m.spans) {
    out += text.slice(at, s.start) + s.replacement;
    at = s.start + s.length;
  }
  return out + text.slice(at);
}

interface Line {
  /** The line without its ending (a CR before the LF is dropped too). */
  text: string;
  start: number;
}

function splitLines(s: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = s.indexOf('\n', start);
    const end = nl < 0 ? s.length : nl;
    const text = s.slice(start, end > start && s[end - 1] === '\r' ? end - 1 : end);
    out.push({ text, start });
    if (nl < 0) return out;
    start = nl + 1;
  }
}

/** Line indices where `want` fits line by line under `same`; windows never overlap. */
function lineWindows(lines: Line[], want: Line[], same: (a: string, b: string) => boolean): number[] {
  const out: number[] = [];
  if (want.length === 0 || want.every((l) => l.text.trim() === '')) return out;
  for (let i = 0; i + want.length <= lines.length; i++) {
    let fits = true;
    for (let j = 0; j < want.length && fits; j++) fits = same(lines[i + j]!.text, want[j]!.text);
    if (fits) {
      out.push(i);
      i += want.length - 1;
    }
  }
  return out;
}

function occurrences(text: string, piece: string): number[] {
  const out: number[] = [];
  if (piece.length === 0) return out;
  for (let i = text.indexOf(piece); i >= 0; i = text.indexOf(piece, i + piece.length)) out.push(i);
  return out;
}
