// Family: ferret's own state reached by a file tool. Every way of naming a path in CHIMERA_HOME
// (relative, absolute, `..`, a symlink to it or into it, a dangling link, a file not there yet,
// the root itself) is refused, read or write, under every sandbox mode, danger-full-access too;
// a state root that holds the workspace protects only its state folders.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_MODES } from '../../protocol/index.js';
import { checkFilePath } from './paths.js';
import { stateBlocks } from './state-roots.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-state-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function layout(name: string, homeInside: boolean) {
  const ws = join(root, name, 'ws');
  const home = homeInside ? join(ws, '.chimera') : join(root, name, 'state');
  mkdirSync(join(home, 'ferret'), { recursive: true });
  mkdirSync(join(home, 'eventlog', 'ferret-s1'), { recursive: true });
  writeFileSync(join(home, 'ferret', 'config.json'), '{}');
  writeFileSync(join(home, 'ferret', 'audit.jsonl'), '');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  symlinkSync(home, join(ws, 'home-link'));
  symlinkSync(join(home, 'ferret', 'audit.jsonl'), join(ws, 'audit-link'));
  symlinkSync(join(home, 'ferret', 'not-yet.json'), join(ws, 'dangling'));
  host.protectStateRoot(home);
  return { ws, home };
}

for (const homeInside of [true, false]) {
  describe(`CHIMERA_HOME ${homeInside ? 'inside' : 'outside'} the workspace`, () => {
    const { ws, home } = layout(homeInside ? 'in' : 'out', homeInside);
    const rel = relative(ws, home);
    const reach = [
      join(home, 'ferret', 'config.json'),
      join(home, 'ferret', 'audit.jsonl'),
      join(home, 'ferret', 'audit.key'),
      join(home, 'eventlog', 'ferret-s1', 'events.jsonl'),
      join(home, 'eventlog'),
      home,
      `${rel}/ferret/audit.jsonl`,
      `sub/../${rel}/ferret/config.json`,
      `./${rel}//ferret/./config.json`,
      'home-link/ferret/config.json',
      'home-link/eventlog/ferret-s1',
      'home-link',
      'audit-link',
      'dangling',
      `${rel}/ferret/new-file.json`,
      `${rel}/new-folder/x`,
    ];
    it.each(SANDBOX_MODES.flatMap((mode) => [true, false].flatMap((write) => reach.map((path) => [mode, write ? 'write' : 'read', path, write] as const))))(
      '%s %s %s is refused',
      (mode, _w, path, write) => {
        const v = checkFilePath({ facts: host.workspace(ws), path, write, mode });
        expect(v).toMatchObject({ ok: false, reason: expect.stringMatching(/ferret's own state/) });
      },
    );
  });
}

describe('a state root that holds the workspace', () => {
  it('protects its state folders, not the workspace', () => {
    const home = join(root, 'big-home');
    const ws = join(home, 'projects', 'p');
    mkdirSync(ws, { recursive: true });
    mkdirSync(join(home, 'ferret'), { recursive: true });
    host.protectStateRoot(home);
    expect(stateBlocks(host.workspace(ws))).toEqual(expect.arrayContaining([join(home, 'ferret'), join(home, 'eventlog')]));
    expect(checkFilePath({ facts: host.workspace(ws), path: 'a.txt', write: true, mode: 'workspace-write' }).ok).toBe(true);
    expect(checkFilePath({ facts: host.workspace(ws), path: join(home, 'ferret', 'config.json'), write: false, mode: 'danger-full-access' }).ok).toBe(false);
  });
});
