// Applying one file's hunks to its text. Each hunk's old lines (kept and removed) are looked for
// from where the previous hunk ended, exactly first, then ignoring trailing and then surrounding
// whitespace (the slips a model makes copying lines); a hunk that fits nowhere fails the file,
// naming the hunk and its first lines.
import type { Hunk } from './parse-patch.js';

export type HunksApplied = { ok: true; text: string; forgiven: boolean } | { ok: false; error: string };

export function applyHunks(content: string, hunks: readonly Hunk[], label: string): HunksApplied {
  const eol = content.includes('\r\n') ? '\r\n' : '\n';
  const lines = content.split(/\r?\n/);
  const endsWithBreak = content === '' || /\n$/.test(content);
  if (endsWithBreak) lines.pop();
  const edits: { at: number; remove: number; insert: string[] }[] = [];
  let cursor = 0;
  let forgiven = false;
  for (const [n, h] of hunks.entries()) {
    if (h.anchor !== undefined) {
      const found = seek(lines, [h.anchor], cursor, false);
      if (!found) return { ok: false, error: `${label}, hunk ${n + 1}: the line after "@@" (${JSON.stringify(h.anchor.slice(0, 80))}) was not found` };
      forgiven ||= found.loose;
      cursor = found.at + 1;
    }
    const old = h.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    const now = h.lines.filter((l) => l.kind !== '-').map((l) => l.text);
    if (old.length === 0) {
      // Only additions: after the anchor when there is one, else at the end of the file.
      edits.push({ at: h.anchor !== undefined ? cursor : lines.length, remove: 0, insert: now });
      continue;
    }
    const found = seek(lines, old, cursor, h.atEnd);
    if (!found) {
      const first = old.slice(0, 3).map((l) => `  ${l}`).join('\n');
      return { ok: false, error: `${label}, hunk ${n + 1}: its lines were not found${n > 0 ? ' after the hunk before it' : ''}; read the file again. The hunk's first lines:\n${first}` };
    }
    forgiven ||= found.loose;
    edits.push({ at: found.at, remove: old.length, insert: now });
    cursor = found.at + old.length;
  }
  // From the end, so earlier positions stay valid.
  for (const e of [...edits].sort((a, b) => b.at - a.at)) lines.splice(e.at, e.remove, ...e.insert);
  const text = lines.join(eol) + (lines.length > 0 && endsWithBreak ? eol : '');
  return { ok: true, text, forgiven };
}

function seek(lines: readonly string[], want: readonly string[], from: number, atEnd: boolean): { at: number; loose: boolean } | undefined {
  const tests: ((a: string, b: string) => boolean)[] = [(a, b) => a === b, (a, b) => a.trimEnd() === b.trimEnd(), (a, b) => a.trim() === b.trim()];
  for (const [level, same] of tests.entries()) {
    const fits = (i: number) => want.every((w, j) => same(lines[i + j]!, w));
    if (atEnd) {
      const i = lines.length - want.length;
      if (i >= from && fits(i)) return { at: i, loose: level > 0 };
    }
    for (let i = from; i + want.length <= lines.length; i++) if (fits(i)) return { at: i, loose: level > 0 };
  }
  return undefined;
}
