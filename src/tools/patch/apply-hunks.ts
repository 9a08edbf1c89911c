// Applying one file's hunks to its text. Each hunk's old lines (kept and removed) are looked for
// from where the previous hunk ended: exactly first (the first place, as Codex does), then
// ignoring trailing whitespace, then ignoring indentation (the slips a model makes copying lines).
// A forgiving step is taken only when it finds exactly one place: two equally good places are an
// error naming the hunk, never a guess. Where a hunk matched loosely, the file's own lines stand
// for its context lines and its added lines are re-indented to the file's indentation. A hunk
// that fits nowhere fails the file, naming the hunk, its line in the patch and its first lines.
import { reindent } from '../edit/reindent.js';
import type { Hunk } from './parse-patch.js';

export type Looseness = 'trailing whitespace' | 'indentation';

/** A hunk that matched only loosely: the result says so. */
export interface LooseHunk {
  hunk: number;
  how: Looseness;
}

export type HunksApplied = { ok: true; text: string; loose: LooseHunk[] } | { ok: false; error: string };

const STEPS: { how: Looseness | 'exact'; same: (a: string, b: string) => boolean }[] = [
  { how: 'exact', same: (a, b) => a === b },
  { how: 'trailing whitespace', same: (a, b) => a.trimEnd() === b.trimEnd() },
  { how: 'indentation', same: (a, b) => a.trim() === b.trim() },
];

type Found = { at: number; how: Looseness | 'exact' } | { ambiguous: Looseness; count: number } | undefined;

export function applyHunks(content: string, hunks: readonly Hunk[], label: string): HunksApplied {
  const eol = content.includes('\r\n') ? '\r\n' : '\n';
  const lines = content.split(/\r?\n/);
  const endsWithBreak = content === '' || /\n$/.test(content);
  if (endsWithBreak) lines.pop();
  const edits: { at: number; remove: number; insert: string[]; k: number }[] = [];
  let cursor = 0;
  const loose: LooseHunk[] = [];
  for (const [k, h] of hunks.entries()) {
    const name = `${label}, hunk ${k + 1} (patch line ${h.line})`;
    let hunkHow: Looseness | undefined;
    if (h.anchor !== undefined) {
      const found = seek(lines, [h.anchor], cursor, false);
      if (!found) return { ok: false, error: `${name}: the line after "@@" (${JSON.stringify(h.anchor.slice(0, 80))}) was not found` };
      if ('ambiguous' in found) return { ok: false, error: `${name}: the line after "@@" (${JSON.stringify(h.anchor.slice(0, 80))}) fits ${found.count} places once ${found.ambiguous} is ignored; copy it exactly` };
      if (found.how !== 'exact') hunkHow = found.how;
      cursor = found.at + 1;
    }
    const old = h.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    if (old.length === 0) {
      // Only additions: after the anchor when there is one, else at the end of the file.
      edits.push({ at: h.anchor !== undefined ? cursor : lines.length, remove: 0, insert: h.lines.map((l) => l.text), k });
      if (hunkHow) loose.push({ hunk: k + 1, how: hunkHow });
      continue;
    }
    const found = seek(lines, old, cursor, h.atEnd);
    if (!found) {
      const first = old.slice(0, 3).map((l) => `  ${l}`).join('\n');
      return { ok: false, error: `${name}: its lines were not found${k > 0 ? ' after the hunk before it' : ''}; read the file again. The hunk's first lines:\n${first}` };
    }
    if ('ambiguous' in found) {
      return { ok: false, error: `${name}: its lines fit ${found.count} places once ${found.ambiguous} is ignored; add context lines (copied exactly) so one place fits` };
    }
    const have = lines.slice(found.at, found.at + old.length);
    // The file's own lines for context; added lines as written, or re-indented when the match ignored indentation.
    const added = h.lines.filter((l) => l.kind === '+').map((l) => l.text);
    const placed = found.how === 'indentation' ? reindent(added, old, have) : added;
    const insert: string[] = [];
    let j = 0;
    let a = 0;
    for (const l of h.lines) {
      if (l.kind === '+') insert.push(found.how === 'indentation' ? nearLevel(l.text, old, have, j) ?? placed[a]! : placed[a]!);
      if (l.kind === '+') a++;
      else if (l.kind === ' ') insert.push(have[j++]!);
      else j++;
    }
    if (found.how !== 'exact') hunkHow = found.how === 'indentation' || hunkHow === undefined ? found.how : hunkHow;
    if (hunkHow) loose.push({ hunk: k + 1, how: hunkHow });
    edits.push({ at: found.at, remove: old.length, insert, k });
    cursor = found.at + old.length;
  }
  // From the end, so earlier positions stay valid (a later hunk at the same line goes first, to end up after).
  for (const e of [...edits].sort((x, y) => y.at - x.at || y.k - x.k)) lines.splice(e.at, e.remove, ...e.insert);
  const text = lines.join(eol) + (lines.length > 0 && endsWithBreak ? eol : '');
  return { ok: true, text, loose };
}

/**
 * An added line at the indentation of the nearest old line before it (the line it replaces or
 * follows) that the model indented the same way: that line's indentation in the file. Undefined
 * when there is none (the block's mapping decides).
 */
function nearLevel(text: string, old: readonly string[], have: readonly string[], before: number): string | undefined {
  if (text.trim() === '') return text;
  const own = /^[ \t]*/.exec(text)![0];
  for (let i = before - 1; i >= 0; i--) {
    if (old[i]!.trim() === '') continue;
    if (/^[ \t]*/.exec(old[i]!)![0] === own) return /^[ \t]*/.exec(have[i]!)![0] + text.slice(own.length);
  }
  return undefined;
}

/** The first step that finds `want` from `from` on: exact takes the first place, a forgiving step only a single one. */
function seek(lines: readonly string[], want: readonly string[], from: number, atEnd: boolean): Found {
  for (const { how, same } of STEPS) {
    const fits = (i: number) => want.every((w, j) => same(lines[i + j]!, w));
    const at: number[] = [];
    if (atEnd) {
      const i = lines.length - want.length;
      if (i >= from && fits(i)) at.push(i);
    } else {
      for (let i = from; i + want.length <= lines.length; i++) {
        if (!fits(i)) continue;
        at.push(i);
        if (how === 'exact') break;
      }
    }
    if (at.length === 0) continue;
    if (how !== 'exact' && at.length > 1) return { ambiguous: how, count: at.length };
    return { at: at[0]!, how };
  }
  return undefined;
}

/** The sentence a patch's result adds for hunks that matched loosely: what was forgiven and what was done about it. */
export function looseNote(loose: readonly { file: string; hunk: number; how: Looseness }[]): string {
  if (loose.length === 0) return '';
  const which = loose.map((l) => `${l.file} hunk ${l.hunk} (${l.how === 'indentation' ? "ignoring indentation: its added lines were re-indented to the file's" : 'ignoring trailing whitespace'})`);
  return `\nSome hunks matched only when ignoring whitespace, and the file's own lines were kept where their context lines differed: ${which.join('; ')}.`;
}
