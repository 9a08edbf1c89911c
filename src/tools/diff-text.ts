import { lazyRequire } from '../util/lazy-require.js';

// Required, not import()ed: a chunk that calls import() cannot use V8's cached code (cli/code-cache.ts).
const diffModule = lazyRequire<typeof import('diff')>('diff');

/** How long computing one diff may hold the event loop; a larger change is summarised instead. */
export const DIFF_BUDGET_MS = 40;

/** A unified diff in the `--- path / +++ path / @@` shape of ide.md (no Index/=== header). */
export async function unifiedDiff(path: string, oldText: string, newText: string, toPath = path): Promise<string> {
  const { createTwoFilesPatch } = diffModule(); // loaded on the first edit, not at start-up
  // Myers' diff is O(N·D): two large, very different texts would hold every session for seconds.
  const patch = createTwoFilesPatch(path, toPath, oldText, newText, undefined, undefined, { timeout: DIFF_BUDGET_MS });
  if (patch === undefined) {
    const lines = (t: string) => (t === '' ? 0 : t.split('\n').length);
    return `--- ${path}\n+++ ${toPath}\n@@ -1,${lines(oldText)} +1,${lines(newText)} @@\n[the change is too large to show as a diff: ${lines(oldText)} lines replaced by ${lines(newText)}]\n`;
  }
  const start = patch.indexOf('--- ');
  return start >= 0 ? patch.slice(start) : patch;
}
