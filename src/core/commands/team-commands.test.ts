import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../test-kit.js';
import { logSkipped, untoldSkipped } from './skipped-notices.js';
import { expandCommand, findTeamCommand, parseCommand, readCommandFile, scanTeamCommands, teamCommands } from './team-commands.js';

describe('team slash commands from files', () => {
  const { fresh } = scratch('ferret-commands-');
  const put = (root: string, rel: string, text: string) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  };

  it('front matter gives the description and hint; without it the first line describes', () => {
    expect(parseCommand('review', '---\ndescription: Review a file\nargument-hint: "<path>"\n---\nReview $ARGUMENTS carefully.\n', 'f')).toMatchObject({ description: 'Review a file', hint: '<path>', template: 'Review $ARGUMENTS carefully.' });
    expect(parseCommand('fix', '# Fix the failing tests\nRun them and fix what fails.', 'f')).toMatchObject({ description: 'Fix the failing tests' });
  });

  it('$ARGUMENTS and $1… are filled in; a template that names none gets the arguments appended', () => {
    const c = parseCommand('x', 'Compare $1 with $2 ($ARGUMENTS)', 'f');
    expect(expandCommand(c, 'a.ts b.ts')).toBe('Compare a.ts with b.ts (a.ts b.ts)');
    expect(expandCommand(parseCommand('y', 'Tidy up.', 'f'), 'src/')).toBe('Tidy up.\n\nsrc/');
    // Nothing in a command runs: shell and file syntax stay text.
    expect(expandCommand(parseCommand('z', 'Run !`rm -rf /` and read @/etc/passwd for $1', 'f'), 'me')).toBe('Run !`rm -rf /` and read @/etc/passwd for me');
  });

  it('workspace .ferret, then .claude, then $CHIMERA_HOME; built-ins win; subfolders are dir:name; bad names, big files and symlinks are skipped', () => {
    const ws = fresh('ws');
    const home = fresh('home');
    put(ws, '.ferret/commands/review.md', 'Team review of $ARGUMENTS');
    put(ws, '.claude/commands/review.md', 'Claude review');
    put(ws, '.claude/commands/explain.md', 'Explain $ARGUMENTS');
    put(ws, '.ferret/commands/git/pr.md', 'Open a PR');
    put(ws, '.ferret/commands/status.md', 'not the built-in');
    put(ws, '.ferret/commands/bad name.md', 'x');
    put(ws, '.ferret/commands/huge.md', 'x'.repeat(70 * 1024));
    put(home, 'ferret/commands/mine.md', 'Mine');
    put(home, 'ferret/commands/review.md', 'home review');
    writeFileSync(join(ws, 'secret.txt'), 'secret');
    symlinkSync(join(ws, 'secret.txt'), join(ws, '.ferret/commands/leak.md'));
    const got = teamCommands(ws, home);
    expect(got.map((c) => c.name)).toEqual(['explain', 'git:pr', 'mine', 'review']);
    expect(got.find((c) => c.name === 'review')!.template).toBe('Team review of $ARGUMENTS');
    expect(findTeamCommand('/review src/a.ts', ws, home)).toMatchObject({ command: { name: 'review' }, args: 'src/a.ts' });
    expect(findTeamCommand('/git:pr', ws, home)).toMatchObject({ command: { name: 'git:pr' }, args: '' });
    expect(findTeamCommand('/usr/bin/env is missing', ws, home)).toBeUndefined();
  });

  it('a $1 typed in the arguments stays text (one pass)', () => {
    expect(expandCommand(parseCommand('x', 'Explain $ARGUMENTS then $2', 'f'), 'a $2 b')).toBe('Explain a $2 b then $2');
  });

  it('says why each file was left out: too large, bad name, symlink, built-in look-alike in any case, case twin, folder too deep, a FIFO', () => {
    const ws = fresh('ws');
    const home = fresh('home');
    put(ws, '.ferret/commands/review.md', 'Review');
    put(ws, '.ferret/commands/Compact.md', 'not the built-in /compact');
    put(ws, '.ferret/commands/status.md', 'not the built-in /status');
    put(ws, '.ferret/commands/huge.md', 'x'.repeat(70 * 1024));
    put(ws, '.ferret/commands/bad name.md', 'x');
    put(ws, '.ferret/commands/notes.txt', 'not a command, not a warning');
    put(ws, '.ferret/commands/a/b/deep.md', 'too deep');
    put(ws, '.claude/commands/Review.md', 'a case twin of review');
    put(home, 'ferret/commands/review.md', 'the person’s review: the workspace’s wins, silently');
    writeFileSync(join(ws, 'secret.txt'), 'secret');
    symlinkSync(join(ws, 'secret.txt'), join(ws, '.ferret/commands/leak.md'));
    execFileSync('mkfifo', [join(ws, '.ferret/commands/pipe.md')]);
    mkdirSync(join(ws, 'shared'));
    put(ws, 'shared/x.md', 'outside the commands folder');
    symlinkSync(join(ws, 'shared'), join(ws, '.ferret/commands/shared'));
    const scan = scanTeamCommands(ws, home);
    expect(scan.commands.map((c) => [c.name, c.source])).toEqual([['review', 'workspace']]);
    const why = Object.fromEntries(scan.skipped.map((s) => [s.file.slice(ws.length + 1), s.reason]));
    expect(Object.keys(why).sort()).toEqual(
      ['.claude/commands/Review.md', '.ferret/commands/Compact.md', '.ferret/commands/a/b', '.ferret/commands/bad name.md', '.ferret/commands/huge.md', '.ferret/commands/leak.md', '.ferret/commands/pipe.md', '.ferret/commands/shared', '.ferret/commands/status.md'].sort(),
    );
    expect(why['.ferret/commands/Compact.md']).toMatch(/built-in \/compact, which always wins/);
    expect(why['.ferret/commands/status.md']).toMatch(/built-in \/status/);
    expect(why['.claude/commands/Review.md']).toMatch(/only in letter case/);
    expect(why['.ferret/commands/huge.md']).toMatch(/more than the 65536/);
    expect(why['.ferret/commands/leak.md']).toMatch(/symlink/);
    expect(why['.ferret/commands/pipe.md']).toBe('not a regular file');
    expect(why['.ferret/commands/shared']).toMatch(/symlinked folder, which is not followed/);
    // /Compact is not a team command: it is no command at all (the model gets it as text).
    expect(findTeamCommand('/Compact now', ws, home)).toBeUndefined();
  });

  it('a file swapped for a symlink after the listing is refused at the open (O_NOFOLLOW), not read through', () => {
    const ws = fresh('ws');
    put(ws, '.ferret/commands/ok.md', 'fine');
    writeFileSync(join(ws, 'secret.txt'), 'secret');
    symlinkSync(join(ws, 'secret.txt'), join(ws, '.ferret/commands/swapped.md'));
    const root = join(ws, '.ferret/commands');
    expect(readCommandFile(join(root, 'ok.md'), root)).toBe('fine');
    expect(readCommandFile(join(root, 'swapped.md'), root)).toEqual({ reason: expect.stringMatching(/symlink, which is not followed/) });
    // A commands folder that leads out of the workspace (a symlinked .ferret) is not read.
    const outside = fresh('outside');
    put(outside, 'commands/evil.md', 'from elsewhere');
    const ws2 = fresh('ws');
    symlinkSync(outside, join(ws2, '.ferret'));
    const scan = scanTeamCommands(ws2, fresh('home'));
    expect(scan.commands).toEqual([]);
    expect(scan.skipped).toEqual([{ file: join(ws2, '.ferret', 'commands'), reason: expect.stringMatching(/leads out of/) }]);
  });

  it('a skipped file is logged once per server and told once per session, however often the folders are read', () => {
    const warned: unknown[] = [];
    const logger = { warn: (o: unknown) => warned.push(o) } as unknown as Parameters<typeof logSkipped>[0];
    const skipped = [{ file: '/w/.ferret/commands/Compact.md', reason: 'x' }];
    logSkipped(logger, skipped);
    logSkipped(logger, skipped);
    expect(warned).toHaveLength(1);
    const a = {};
    const b = {};
    expect(untoldSkipped(a, skipped)).toHaveLength(1);
    expect(untoldSkipped(a, skipped)).toHaveLength(0);
    expect(untoldSkipped(b, skipped)).toHaveLength(1);
    expect(untoldSkipped(a, [...skipped, { file: '/w/.ferret/commands/big.md', reason: 'y' }])).toEqual([{ file: '/w/.ferret/commands/big.md', reason: 'y' }]);
  });
});
