import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHostFacts } from '../sandbox/index.js';
import { agentsDirs, systemPrompt } from './system-prompt.js';

describe('system prompt', () => {
  const sandbox = createHostFacts({ env: {} });
  const ws = mkdtempSync(join(tmpdir(), 'ferret-sp-'));
  // A workspace named through a symlink (a symlinked TMPDIR, a fleet's mount): its AGENTS.md is read all the same.
  const linked = `${ws}-link`;
  symlinkSync(ws, linked);
  afterAll(() => rmSync(linked, { force: true }));
  afterEach(() => rmSync(join(ws, 'pkg'), { recursive: true, force: true }));

  it('lists the folders on the way to each touched file, root first, once each', () => {
    expect(agentsDirs('/w', ['/w/a/b/x.ts', '/w/a/y.ts', '/outside/z.ts', '/w/top.ts'])).toEqual(['/w', '/w/a', '/w/a/b']);
  });

  it('includes the root AGENTS.md and nested ones on the way to a touched file, nearer last', () => {
    writeFileSync(join(ws, 'AGENTS.md'), 'ROOT RULE');
    mkdirSync(join(ws, 'pkg', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'pkg', 'AGENTS.md'), 'PKG RULE');
    writeFileSync(join(ws, 'pkg', 'deep', 'AGENTS.md'), 'UNTOUCHED RULE');
    const untouched = systemPrompt('code', ws, [], [], sandbox);
    expect(untouched).toContain('ROOT RULE');
    expect(systemPrompt('code', linked, [], [], sandbox)).toContain('ROOT RULE');
    expect(untouched).not.toContain('PKG RULE');
    const p = systemPrompt('code', ws, [], [join(ws, 'pkg', 'file.ts')], sandbox);
    expect(p.indexOf('ROOT RULE')).toBeLessThan(p.indexOf('PKG RULE'));
    expect(p).not.toContain('UNTOUCHED RULE');
  });

  it('an AGENTS.md that is a FIFO never blocks the prompt; a long one is cut, not dropped', () => {
    mkdirSync(join(ws, 'pkg', 'fifo'), { recursive: true });
    execFileSync('mkfifo', [join(ws, 'pkg', 'fifo', 'AGENTS.md')]);
    expect(systemPrompt('code', ws, [], [join(ws, 'pkg', 'fifo', 'x.ts')], sandbox)).not.toContain('Instructions from pkg/fifo');
    writeFileSync(join(ws, 'pkg', 'AGENTS.md'), 'y'.repeat(2_000_000));
    const p = systemPrompt('code', ws, [], [join(ws, 'pkg', 'x.ts')], sandbox);
    expect(p).toContain('y'.repeat(32_000));
    expect(p).not.toContain('y'.repeat(32_001));
  });

  it('follows a symlinked AGENTS.md only to a file in the workspace, never into ferret state or elsewhere', () => {
    const home = mkdtempSync(join(tmpdir(), 'ferret-sp-home-'));
    const outside = mkdtempSync(join(tmpdir(), 'ferret-sp-out-'));
    try {
      // ferret's state roots: its home, and one inside the workspace (CHIMERA_HOME=./state).
      const facts = createHostFacts({ env: {}, stateRoots: [home, join(ws, 'pkg', 'state')] });
      mkdirSync(join(home, 'ferret'), { recursive: true });
      writeFileSync(join(home, 'ferret', 'config.json'), '{"apiKey":"SECRET-KEY"}');
      writeFileSync(join(outside, 'notes'), 'OUTSIDE TEXT');
      mkdirSync(join(ws, 'pkg', 'a'), { recursive: true });
      mkdirSync(join(ws, 'pkg', 'b'), { recursive: true });
      writeFileSync(join(ws, 'pkg', 'RULES.md'), 'LINKED RULE');
      symlinkSync('../RULES.md', join(ws, 'pkg', 'a', 'AGENTS.md'));
      symlinkSync(join(home, 'ferret', 'config.json'), join(ws, 'pkg', 'AGENTS.md'));
      symlinkSync(join(outside, 'notes'), join(ws, 'pkg', 'b', 'AGENTS.md'));
      // A state root inside the workspace (CHIMERA_HOME=./state): its files are not the model's either.
      const inner = join(ws, 'pkg', 'state');
      mkdirSync(join(inner, 'ferret'), { recursive: true });
      writeFileSync(join(inner, 'ferret', 'config.json'), '{"apiKey":"INNER-SECRET"}');
      mkdirSync(join(ws, 'pkg', 'c'), { recursive: true });
      symlinkSync('../state/ferret/config.json', join(ws, 'pkg', 'c', 'AGENTS.md'));
      const p = systemPrompt('code', ws, [], [join(ws, 'pkg', 'a', 'x.ts'), join(ws, 'pkg', 'b', 'y.ts'), join(ws, 'pkg', 'c', 'z.ts')], facts);
      expect(p).not.toContain('INNER-SECRET');
      expect(p).toContain('LINKED RULE');
      expect(p).not.toContain('SECRET-KEY');
      expect(p).not.toContain('OUTSIDE TEXT');
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('gives the plan agent its own instructions', () => {
    expect(systemPrompt('plan', ws, [], [], sandbox)).toMatch(/plan mode/);
    expect(systemPrompt('code', ws, [], [], sandbox)).not.toMatch(/plan mode/);
  });
});
