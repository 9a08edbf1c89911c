import { describe, expect, it } from 'vitest';
import { normalizeBash } from './normalize.js';
import { loadBashParser } from './parse/shell-parse.js';

// Pairs that must share a key: only whitespace, comments or quoting style differ.
const SAME: Array<[string, string]> = [
  ["git  push 'origin'", 'git push origin'],
  ['"git" push', 'git push'],
  ['g\\it push', 'git push'],
  ["$'\\x67it' push", 'git push'],
  ['  ls   -la  ', 'ls -la'],
  ['ls -la|wc -l', 'ls -la | wc -l'],
  ['echo "a b"', "echo 'a b'"],
  ['echo a\\ b', "echo 'a b'"],
  ["echo \"it's\"", "echo 'it'\\''s'"],
  ['cd x&&git status', 'cd x && git status'],
  ['git status # check first', 'git status'],
  ['ls;', 'ls'],
  ['git \\\n  status', 'git status'],
  ['FOO="1"  npm test', 'FOO=1 npm test'],
  ['echo hi>out.txt', 'echo hi > out.txt'],
  ['cmd 2>&1', 'cmd 2>& 1'],
  ['echo $(git  log  -1)', 'echo $( git log -1 )'],
  ['for f in *.ts; do  wc -l "$f"; done', 'for f in *.ts; do wc -l "$f"; done'],
];

// Pairs that must NOT share a key: the commands differ in meaning.
const DIFFERENT: Array<[string, string]> = [
  ['git push origin', 'git push origin main'],
  ['git push', 'git pushx'],
  ["echo 'a b'", 'echo a b'],
  ["rm -rf x", "rm -rf 'x y'"],
  ['echo $HOME', "echo '$HOME'"],
  ['ls *.c', "ls '*.c'"],
  ['ls ~', "ls '~'"],
  ['cmd 2>&1', 'cmd 2 >&1'],
  ['a\nb', 'a b'],
  ['a; b', 'a && b'],
  ["'a=b' c", 'a=b c'],
  ["'if' x", 'if x; then :; fi'],
  ['echo "$(ls)"', 'echo $(ls)'],
  ['echo \\;', 'echo ;'],
  ['ls {a,b}', "ls '{a,b}'"],
];

describe('normalizeBash', () => {
  it.each(SAME)('%j == %j', async (a, b) => {
    expect(await normalizeBash(a)).toBe(await normalizeBash(b));
  });

  it.each(DIFFERENT)('%j != %j', async (a, b) => {
    expect(await normalizeBash(a)).not.toBe(await normalizeBash(b));
  });

  it('gives readable keys', async () => {
    expect(await normalizeBash("git  push   'origin'")).toBe('git push origin');
    expect(await normalizeBash('ls -la|wc -l; echo "a b"')).toBe("ls -la | wc -l; echo 'a b'");
  });

  it('keeps here-documents and unparsable text verbatim (trimmed)', async () => {
    expect(await normalizeBash("cat <<'EOF'\n  x  y\nEOF\n")).toBe("cat <<'EOF'\n  x  y\nEOF");
    expect(await normalizeBash("echo 'open ")).toBe("echo 'open");
  });

  it('produces valid bash that normalizes to itself', async () => {
    const parse = await loadBashParser();
    for (const [a, b] of [...SAME, ...DIFFERENT]) {
      for (const cmd of [a, b]) {
        const key = await normalizeBash(cmd);
        const parsed = parse(key);
        if (!parse(cmd.trim()).ok) continue;
        expect(parsed.ok, `${JSON.stringify(cmd)} → ${JSON.stringify(key)}`).toBe(true);
        expect(await normalizeBash(key)).toBe(key);
      }
    }
  });
});
