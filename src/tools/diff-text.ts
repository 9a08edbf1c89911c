
/** A unified diff in the `--- path / +++ path / @@` shape of ide.md (no Index/=== header). */
export async function unifiedDiff(path: string, oldText: string, newText: string): Promise<string> {
  const { createTwoFilesPatch } = await import('diff'); // loaded on the first edit, not at start-up
  const patch = createTwoFilesPatch(path, path, oldText, newText);
  const start = patch.indexOf('--- ');
  return start >= 0 ? patch.slice(start) : patch;
}
