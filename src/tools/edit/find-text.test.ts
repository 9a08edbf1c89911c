import { describe, expect, it } from 'vitest';
import { applyMatch, findText } from './find-text.js';
import { replaceAll } from './replace.js';

const edit = (text: string, old: string, now: string, all = false) => {
  const r = findText(text, old, now, all);
  return r.ok ? { text: applyMatch(text, r.match), how: r.match.how } : r;
};

describe('finding the text an edit replaces', () => {
  it('exact text once; twice is ambiguous unless every one is replaced', () => {
    expect(edit('a b a', 'b', 'c')).toEqual({ text: 'a c a', how: 'exact' });
    expect(edit('a b a', 'a', 'c')).toEqual({ ok: false, reason: 'ambiguous', count: 2 });
    expect(edit('a b a', 'a', 'c', true)).toEqual({ text: 'c b c', how: 'exact' });
    expect(edit('abc', 'x', 'y')).toEqual({ ok: false, reason: 'not found' });
  });

  it('a block indented one level off is found and the replacement re-indented to the file', () => {
    const file = 'class A {\n    run() {\n        go();\n    }\n}\n';
    const r = edit(file, 'run() {\n    go();\n}', 'run() {\n    stop();\n    go();\n}');
    expect(r).toEqual({ text: 'class A {\n    run() {\n        stop();\n        go();\n    }\n}\n', how: 'indentation' });
  });

  it('trailing spaces in the file (or in the old text) are forgiven', () => {
    expect(edit('x = 1;   \ny = 2;\n', 'x = 1;\ny = 2;', 'x = 3;\ny = 2;')).toEqual({ text: 'x = 3;\ny = 2;\n', how: 'trailing whitespace' });
  });

  it('LF text edits a CRLF file, and the replacement gets CRLF endings', () => {
    expect(edit('a\r\nb\r\nc\r\n', 'a\nb\n', 'A\nB\n')).toEqual({ text: 'A\r\nB\r\nc\r\n', how: 'line endings' });
  });

  it('a tolerant match that fits two places is ambiguous, never a guess', () => {
    const file = '  if (x) {\n    y();\n  }\n\tif (x) {\n\t  y();\n\t}\n';
    expect(edit(file, 'if (x) {\n  y();\n}', 'if (z) {}')).toMatchObject({ ok: false, reason: 'ambiguous' });
  });

  it('replace_all with an indentation match keeps each occurrence at its own indentation', () => {
    const file = 'a:\n  foo(1)\n    bar()\nb:\n\t\tfoo(1)\n\t\t  bar()\n';
    expect(edit(file, 'foo(1)\n  bar()', 'foo(2)\n  bar()\n    baz()', true)).toEqual({
      text: 'a:\n  foo(2)\n    bar()\n      baz()\nb:\n\t\tfoo(2)\n\t\t  bar()\n\t\t    baz()\n',
      how: 'indentation',
    });
  });

  it('a trailing line break in the old text does not add a blank line', () => {
    expect(edit('  a\n  b\nc\n', 'a\nb\n', 'A\nB\n')).toEqual({ text: '  A\n  B\nc\n', how: 'indentation' });
  });
});

describe('several replacements in order, all or nothing', () => {
  it('each applies to what the one before left; a failure names the edit', () => {
    expect(replaceAll('one two three', [{ old: 'one', new: '1' }, { old: '1 two', new: '12' }, { old: 'three', new: '3' }], (i) => `edit ${i + 1}`)).toEqual({ ok: true, after: '12 3', replaced: 3, forgiven: [] });
    const bad = replaceAll('one two', [{ old: 'one', new: '1' }, { old: 'zzz', new: 'y' }], (i) => `edit ${i + 1}`);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^edit 2: the text to replace was not found \(after the edits before it were applied\)/);
  });
});
