import { createTwoFilesPatch } from 'diff';

/** A unified diff in the `--- path / +++ path / @@` shape of ide.md (no Index/=== header). */
export function unifiedDiff(path: string, oldText: string, newText: string): string {
  const patch = createTwoFilesPatch(path, path, oldText, newText);
  const start = patch.indexOf('--- ');
  return start >= 0 ? patch.slice(start) : patch;
}
