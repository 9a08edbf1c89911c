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

describe('a title keeps identifiers and drops the tags an editor wrapped round the words', () => {
  it('an underscore inside a word stays; one at a word edge is emphasis', () => {
    expect(titleOf('Fix parse_line in foo_bar.ts')).toBe('Fix parse_line in foo_bar.ts');
    expect(titleOf('Make it _really_ fast')).toBe('Make it really fast');
  });

  it("avante's continuing prompt: the wrapped words, without its system context", () => {
    const avante = '<previous_user_message>Create hello.txt saying hi</previous_user_message>\n<system_context>Continuing from previous session with 1 recent user messages</system_context>';
    expect(titleOf(avante)).toBe('Create hello.txt saying hi');
  });
});

