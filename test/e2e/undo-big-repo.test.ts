// Undo in a big repository, from the built CLI (issue 28): there the snapshots are narrowed by
// the change journal and the workspace repository's packs are borrowed, and /undo must still
// see every change made outside ferret, including one no folder watch reports (a file written
// through a hard link from outside the workspace).
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { tempDir, writeScript } from '../support/temp.mjs';

const git = (ws: string, ...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@x', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@x' } });

describe('undo in a big repository', () => {
  const { env, start } = ferretPerTest();

  it('records turns through the journal, undoes them, and refuses to overwrite an edit made through a hard link from outside', async () => {
    // 4,000 files: an index over 256 KB, so the journal and the borrowed packs are in play.
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(env.ws, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(env.ws, `d${d}`, `f${f}.txt`), `orig ${d} ${f}\n`);
    }
    writeFileSync(join(env.ws, '.gitignore'), '*.json\n');
    git(env.ws, 'init', '-q');
    git(env.ws, 'add', '-A');
    git(env.ws, 'commit', '-qm', 'big');
    git(env.ws, 'gc', '-q');
    const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', arguments: { command } }] });
    const model = writeScript(env.ws, 'turns.json', {
      responses: [bash('c1', 'echo model1 > d3/f0.txt && mkdir -p d3/new && echo made > d3/new/n.txt'), { chunks: ['one'] }, bash('c2', 'echo model2 > d4/f0.txt'), { chunks: ['two'] }],
    });
    const srv = start(['--sandbox', 'workspace-write', '--approval', 'full-auto', '--model', `scripted:${model}`]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    const say = async (text: string): Promise<Json> => (await srv.call('session/message', { sessionId: sid, text }));
    await say('first');
    await say('second');
    expect(readFileSync(join(env.ws, 'd4', 'f0.txt'), 'utf8')).toBe('model2\n');
    // The person edits d4/f0.txt through a hard link kept outside the workspace: no event in d4.
    const outside = join(tempDir('undo-big-outside'), 'alias.txt');
    linkSync(join(env.ws, 'd4', 'f0.txt'), outside);
    writeFileSync(outside, 'PERSON EDIT via link\n', { flag: 'r+' });
    const refused = await say('/undo');
    expect(JSON.stringify(refused)).toMatch(/changed outside ferret.*d4\/f0\.txt/);
    expect(readFileSync(join(env.ws, 'd4', 'f0.txt'), 'utf8')).toBe('PERSON EDIT via link\n');
    // Forced, the turn's file goes back, and the first turn's changes are undone by the next /undo.
    await say('/undo force');
    expect(readFileSync(join(env.ws, 'd4', 'f0.txt'), 'utf8')).toBe('orig 4 0\n');
    await say('/undo');
    expect(readFileSync(join(env.ws, 'd3', 'f0.txt'), 'utf8')).toBe('orig 3 0\n');
    expect(git(env.ws, 'status', '--porcelain')).toBe('');
  }, 90_000);
});
