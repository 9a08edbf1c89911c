import { describe, expect, it } from 'vitest';
import { applyHunks, looseNote } from './apply-hunks.js';
import { parsePatch, patchPaths } from './parse-patch.js';

const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

describe('parsing the patch format', () => {
  it('adds, updates with a move, deletes; text around the markers is ignored', () => {
    const r = parsePatch(`apply_patch <<'EOF'\n${P('*** Add File: a.txt\n+hello\n+world\n*** Update File: b.ts\n*** Move to: c.ts\n@@ function f() {\n-  return 1;\n+  return 2;\n*** Delete File: d.md')}\nEOF`);
    expect(r).toEqual({
      ok: true,
      ops: [
        { type: 'add', path: 'a.txt', content: 'hello\nworld\n' },
        { type: 'update', path: 'b.ts', moveTo: 'c.ts', hunks: [{ anchor: 'function f() {', atEnd: false, line: 8, lines: [{ kind: '-', text: '  return 1;' }, { kind: '+', text: '  return 2;' }] }] },
        { type: 'delete', path: 'd.md' },
      ],
    });
    expect(patchPaths(P('*** Update File: b.ts\n*** Move to: c.ts\n@@\n-x\n+y'))).toEqual(['b.ts', 'c.ts']);
  });

  it.each([
    ['no begin', '*** Update File: a\n-x', /must start with/],
    ['no end', '*** Begin Patch\n*** Update File: a\n-x', /must end with/],
    ['an add line without +', P('*** Add File: a\nplain'), /every line of a new file starts with "\+"/],
    ['a hunk that changes nothing', P('*** Update File: a\n@@\n x'), /hunk 1 \(patch line 3\) changes nothing/],
    ['a file twice', P('*** Delete File: a\n*** Delete File: a'), /appears twice/],
    ['an unknown header', P('*** Rename File: a'), /expected "\*\*\* Add File: "/],
  ])('refuses %s', (_name, text, msg) => {
    const r = parsePatch(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(msg);
  });
});

describe('applying hunks', () => {
  const file = 'import x;\n\nfunction f() {\n  return 1;\n}\n\nfunction g() {\n  return 1;\n}\n';
  const hunks = (body: string) => {
    const r = parsePatch(P(`*** Update File: f.ts\n${body}`));
    if (!r.ok || r.ops[0]!.type !== 'update') throw new Error(JSON.stringify(r));
    return r.ops[0]!.hunks;
  };

  it('the anchor picks which of two same blocks changes; hunks apply in order', () => {
    const r = applyHunks(file, hunks('@@ function g() {\n-  return 1;\n+  return 2;'), 'f.ts');
    expect(r).toEqual({ ok: true, text: file.replace('g() {\n  return 1;', 'g() {\n  return 2;'), loose: [] });
    const two = applyHunks(file, hunks('@@\n function f() {\n-  return 1;\n+  return 3;\n@@\n function g() {\n-  return 1;\n+  return 4;'), 'f.ts');
    expect(two.ok && two.text).toBe(file.replace('return 1', 'return 3').replace('return 1', 'return 4'));
  });

  it('a hunk whose lines are not there fails naming the hunk and its first lines', () => {
    const r = applyHunks(file, hunks('@@\n function f() {\n-  return 1;\n+  return 3;\n@@\n function h() {\n-  return 1;\n+  return 5;'), 'f.ts');
    expect(r).toEqual({ ok: false, error: 'f.ts, hunk 2 (patch line 7): its lines were not found after the hunk before it; read the file again. The hunk\'s first lines:\n  function h() {\n    return 1;' });
  });

  it('lines copied with different indentation still apply, and it is said; CRLF stays CRLF', () => {
    const r = applyHunks('a\r\n  b\r\nc\r\n', hunks('@@\n a\n-b\n+B'), 'x');
    expect(r).toEqual({ ok: true, text: 'a\r\n  B\r\nc\r\n', loose: [{ hunk: 1, how: 'indentation' }] });
  });

  it('a loose match keeps the file\'s own context lines and re-indents the added ones, level by level', () => {
    const file = 'class A {\n\trun() {\n\t\tgo();   \n\t}\n}\n';
    // The model copied the block with two-space indentation and no trailing spaces.
    const r = applyHunks(file, hunks('@@\n run() {\n-  go();\n+  if (ok) {\n+    go();\n+  }\n }'), 'a.ts');
    expect(r).toEqual({ ok: true, text: 'class A {\n\trun() {\n\t\tif (ok) {\n\t\t\tgo();\n\t\t}\n\t}\n}\n', loose: [{ hunk: 1, how: 'indentation' }] });
    // Trailing whitespace only: the context line keeps the file's trailing spaces.
    const t = applyHunks('x = 1;  \ny = 2;\n', hunks('@@\n x = 1;\n-y = 2;\n+y = 3;'), 'b.ts');
    expect(t).toEqual({ ok: true, text: 'x = 1;  \ny = 3;\n', loose: [{ hunk: 1, how: 'trailing whitespace' }] });
  });

  it('a loose match that fits two places equally well is an error naming the hunk, never a guess', () => {
    const file = 'if (a) {\n  f();\n}\nif (b) {\n\tf();\n}\n';
    const r = applyHunks(file, hunks('@@\n-    f();\n+    g();'), 'c.ts');
    expect(r).toEqual({ ok: false, error: 'c.ts, hunk 1 (patch line 3): its lines fit 2 places once indentation is ignored; add context lines (copied exactly) so one place fits' });
    // Exact matches still take the first place after the previous hunk, as the format expects.
    expect(applyHunks('f();\nf();\n', hunks('@@\n-f();\n+g();'), 'd.ts')).toEqual({ ok: true, text: 'g();\nf();\n', loose: [] });
  });

  it('the result\'s note says what was done', () => {
    expect(looseNote([{ file: 'a.ts', hunk: 1, how: 'indentation' }, { file: 'b.ts', hunk: 2, how: 'trailing whitespace' }])).toBe(
      "\nSome hunks matched only when ignoring whitespace, and the file's own lines were kept where their context lines differed: a.ts hunk 1 (ignoring indentation: its added lines were re-indented to the file's); b.ts hunk 2 (ignoring trailing whitespace).",
    );
  });

  it('*** End of File anchors a hunk to the end; additions alone go to the end', () => {
    expect(applyHunks('x\ny\nx\n', hunks('@@\n-x\n+z\n*** End of File'), 'x')).toEqual({ ok: true, text: 'x\ny\nz\n', loose: [] });
    expect(applyHunks('x\n', hunks('@@\n+y'), 'x')).toEqual({ ok: true, text: 'x\ny\n', loose: [] });
  });
});
