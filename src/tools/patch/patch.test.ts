import { describe, expect, it } from 'vitest';
import { applyHunks } from './apply-hunks.js';
import { parsePatch, patchPaths } from './parse-patch.js';

const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

describe('parsing the patch format', () => {
  it('adds, updates with a move, deletes; text around the markers is ignored', () => {
    const r = parsePatch(`apply_patch <<'EOF'\n${P('*** Add File: a.txt\n+hello\n+world\n*** Update File: b.ts\n*** Move to: c.ts\n@@ function f() {\n-  return 1;\n+  return 2;\n*** Delete File: d.md')}\nEOF`);
    expect(r).toEqual({
      ok: true,
      ops: [
        { type: 'add', path: 'a.txt', content: 'hello\nworld\n' },
        { type: 'update', path: 'b.ts', moveTo: 'c.ts', hunks: [{ anchor: 'function f() {', atEnd: false, lines: [{ kind: '-', text: '  return 1;' }, { kind: '+', text: '  return 2;' }] }] },
        { type: 'delete', path: 'd.md' },
      ],
    });
    expect(patchPaths(P('*** Update File: b.ts\n*** Move to: c.ts\n@@\n-x\n+y'))).toEqual(['b.ts', 'c.ts']);
  });

  it.each([
    ['no begin', '*** Update File: a\n-x', /must start with/],
    ['no end', '*** Begin Patch\n*** Update File: a\n-x', /must end with/],
    ['an add line without +', P('*** Add File: a\nplain'), /every line of a new file starts with "\+"/],
    ['a hunk that changes nothing', P('*** Update File: a\n@@\n x'), /hunk 1 changes nothing/],
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
    expect(r).toEqual({ ok: true, text: file.replace('g() {\n  return 1;', 'g() {\n  return 2;'), forgiven: false });
    const two = applyHunks(file, hunks('@@\n function f() {\n-  return 1;\n+  return 3;\n@@\n function g() {\n-  return 1;\n+  return 4;'), 'f.ts');
    expect(two.ok && two.text).toBe(file.replace('return 1', 'return 3').replace('return 1', 'return 4'));
  });

  it('a hunk whose lines are not there fails naming the hunk and its first lines', () => {
    const r = applyHunks(file, hunks('@@\n function f() {\n-  return 1;\n+  return 3;\n@@\n function h() {\n-  return 1;\n+  return 5;'), 'f.ts');
    expect(r).toEqual({ ok: false, error: 'f.ts, hunk 2: its lines were not found after the hunk before it; read the file again. The hunk\'s first lines:\n  function h() {\n    return 1;' });
  });

  it('lines copied with different indentation still apply, and it is said; CRLF stays CRLF', () => {
    const r = applyHunks('a\r\n  b\r\nc\r\n', hunks('@@\n a\n-b\n+B'), 'x');
    expect(r).toEqual({ ok: true, text: 'a\r\nB\r\nc\r\n', forgiven: true });
  });

  it('*** End of File anchors a hunk to the end; additions alone go to the end', () => {
    expect(applyHunks('x\ny\nx\n', hunks('@@\n-x\n+z\n*** End of File'), 'x')).toEqual({ ok: true, text: 'x\ny\nz\n', forgiven: false });
    expect(applyHunks('x\n', hunks('@@\n+y'), 'x')).toEqual({ ok: true, text: 'x\ny\n', forgiven: false });
  });
});
