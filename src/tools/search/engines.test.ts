// grep and glob through both engines, case by case, in one git workspace: ripgrep and the
// built-in engine must answer the same text, and that text must be right (ignored files left
// out unless asked, filters, context, modes, paging, ferret's state never read).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostFacts, type HostFacts } from '../../sandbox/index.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import type { Tool, ToolContext } from '../define.js';
import { globTool } from '../glob.js';
import { grepTool } from '../grep.js';
import { nodeFiles } from '../node-files.js';
import { searchEngine } from './engine.js';

const root = realpathSync(mkdtempSync(join(scratchRoot(), 'search-engines-')));
const ws = join(root, 'ws');
const home = join(root, 'home');
const outside = join(root, 'outside');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const put = (rel: string, text: string | Buffer) => {
  const p = join(ws, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
};

beforeAll(() => {
  mkdirSync(ws, { recursive: true });
  execFileSync('git', ['init', '-q', ws]);
  put('.gitignore', 'dist/\n*.log\n!keep.log\n# a comment\n/rootonly.txt\n');
  put('.ignore', 'tmp/\n');
  put('.git/info/exclude', 'excluded.txt\n');
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  writeFileSync(join(home, '.config', 'git', 'ignore'), '*.bak\n');
  put('src/a.ts', 'const needle = 1;\nconst other = 2;\nexport { needle };\n');
  put('src/b.tsx', 'line one\nline two\nNEEDLE upper\nline four\nline five\nneedle again\n');
  put('src/sub/.gitignore', 'secret.ts\n');
  put('src/sub/secret.ts', 'needle in a gitignored file\n');
  put('src/sub/c.ts', 'needle two\nneedle three\n');
  put('src/sub/rootonly.txt', 'needle: only the top rootonly.txt is ignored\n');
  put('src.txt', 'needle after the src folder in path order\n');
  put('rootonly.txt', 'needle ignored at the top\n');
  put('dist/out.js', 'needle in build output\n');
  put('dist/x.ts', 'needle in build output\n');
  put('tmp/t.ts', 'needle in .ignore\n');
  put('app.log', 'needle in a log\n');
  put('keep.log', 'needle in a kept log\n');
  put('excluded.txt', 'needle excluded by info/exclude\n');
  put('old.bak', 'needle in a globally ignored file\n');
  put('node_modules/m/index.js', 'needle in a dependency\n');
  put('docs/readme.md', '# Needle\nthe needle café é needle\n');
  put('crlf.txt', 'needle crlf\r\nplain\r\n');
  put('bin.dat', Buffer.from('needle\0binary\n'));
  put('.hidden/h.ts', 'needle in a dot folder\n');
  put('state/eventlog/s.txt', 'needle in ferret state\n');
  put('words.txt', 'needle two\nneedles\nxneedle\nneedle_x\n');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'o.txt'), 'needle outside\n');
  symlinkSync(outside, join(ws, 'linkdir'));
  symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'link.ts'));
});

const hostOf = (engine: 'ripgrep' | 'builtin'): HostFacts => createHostFacts({ env: {}, home, stateRoots: [join(ws, 'state')], searchEngine: engine });
const hosts = { ripgrep: hostOf('ripgrep'), builtin: hostOf('builtin') };

function ctx(host: HostFacts): ToolContext {
  return {
    cwd: ws,
    callId: 'c',
    signal: new AbortController().signal,
    sandbox: 'workspace-write',
    files: nodeFiles,
    env: {},
    facts: host.workspace(ws),
    progress: () => {},
    fileEdit: () => {},
    fileOpen: () => {},
    violation: () => {},
  };
}

/** Runs one call through both engines: the answers must be equal; returns it. */
async function both(tool: Tool, args: Record<string, unknown>): Promise<{ status: string; output: string }> {
  const parsed = tool.schema.parse(args);
  const rg = await tool.run(parsed, ctx(hosts.ripgrep));
  const builtin = await tool.run(parsed, ctx(hosts.builtin));
  expect(builtin, `the built-in engine answers as ripgrep for ${JSON.stringify(args)}`).toEqual(rg);
  return rg;
}

const grep = (args: Record<string, unknown>) => both(grepTool, args);
const files = (out: string) => [...new Set(out.split('\n').map((l) => l.split(/[:-]\d+[:-]/)[0]))];

describe('the engines', () => {
  it('ripgrep is installed and used', async () => {
    expect((await searchEngine(hosts.ripgrep)).kind).toBe('ripgrep');
    expect((await searchEngine(hosts.builtin)).kind).toBe('builtin');
  });
});

