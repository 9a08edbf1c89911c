import { describe, expect, it } from 'vitest';
import { Collector, type Paging } from './results.js';
import { comparePaths, SortedHits } from './sorted-hits.js';

const paging = (mode: Paging['mode'], limit: number, offset = 0): Paging => ({ mode, offset, limit, before: 0, after: 0, maxLineChars: 500 });
const hit = (rel: string, n = 1) => ({ rel, lines: Array.from({ length: n }, (_, i) => ({ n: i + 1, text: 'x', match: true })) });

describe('grep hits from a parallel walk, shown in path order', () => {
  it('orders as a folder-by-folder walk does: a/b before a.c, names by byte', () => {
    const paths = ['a.c', 'b', 'a/b', 'A', 'a/a/z', 'é', 'a-b/c', 'a/b.c'];
    expect([...paths].sort(comparePaths)).toEqual(['A', 'a/a/z', 'a/b', 'a/b.c', 'a-b/c', 'a.c', 'b', 'é']);
  });

  it('gives the same page whatever order the files arrived in, holding only what the page needs', () => {
    const names = Array.from({ length: 500 }, (_, i) => `d${i % 7}/f${String(i).padStart(3, '0')}.js`);
    const pages = [names, [...names].reverse(), [...names].sort(() => 0.5 - ((names.length * 7919) % 13) / 13)].map((order) => {
      const c = new Collector(paging('files', 10, 5));
      const s = new SortedHits(c);
      for (const n of order) s.add(n, hit(n));
      s.flush();
      return c.render();
    });
    const want = [...names].sort(comparePaths).slice(5, 15).join('\n');
    for (const p of pages) expect(p).toEqual({ text: want, shown: 10, more: true });
  });

  it('counts matching lines in content mode when it trims', () => {
    const c = new Collector(paging('content', 3));
    const s = new SortedHits(c);
    for (let i = 199; i >= 0; i--) s.add(`f${String(i).padStart(3, '0')}`, hit(`f${String(i).padStart(3, '0')}`, 2));
    s.flush();
    const r = c.render();
    expect(r.text.split('\n')).toEqual(['f000:1:x', 'f000:2:x', 'f001:1:x']);
    expect(r.more).toBe(true);
  });
});
