import { describe, expect, it } from 'vitest';
import { titleOf } from './title.js';

describe('a session title from the first request', () => {
  it('the first line, without Markdown marks, cut at a word near 60 characters', () => {
    expect(titleOf('\n  Fix the **parser** bug in `src/parse.ts`\nmore detail')).toBe('Fix the parser bug in src/parse.ts');
    expect(titleOf('See [the issue](https://x.example/1) please')).toBe('See the issue please');
    expect(titleOf('a'.repeat(10) + ' ' + 'word '.repeat(20))).toBe(`${'a'.repeat(10)} ${'word '.repeat(10).trim()}…`);
    expect(titleOf('x'.repeat(80))).toBe(`${'x'.repeat(60)}…`);
  });
});

describe('a title from what the person typed, not what the editor embedded', () => {
  it('leaves out <context> blocks', () => {
    expect(titleOf('<context uri="file:///w/a.ts">\nexport const x = 1;\n</context>\nRename x to count')).toBe('Rename x to count');
  });
});