describe('grep: the same answers from ripgrep and the built-in engine', () => {
  it('skips ignored files by default, in path order', async () => {
    const r = await grep({ pattern: 'needle' });
    expect(r.status).toBe('completed');
    expect(files(r.output)).toEqual(['.hidden/h.ts', 'crlf.txt', 'docs/readme.md', 'keep.log', 'src/a.ts', 'src/b.tsx', 'src/sub/c.ts', 'src/sub/rootonly.txt', 'src.txt', 'words.txt']);
    // dot folders are searched (no ignore rule names them)
    const h = await grep({ pattern: 'dot folder' });
    expect(h.output).toBe('.hidden/h.ts:1:needle in a dot folder');
  });
  it('include_ignored brings ignored files back, never .git, links or ferret state', async () => {
    const r = await grep({ pattern: 'needle', include_ignored: true, output: 'files' });
    const got = r.output.split('\n');
    for (const f of ['dist/out.js', 'dist/x.ts', 'tmp/t.ts', 'app.log', 'excluded.txt', 'old.bak', 'node_modules/m/index.js', 'src/sub/secret.ts', 'rootonly.txt']) expect(got).toContain(f);
    expect(r.output).not.toMatch(/state\/|linkdir|link\.ts|bin\.dat|\.git\//);
  });
  it('ignore_case', async () => {
    expect((await grep({ pattern: 'NEEDLE upper' })).output).toBe('src/b.tsx:3:NEEDLE upper');
    const r = await grep({ pattern: 'needle upper', ignore_case: true });
    expect(r.output).toBe('src/b.tsx:3:NEEDLE upper');
    expect((await grep({ pattern: 'needle upper' })).output).toBe('no matches');
  });
  it('glob filters: include, path globs and ! excludes', async () => {
    expect(files((await grep({ pattern: 'needle', glob: '*.ts' })).output)).toEqual(['.hidden/h.ts', 'src/a.ts', 'src/sub/c.ts']);
    expect(files((await grep({ pattern: 'needle', glob: ['*.ts', '*.tsx'] })).output)).toEqual(['.hidden/h.ts', 'src/a.ts', 'src/b.tsx', 'src/sub/c.ts']);
    expect(files((await grep({ pattern: 'needle', glob: 'src/**' })).output)).toEqual(['src/a.ts', 'src/b.tsx', 'src/sub/c.ts', 'src/sub/rootonly.txt']);
    expect(files((await grep({ pattern: 'needle', glob: '!src' })).output)).toEqual(['.hidden/h.ts', 'crlf.txt', 'docs/readme.md', 'keep.log', 'src.txt', 'words.txt']);
    // an include glob never brings an ignored file back
    expect((await grep({ pattern: 'needle', glob: 'dist/**' })).output).toBe('no matches');
  });
  it('type filters', async () => {
    expect(files((await grep({ pattern: 'needle', type: 'ts' })).output)).toEqual(['.hidden/h.ts', 'src/a.ts', 'src/b.tsx', 'src/sub/c.ts']);
    expect(files((await grep({ pattern: 'needle', type: ['md', 'txt'] })).output)).toEqual(['crlf.txt', 'docs/readme.md', 'src/sub/rootonly.txt', 'src.txt', 'words.txt']);
    expect(files((await grep({ pattern: 'needle', type: 'ts', glob: 'src/sub/**' })).output)).toEqual(['src/sub/c.ts']);
    const bad = await grep({ pattern: 'needle', type: 'nope' });
    expect(bad.status).toBe('failed');
    expect(bad.output).toMatch(/unknown type "nope"; known types: .*ts/);
  });
  it('context lines', async () => {
    const r = await grep({ pattern: 'upper', context: 1 });
    expect(r.output).toBe('src/b.tsx-2-line two\nsrc/b.tsx:3:NEEDLE upper\nsrc/b.tsx-4-line four');
    const split = await grep({ pattern: 'upper|again', path: 'src/b.tsx', before: 1, after: 0 });
    expect(split.output).toBe('src/b.tsx-2-line two\nsrc/b.tsx:3:NEEDLE upper\n--\nsrc/b.tsx-5-line five\nsrc/b.tsx:6:needle again');
    const files2 = await grep({ pattern: 'needle two|needle upper', ignore_case: true, after: 1 });
    expect(files2.output).toBe('src/b.tsx:3:NEEDLE upper\nsrc/b.tsx-4-line four\n--\nsrc/sub/c.ts:1:needle two\nsrc/sub/c.ts-2-needle three\n--\nwords.txt:1:needle two\nwords.txt-2-needles');
  });
  it('files and count modes', async () => {
    expect((await grep({ pattern: 'needle', glob: 'src/**', output: 'files' })).output).toBe('src/a.ts\nsrc/b.tsx\nsrc/sub/c.ts\nsrc/sub/rootonly.txt');
    expect((await grep({ pattern: 'needle', glob: 'src/**', output: 'count' })).output).toBe('src/a.ts:2\nsrc/b.tsx:1\nsrc/sub/c.ts:2\nsrc/sub/rootonly.txt:1');
  });
  it('limit and offset page through matches, files and counts', async () => {
    const all = (await grep({ pattern: 'needle', path: 'src' })).output.split('\n');
    expect(all).toHaveLength(6);
    const p1 = await grep({ pattern: 'needle', path: 'src', limit: 2 });
    expect(p1.output).toBe(`${all.slice(0, 2).join('\n')}\n… more results: call again with offset 2`);
    const p2 = await grep({ pattern: 'needle', path: 'src', limit: 2, offset: 2 });
    expect(p2.output).toBe(`${all.slice(2, 4).join('\n')}\n… more results: call again with offset 4`);
    const p3 = await grep({ pattern: 'needle', path: 'src', limit: 2, offset: 4 });
    expect(p3.output).toBe(all.slice(4, 6).join('\n'));
    expect((await grep({ pattern: 'needle', path: 'src', limit: 2, offset: 6 })).output).toBe('no results past offset 6');
    expect((await grep({ pattern: 'needle', output: 'files', limit: 1, offset: 2 })).output).toBe('docs/readme.md\n… more results: call again with offset 3');
    expect((await grep({ pattern: 'needle', output: 'count', limit: 1, offset: 4 })).output).toBe('src/a.ts:2\n… more results: call again with offset 5');
  });
  it('a path names what is searched: an ignored folder asked for by name is searched', async () => {
    expect((await grep({ pattern: 'needle', path: 'dist' })).output).toBe('dist/out.js:1:needle in build output\ndist/x.ts:1:needle in build output');
    expect((await grep({ pattern: 'needle', path: 'src/sub' })).output).toBe('src/sub/c.ts:1:needle two\nsrc/sub/c.ts:2:needle three\nsrc/sub/rootonly.txt:1:needle: only the top rootonly.txt is ignored');
    expect((await grep({ pattern: 'needle', path: 'crlf.txt' })).output).toBe('crlf.txt:1:needle crlf');
  });
  it('patterns mean the same in both: \\b, \\w, ., unicode, lookaround, backreferences', async () => {
    expect((await grep({ pattern: '\\bneedle\\b', path: 'words.txt' })).output).toBe('words.txt:1:needle two');
    expect((await grep({ pattern: '\\wneedle', path: 'words.txt' })).output).toBe('words.txt:3:xneedle');
    expect((await grep({ pattern: 'caf. é', path: 'docs' })).output).toBe('docs/readme.md:2:the needle café é needle');
    expect((await grep({ pattern: '^\\w+ \\w+ caf\\W', path: 'docs' })).output).toBe('docs/readme.md:2:the needle café é needle');
    expect((await grep({ pattern: 'needle(?= two)', path: 'words.txt' })).output).toBe('words.txt:1:needle two');
    expect((await grep({ pattern: '(?<!x)needle_', path: 'words.txt' })).output).toBe('words.txt:4:needle_x');
    expect((await grep({ pattern: '(n)eed\\1?le\\/?s', path: 'words.txt' })).output).toBe('words.txt:2:needles');
    expect((await grep({ pattern: 'crlf$' })).output).toBe('no matches'); // the \r is part of the line, as in ripgrep
    expect((await grep({ pattern: 'needle \\{?two\\}?', ignore_case: true, output: 'count' })).output).toBe('src/sub/c.ts:1\nwords.txt:1');
  });
  it.each([
    ['(?i)needle', /\(\? groups other than/],
    ['[]a]', /\[\] and \[\^\] mean different things/],
    ['a{', /a literal \{ must be written/],
    ['\\p{L}', /\\p is not supported/],
    ['\\Aneedle', /\\A is not supported/],
    ['(?<=a+)b', /lookbehind must have a fixed length/],
    ['(', /bad pattern/],
  ])('%s is refused by both with the same message', async (pattern, message) => {
    const r = await grep({ pattern });
    expect(r.status).toBe('failed');
    expect(r.output).toMatch(message);
  });
});

describe('glob: the same files from both engines', () => {
  it('honours the ignore rules, never lists links or ferret state', async () => {
    const r = await both(globTool, { pattern: '**/*.ts' });
    expect(r.output).toBe('.hidden/h.ts\nsrc/a.ts\nsrc/sub/c.ts');
    const all = await both(globTool, { pattern: '**/*.ts', include_ignored: true });
    expect(all.output).toBe('.hidden/h.ts\ndist/x.ts\nsrc/a.ts\nsrc/sub/c.ts\nsrc/sub/secret.ts\ntmp/t.ts');
    expect((await both(globTool, { pattern: 'dist/*' })).output).toBe('no files match');
    expect((await both(globTool, { pattern: 'dist/*', include_ignored: true })).output).toBe('dist/out.js\ndist/x.ts');
    expect((await both(globTool, { pattern: '**/*.txt', include_ignored: true })).output).not.toMatch(/state\/|linkdir/);
    expect((await both(globTool, { pattern: 'linkdir/*' })).output).toBe('no files match');
    expect((await both(globTool, { pattern: '*' })).output).toBe('.gitignore\n.ignore\nbin.dat\ncrlf.txt\nkeep.log\nsrc.txt\nwords.txt');
    expect((await both(globTool, { pattern: 'node_modules/**' })).output).toBe('no files match');
    expect((await both(globTool, { pattern: 'node_modules/**', include_ignored: true })).output).toBe('node_modules/m/index.js');
  });
});
