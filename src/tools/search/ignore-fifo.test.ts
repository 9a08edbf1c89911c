// A FIFO (or a folder, or a device) named like an ignore file must not hold the search: it
// counts as absent, at once. A plain readFile of a FIFO waits forever for a writer.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchRoot } from '../../../test/support/scratch.js';
import { createHostFacts } from '../../sandbox/index.js';
import type { ToolContext } from '../define.js';
import { grepTool } from '../grep.js';
import { nodeFiles } from '../node-files.js';
import { loadDirRules, loadGlobalRules } from './ignore-rules.js';

const root = realpathSync(mkdtempSync(join(scratchRoot(), 'ignore-fifo-')));
const fifos: string[] = [];
afterAll(() => {
  // A reader the old code left waiting is let go, so the worker can exit.
  for (const f of fifos) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting
    }
  }
  rmSync(root, { recursive: true, force: true });
});

function fifo(p: string): string {
  execFileSync('mkfifo', [p]);
  fifos.push(p);
  return p;
}

const within = <T>(p: Promise<T>, ms = 2000): Promise<T | 'timed out'> =>
  Promise.race([p, new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms).unref())]);

describe('ignore files that are not regular files', () => {
  it('a FIFO .gitignore, .ignore or info/exclude counts as absent, at once', async () => {
    const dir = join(root, 'ws');
    mkdirSync(join(dir, '.git', 'info'), { recursive: true });
    for (const n of ['.gitignore', '.ignore', '.rgignore', '.git/info/exclude']) fifo(join(dir, n));
    const got = await within(loadDirRules(dir, undefined));
    expect(got).toEqual({ dir, hasGit: true, rgignore: [], ignore: [], gitignore: [], exclude: [] });
  });

  it('a FIFO as the global excludes file counts as absent', async () => {
    const home = join(root, 'home');
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    fifo(join(home, '.config', 'git', 'ignore'));
    expect(await within(loadGlobalRules(home, undefined, root))).toBeUndefined();
  });

  it('grep with the built-in engine answers in a workspace whose .gitignore is a FIFO', async () => {
    const ws = join(root, 'ws2');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    execFileSync('git', ['init', '-q', ws]);
    writeFileSync(join(ws, 'sub', 'a.txt'), 'needle\n');
    fifo(join(ws, '.gitignore'));
    fifo(join(ws, 'sub', '.gitignore'));
    const host = createHostFacts({ env: {}, home: join(root, 'home2'), stateRoots: [], searchEngine: 'builtin' });
    const ctx = {
      cwd: ws,
      callId: 'c',
      signal: AbortSignal.timeout(10_000),
      sandbox: 'workspace-write',
      files: nodeFiles,
      env: {},
      facts: host.workspace(ws),
      progress: () => {},
      fileEdit: () => {},
      fileOpen: () => {},
      violation: () => {},
    } satisfies ToolContext;
    const r = await within(grepTool.run(grepTool.schema.parse({ pattern: 'needle' }), ctx), 5000);
    expect(r).toMatchObject({ status: 'completed' });
    expect(r !== 'timed out' && r.output).toContain('sub/a.txt');
  });
});
