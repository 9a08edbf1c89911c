// A search that runs out of time answers with what it found, marked partial, through either
// engine; it never fails or hangs past its deadline.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostFacts } from '../../sandbox/index.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import { makeScope, type Scope } from './scope.js';
import { listFiles } from './search.js';

const root = realpathSync(mkdtempSync(join(scratchRoot(), 'search-deadline-')));
const ws = join(root, 'ws');
const FOLDERS = 200;
const PER = 100;
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => {
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(ws, `d${String(d).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < PER; f++) writeFileSync(join(dir, `f${f}.txt`), 'x\n');
  }
});

const scope = (): Scope => {
  const s = makeScope({ root: ws, rootIsFile: false, base: ws, includeIgnored: false, blocked: [], home: join(root, 'home'), xdgConfigHome: undefined });
  if (typeof s === 'string') throw new Error(s);
  return s;
};

describe.each(['ripgrep', 'builtin'] as const)('listing %s files past its deadline', (engine) => {
  const host = createHostFacts({ env: {}, home: join(root, 'home'), stateRoots: [], searchEngine: engine });
  const list = (deadlineMs: number) => listFiles({ scope: scope(), accept: () => true, within: ws, host, signal: new AbortController().signal, deadlineMs });

  it('answers every file in time, and a partial list (never an error) when the time runs out', async () => {
    const all = await list(60_000);
    expect(all).toMatchObject({ ok: true, end: 'done' });
    expect(all.ok && all.files.length).toBe(FOLDERS * PER);
    const t0 = performance.now();
    const late = await list(1);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(late).toMatchObject({ ok: true, end: 'deadline' });
    expect(late.ok && late.files.length).toBeLessThan(FOLDERS * PER);
    // What it did find is real and in order.
    if (late.ok) expect([...late.files].sort()).toEqual(late.files);
  });
});
