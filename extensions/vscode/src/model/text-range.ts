/** `fs/read_text_file`'s optional window: `line` is 1-based, `limit` counts lines. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (line == null && limit == null) return text;
  const lines = text.split('\n');
  const from = Math.max(0, (line ?? 1) - 1);
  const to = limit == null ? lines.length : from + limit;
  return lines.slice(from, to).join('\n');
}
