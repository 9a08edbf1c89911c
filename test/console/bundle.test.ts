import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

// The console ships inside the build (npm run build → dist/console) and loads nothing from the
// network. Its budget (docs/console.md): everything the page loads at most 40 KB gzipped, the
// script at most 80 KB minified.

const DIST = resolve(import.meta.dirname, '../../dist/console');
const BUDGET_GZIP = 40 * 1024;
const BUDGET_JS = 80 * 1024;
const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length;

describe('the built console (npm run build)', () => {
  const files = ['index.html', ...readdirSync(join(DIST, 'assets')).map((f) => `assets/${f}`)];
  const bytes = Object.fromEntries(files.map((f) => [f, readFileSync(join(DIST, f))]));

  it('is one page, one script, one stylesheet and an icon', () => {
    expect(files.sort()).toEqual(['assets/console.css', 'assets/console.js', 'assets/favicon.svg', 'index.html']);
  });

  it(`stays within its budget: ≤ ${BUDGET_GZIP / 1024} KB gzipped in all, the script ≤ ${BUDGET_JS / 1024} KB minified`, () => {
    const total = Object.values(bytes).reduce((n, b) => n + gz(b), 0);
    expect(total).toBeLessThanOrEqual(BUDGET_GZIP);
    expect(bytes['assets/console.js']!.length).toBeLessThanOrEqual(BUDGET_JS);
  });

  it('loads nothing from anywhere else', () => {
    const html = bytes['index.html']!.toString();
    const refs = [...html.matchAll(/(?:src|href)="([^"#][^"]*)"/g)].map((m) => m[1]);
    expect(refs).toEqual(['/assets/favicon.svg', '/assets/console.css', '/assets/console.js']);
    expect(bytes['assets/console.css']!.toString()).not.toMatch(/url\(|@import/);
    // The only absolute URLs in the script are XML namespace names (Preact's SVG and MathML support).
    const urls = new Set(bytes['assets/console.js']!.toString().match(/https?:\/\/[^"'`\s)]+/g) ?? []);
    expect([...urls].filter((u) => !u.startsWith('http://www.w3.org/'))).toEqual([]);
    expect(bytes['assets/console.js']!.toString()).not.toMatch(/\bimport\s*\(|\beval\(|new Function\b/);
  });

  it('its sources never turn a string into markup', () => {
    const src = resolve(import.meta.dirname, '../../console/src');
    const all = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(all.length).toBeGreaterThan(10);
    for (const f of all) expect({ f, text: readFileSync(join(src, f), 'utf8') }).not.toMatchObject({ text: expect.stringMatching(/innerHTML|dangerouslySetInnerHTML|insertAdjacentHTML|document\.write|outerHTML/) });
  });
});
