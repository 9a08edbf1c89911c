import { describe, expect, it } from 'vitest';
import { gitMetadataNeed } from './git-metadata.js';

describe('which commands may write .git when a person approves them', () => {
  it.each([
    [[['git', 'commit', '-am', 'msg']], 'ordinary'],
    [[['git', 'add', '.'], ['git', 'commit', '-m', 'x']], 'ordinary'],
    [[['git', 'stash']], 'ordinary'],
    [[['git', '-C', 'sub', 'tag', 'v1']], 'ordinary'],
    [[['cd', 'sub'], ['git', 'checkout', '-b', 'x']], 'ordinary'],
    [[['git', 'status']], undefined],
    [[['ls']], undefined],
    [[['git', 'config', 'core.hooksPath', 'x']], 'kept-read-only'],
    [[['git', 'remote', 'add', 'o', 'u']], 'kept-read-only'],
    [[['git', 'submodule', 'update']], 'kept-read-only'],
    [[['git', '-c', 'core.hooksPath=x', 'commit']], 'kept-read-only'],
    [[['git', 'commit', '-am', 'x'], ['sh', 'evil.sh']], 'kept-read-only'],
    [[['git', 'commit']], 'ordinary'],
  ] as const)('%j → %s', (commands, want) => {
    expect(gitMetadataNeed(commands, false)).toBe(want);
  });

  it('a command that cannot be seen whole is never ordinary', () => {
    expect(gitMetadataNeed([['git', 'commit']], true)).toBe('kept-read-only');
  });
});
