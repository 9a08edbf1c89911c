import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../test-kit.js';
import { expandCommand, findTeamCommand, parseCommand, teamCommands } from './team-commands.js';

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
});
