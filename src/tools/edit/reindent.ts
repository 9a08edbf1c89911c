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
  const unit = unitOf(map);
  const from = minIndent(old);
  const to = minIndent(found);
  return lines.map((l) => {
    if (l.trim() === '') return l;
    const own = lead(l);
    const mapped = map.get(own);
    if (mapped !== undefined) return mapped + l.slice(own.length);
    // Deeper than any old line: the longest known indentation it extends, mapped, then each
    // further level in the file's unit (two spaces in the model's text may be a tab in the file).
    let best: string | undefined;
    for (const k of map.keys()) if (own.startsWith(k) && (best === undefined || k.length > best.length)) best = k;
    if (best !== undefined) return map.get(best)! + levels(own.slice(best.length), unit) + l.slice(own.length);
    if (l.startsWith(from)) return to + l.slice(from.length);
    return to + l.trimStart(); // less indented than the block it was given in: the block's level
  });
}

/** One indentation level in the model's text and in the file, from two nested old lines, when they show it. */
function unitOf(map: ReadonlyMap<string, string>): { model: string; file: string } | undefined {
  let unit: { model: string; file: string } | undefined;
  for (const [h1, f1] of map) {
    for (const [h2, f2] of map) {
      if (h2.length <= h1.length || !h2.startsWith(h1) || f2.length <= f1.length || !f2.startsWith(f1)) continue;
      const model = h2.slice(h1.length);
      if (!unit || model.length < unit.model.length) unit = { model, file: f2.slice(f1.length) };
    }
  }
  return unit;
}

/** `extra` (indentation past a known level) in the file's unit when it is whole levels of the model's. */
function levels(extra: string, unit: { model: string; file: string } | undefined): string {
  if (!unit || extra === '' || extra.length % unit.model.length !== 0 || unit.model.repeat(extra.length / unit.model.length) !== extra) return extra;
  return unit.file.repeat(extra.length / unit.model.length);
}
