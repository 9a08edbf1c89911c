import { describe, expect, it } from 'vitest';
import { PendingEdits } from '../../../extensions/vscode/src/edits/pending-edits.js';
import { editPlan, endOf } from '../../../extensions/vscode/src/model/edit-plan.js';
import { sliceLines } from '../../../extensions/vscode/src/model/text-range.js';

// Edits → WorkspaceEdit plans, the staging of the agent's writes, and fs/read_text_file windows.

describe('editPlan', () => {
  it('creates a file that does not exist', () => {
    expect(editPlan('/ws/new.py', "print('hi')\n", undefined)).toEqual({ kind: 'create', path: '/ws/new.py', text: "print('hi')\n" });
  });

  it('replaces the whole of an existing file, to its last character', () => {
    expect(editPlan('/ws/a.txt', 'new\n', 'one\ntwo\nthree')).toEqual({
      kind: 'replace',
      path: '/ws/a.txt',
      text: 'new\n',
      range: { start: { line: 0, character: 0 }, end: { line: 2, character: 5 } },
    });
  });

  it('does nothing when the file already says it', () => {
    expect(editPlan('/ws/a.txt', 'same\n', 'same\n')).toEqual({ kind: 'none', path: '/ws/a.txt' });
  });

  it('counts lines as VS Code does (\\n, \\r\\n, \\r)', () => {
    expect(endOf('')).toEqual({ line: 0, character: 0 });
    expect(endOf('a\n')).toEqual({ line: 1, character: 0 });
    expect(endOf('a\r\nbb\rccc')).toEqual({ line: 2, character: 3 });
  });
});

describe('PendingEdits', () => {
  it('keeps the first original and the latest proposal, and tells listeners', () => {
    const p = new PendingEdits();
    const changed: string[] = [];
    p.onChange((path) => changed.push(path));
    p.stage('s', '/ws/a', 'v1', 'orig');
    const e = p.stage('s', '/ws/a', 'v2', 'v1 (what the agent read back)');
    expect(e).toEqual({ path: '/ws/a', original: 'orig', proposed: 'v2', rev: 2, sessionId: 's' });
    expect(p.list()).toHaveLength(1);
    expect(p.take('/ws/a')?.proposed).toBe('v2');
    expect(p.get('/ws/a')).toBeUndefined();
    expect(p.take('/ws/a')).toBeUndefined();
    expect(changed).toEqual(['/ws/a', '/ws/a', '/ws/a']);
  });

  it('records a new file as original null', () => {
    const p = new PendingEdits();
    expect(p.stage('s', '/ws/new', 'x', null).original).toBeNull();
  });
});

describe('sliceLines', () => {
  const text = 'l1\nl2\nl3\nl4';
  it('returns the whole text without a window', () => expect(sliceLines(text)).toBe(text));
  it('starts at a 1-based line', () => expect(sliceLines(text, 3)).toBe('l3\nl4'));
  it('takes limit lines', () => expect(sliceLines(text, 2, 2)).toBe('l2\nl3'));
  it('takes the first lines with only a limit', () => expect(sliceLines(text, null, 1)).toBe('l1'));
});

describe('PendingEdits decisions (a write waits for the person)', () => {
  it('answers the waiting write with the decision, once', async () => {
    const p = new PendingEdits();
    const seen: boolean[] = [];
    p.onChange((path) => seen.push(p.isWaiting(path)));
    p.stage('s', '/ws/a', 'v1', 'orig');
    const d = p.decision('/ws/a');
    expect(p.isWaiting('/ws/a')).toBe(true);
    expect(seen).toEqual([false, true]); // listeners learn that a turn waits on it
    expect(p.decide('/ws/a', { kind: 'rejected', reason: 'keep it' })).toBe(true);
    await expect(d).resolves.toEqual({ kind: 'rejected', reason: 'keep it' });
    expect(p.isWaiting('/ws/a')).toBe(false);
    expect(p.decide('/ws/a', { kind: 'accepted' })).toBe(false);
  });

  it('an edit restored after a reload has no write waiting on it', () => {
    const p = new PendingEdits();
    p.stage('s', '/ws/b', 'v1', null);
    expect(p.isWaiting('/ws/b')).toBe(false);
  });
});
