import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rootListing } from './git-scan.js';
import { scanWorkspace, sweepWorkspace } from '../confine/workspace-guard.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-scan-')));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe('the workspace scan finds the protected root names', () => {
  it('answers from the listing only for plain ASCII names (a case-folding file system folds ſ, ß, ﬁ)', () => {
    expect(rootListing(['.VSCode', 'src'])).toEqual(new Set(['.vscode', 'src']));
    expect(rootListing(['.vſcode', 'src'])).toBeUndefined();
    expect(rootListing(['.gitconﬁg'])).toBeUndefined();
  });

  it('sees each protected root entry with its identity, and a replaced one as another', async () => {
    mkdirSync(join(ws, '.vscode'));
    writeFileSync(join(ws, '.envrc'), 'x');
    mkdirSync(join(ws, 'src'));
    const a = await scanWorkspace(host.workspace(ws));
    expect([...a.roots.keys()].sort()).toEqual([join(ws, '.envrc'), join(ws, '.vscode')]);
    renameSync(join(ws, '.vscode'), join(ws, 'old'));
    mkdirSync(join(ws, '.vscode'));
    const b = await scanWorkspace(host.workspace(ws));
    expect(b.roots.get(join(ws, '.vscode'))).not.toBe(a.roots.get(join(ws, '.vscode')));
    expect(b.roots.get(join(ws, '.envrc'))).toBe(a.roots.get(join(ws, '.envrc')));
  });
});

describe('the sweep after a command', () => {
  it('leaves a nested repository the scan before did not reach alone when git touched it during the run, and moves it when the scan was whole', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-sweep-')));
    try {
      mkdirSync(join(root, 'deep', '.git'), { recursive: true });
      await new Promise((r) => setTimeout(r, 1500)); // born well before the run
      const before = { ...(await scanWorkspace(host.workspace(root))), git: new Map<string, string>() }; // as if the walk had not got there
      const startedAt = Date.now();
      writeFileSync(join(root, 'deep', '.git', 'index.lock'), ''); // git on the host: the folder's ctime moves
      expect(await sweepWorkspace(host.workspace(root), { ...before, complete: false }, startedAt)).toEqual([]);
      const moved = await sweepWorkspace(host.workspace(root), { ...before, complete: true }, startedAt);
      expect(moved.map((m) => m.path)).toEqual([join(root, 'deep', '.git')]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
