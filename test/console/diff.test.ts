import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff, sideBySide } from '../../console/src/diff.js';

describe('parseUnifiedDiff', () => {
  const DIFF = '--- /w/notes.md\n+++ /w/notes.md\n@@ -1,3 +1,3 @@\n first\n-old line\n+new line\n+added\n last\n\\ No newline at end of file\n';

  it('numbers old and new lines and counts changes', () => {
    const d = parseUnifiedDiff(DIFF);
    expect(d).toMatchObject({ oldPath: '/w/notes.md', newPath: '/w/notes.md', added: 2, removed: 1 });
    expect(d.hunks).toHaveLength(1);
    expect(d.hunks[0]!.lines).toEqual([
      { kind: 'ctx', text: 'first', old: 1, new: 1 },
      { kind: 'del', text: 'old line', old: 2 },
      { kind: 'add', text: 'new line', new: 2 },
      { kind: 'add', text: 'added', new: 3 },
      { kind: 'ctx', text: 'last', old: 3, new: 4 },
      { kind: 'note', text: 'No newline at end of file' },
    ]);
  });

  it('side by side pairs removed with added lines', () => {
    const rows = sideBySide(parseUnifiedDiff(DIFF).hunks[0]!);
    expect(rows.map((r) => [r.left?.text, r.right?.text])).toEqual([
      ['first', 'first'],
      ['old line', 'new line'],
      [undefined, 'added'],
      ['last', 'last'],
      ['No newline at end of file', undefined],
    ]);
  });

  it('keeps a summary that is not a diff as a note', () => {
    const d = parseUnifiedDiff('--- /w/big\n+++ /w/big\n@@ -1,9000 +1,9000 @@\n[the change is too large to show as a diff: 9000 lines replaced by 9000]\n');
    expect(d.hunks[0]!.lines).toEqual([{ kind: 'note', text: '[the change is too large to show as a diff: 9000 lines replaced by 9000]' }]);
  });
});
