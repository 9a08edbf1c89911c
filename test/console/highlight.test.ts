import { describe, expect, it } from 'vitest';
import { highlight, languageOf } from '../../console/src/highlight.js';
import { speaker } from '../../console/src/ui/format.js';
import { unknownCommand } from '../../console/src/slash.js';

// The shared highlighter (console and VS Code chat): tokens that join back to the code, the
// comment style of the language; who said what; an unknown slash command kept on the page.

const kinds = (code: string, lang: string) => highlight(code, lang).filter((t) => t.k !== 'plain').map((t) => [t.k, t.v]);

describe('highlight', () => {
  it('finds keywords, strings, numbers and comments, and gives back the code exactly', () => {
    const code = 'def hi():\n    # say it\n    return "hi" * 42\n';
    expect(highlight(code, 'python').map((t) => t.v).join('')).toBe(code);
    expect(kinds(code, 'python')).toEqual([['kw', 'def'], ['com', '# say it'], ['kw', 'return'], ['str', '"hi"'], ['num', '42']]);
  });

  it('uses // and /* */ for C-like languages, where # is not a comment', () => {
    expect(kinds('const a = 1; // one\n/* two */ x = "#no"', 'ts')).toEqual([['kw', 'const'], ['num', '1'], ['com', '// one'], ['com', '/* two */'], ['str', '"#no"']]);
  });

  it('an unfinished string or comment (streaming) runs to the end without losing text', () => {
    const code = 'let s = "open\nnext';
    expect(highlight(code, 'js').map((t) => t.v).join('')).toBe(code);
  });

  it('names the language of a file by its extension', () => {
    expect(languageOf('/ws/src/wide.ts')).toBe('ts');
    expect(languageOf('Makefile')).toBe('makefile');
    expect(languageOf('README')).toBe('');
  });
});

describe('speaker', () => {
  it('says who sent a prompt: this tab, another console, an editor, a bot by name, a nameless HTTP client', () => {
    expect(speaker('http:console', true)).toBe('You');
    expect(speaker('http:console', false)).toBe('Another console');
    expect(speaker('acp-1', false)).toBe('Editor');
    expect(speaker('http:ci-bot', false)).toBe('ci-bot (bot)');
    expect(speaker('http', false)).toBe('An HTTP client');
  });
});

describe('unknownCommand (console)', () => {
  const commands = [{ name: 'status', description: 'show the session' }] as Parameters<typeof unknownCommand>[1];
  it('answers an unknown /name, lets known ones, paths and plain text through', () => {
    expect(unknownCommand('/nonsense', commands)).toMatch(/^\/nonsense is not a command here, so nothing was sent/);
    expect(unknownCommand('/status', commands)).toBeUndefined();
    expect(unknownCommand('/usr/bin is slow', commands)).toBeUndefined();
    expect(unknownCommand('fix /nonsense', commands)).toBeUndefined();
    expect(unknownCommand('/nonsense', [])).toBeUndefined(); // no menu yet: the server decides
  });
});
