import { describe, expect, it } from 'vitest';
import { inlines, parseMarkdown, safeHref, stableCut, type Block, type Inline } from '../../console/src/markdown.js';

// The console's Markdown parser builds a tree (never HTML); these check what models write and
// that nothing hostile becomes markup or a link it should not be.

const text = (nodes: Inline[]): string => nodes.map((n) => (n.t === 'text' || n.t === 'code' ? n.v : n.t === 'br' ? '\n' : text(n.c))).join('');
const links = (blocks: Block[]): string[] => JSON.stringify(blocks).match(/"href":"[^"]*"/g) ?? [];

describe('parseMarkdown', () => {
  it('paragraphs, headings, emphasis, code spans and fences', () => {
    const md = parseMarkdown('# Title\n\nSome **bold**, *em*, _also em_, ~~gone~~ and `code`.\n\n```ts\nconst x = 1;\n```\n');
    expect(md.map((b) => b.t)).toEqual(['h', 'p', 'code']);
    expect(md[0]).toMatchObject({ t: 'h', level: 1 });
    const p = md[1] as Extract<Block, { t: 'p' }>;
    expect(p.c.map((n) => n.t)).toEqual(['text', 'strong', 'text', 'em', 'text', 'em', 'text', 'del', 'text', 'code', 'text']);
    expect(md[2]).toEqual({ t: 'code', lang: 'ts', v: 'const x = 1;' });
  });

  it('a fence still streaming (not closed yet) is code to the end', () => {
    expect(parseMarkdown('Look:\n```\nline 1\nline 2')).toEqual([
      { t: 'p', c: [{ t: 'text', v: 'Look:' }] },
      { t: 'code', lang: '', v: 'line 1\nline 2' },
    ]);
  });

  it('lists (ordered, nested), quotes, rules and pipe tables', () => {
    const md = parseMarkdown('1. one\n2. two\n   - inner\n\n> quoted\n\n---\n\n| a | b |\n|---|:-:|\n| 1 | `x|y` |\n');
    expect(md.map((b) => b.t)).toEqual(['list', 'quote', 'hr', 'table']);
    const list = md[0] as Extract<Block, { t: 'list' }>;
    expect(list).toMatchObject({ ordered: true, start: 1 });
    expect(list.items).toHaveLength(2);
    expect(list.items[1]!.map((b) => b.t)).toEqual(['p', 'list']);
    const table = md[3] as Extract<Block, { t: 'table' }>;
    expect(table.head.map(text)).toEqual(['a', 'b']);
    expect(table.rows).toHaveLength(1);
  });

  it('snake_case and 2*3*4 are not emphasis', () => {
    expect(text(inlines('a_snake_case_name'))).toBe('a_snake_case_name');
    expect(inlines('a_snake_case_name').map((n) => n.t)).toEqual(['text']);
    expect(inlines('2 * 3 * 4').map((n) => n.t)).toEqual(['text']);
  });

  it('raw HTML stays text: no node of the tree is markup', () => {
    const md = parseMarkdown('<img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n<a href="javascript:alert(3)">x</a>');
    expect(JSON.stringify(md)).not.toMatch(/"t":"(?!p"|text")/);
    expect(text((md[0] as Extract<Block, { t: 'p' }>).c)).toBe('<img src=x onerror="alert(1)"> <script>alert(2)</script>');
  });

  it('links keep only http(s) and mailto targets; others stay their text', () => {
    const md = parseMarkdown(
      '[ok](https://example.com/a?b=1) [mail](mailto:a@b.c) [js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [data](data:text/html,<b>) [rel](/session) <https://auto.link/x> see https://bare.example/path.',
    );
    expect(links(md)).toEqual(['"href":"https://example.com/a?b=1"', '"href":"mailto:a@b.c"', '"href":"https://auto.link/x"', '"href":"https://bare.example/path"']);
    expect(text((md[0] as Extract<Block, { t: 'p' }>).c)).toContain('js JS data rel');
  });

  it('safeHref', () => {
    expect(safeHref(' https://x.y/ ')).toBe('https://x.y/');
    for (const bad of ['javascript:alert(1)', ' javascript:x', 'vbscript:x', 'data:x', '//evil.example/', '/relative', 'http:/x', '']) expect(safeHref(bad)).toBeUndefined();
  });

  it('stays fast on hostile input (many unmatched delimiters)', () => {
    const started = performance.now();
    parseMarkdown('*_~`['.repeat(4000) + '\n' + '**a'.repeat(4000));
    parseMarkdown('x'.repeat(200_000));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('stableCut (a streaming message parsed in two parts)', () => {
  const para = (n: number) => `Paragraph ${n} ${'word '.repeat(200)}`;
  it('cuts at the last blank line before a new top-level block, never inside a fence or a list', () => {
    const short = 'a\n\nb';
    expect(stableCut(short)).toBe(0);
    const text = `${para(1)}\n\n${para(2)}\n\n${para(3)}\n\n${para(4)}\n\nstill streaming`;
    expect(text.slice(stableCut(text))).toBe('\n\nstill streaming');
    const fenced = `${para(1)}\n\n${para(2)}\n\n${para(3)}\n\n${para(4)}\n\n\`\`\`\ncode\n\ncode`;
    expect(stableCut(fenced)).toBe(fenced.indexOf('\n\n```'));
    const list = `${para(1)}\n\n${para(2)}\n\n${para(3)}\n\n${para(4)}\n\n- one\n\n  more of one\n\n- two`;
    expect(list.slice(stableCut(list)).startsWith('\n\nParagraph 4')).toBe(true);
    // Parsing the two parts gives what parsing the whole gives.
    for (const t of [text, fenced, list]) {
      const cut = stableCut(t);
      expect([...parseMarkdown(t.slice(0, cut)), ...parseMarkdown(t.slice(cut))]).toEqual(parseMarkdown(t));
    }
  });
});
