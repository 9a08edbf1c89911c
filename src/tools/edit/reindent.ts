// Re-indenting lines a model wrote against a block it copied with the wrong indentation: each
// indentation the model used in the old lines is mapped to the one the file has at the same line,
// so nested lines keep their nesting and land at the file's own depth (tabs stay tabs).

const lead = (l: string): string => /^[ \t]*/.exec(l)![0];

/** The smallest indentation among the non-blank lines. */
export function minIndent(lines: readonly string[]): string {
  let best: string | undefined;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const ind = lead(l);
    if (best === undefined || ind.length < best.length) best = ind;
  }
  return best ?? '';
}

/**
 * `lines` (new text the model wrote) re-indented from the model's `old` lines to the file's
 * `found` lines (the same lines, as the file has them, in the same order).
 */
export function reindent(lines: readonly string[], old: readonly string[], found: readonly string[]): string[] {
  const map = new Map<string, string>();
  old.forEach((l, i) => {
    const f = found[i];
    if (l.trim() !== '' && f !== undefined && !map.has(lead(l))) map.set(lead(l), lead(f));
  });
  const from = minIndent(old);
  const to = minIndent(found);
  return lines.map((l) => {
    if (l.trim() === '') return l;
    const own = lead(l);
    const mapped = map.get(own);
    if (mapped !== undefined) return mapped + l.slice(own.length);
    // Deeper than any old line: the longest known indentation it extends, mapped, plus the rest.
    let best: string | undefined;
    for (const k of map.keys()) if (own.startsWith(k) && (best === undefined || k.length > best.length)) best = k;
    if (best !== undefined) return map.get(best)! + l.slice(best.length);
    if (l.startsWith(from)) return to + l.slice(from.length);
    return to + l.trimStart(); // less indented than the block it was given in: the block's level
  });
}
