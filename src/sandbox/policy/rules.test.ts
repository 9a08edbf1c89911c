import { describe, expect, it } from 'vitest';
import { buildRuleSet, DEFAULT_RULES, findRule, matchRule, parseRule } from './rules.js';
import type { Rule } from './rules.js';

describe('parseRule', () => {
  it.each<[string, Partial<Rule>]>([
    ['bash', { tool: 'bash', kind: 'any' }],
    ['Bash', { tool: 'bash', kind: 'any' }],
    ['write_file', { tool: 'write_file', kind: 'any' }],
    ['bash(git push:*)', { tool: 'bash', kind: 'prefix', words: ['git', 'push'] }],
    ['Bash(npm run test *)', { tool: 'bash', kind: 'prefix', words: ['npm', 'run', 'test'] }],
    ['bash(npm test)', { tool: 'bash', kind: 'exact', words: ['npm', 'test'] }],
    ["bash(grep 'a b' x)", { kind: 'exact', words: ['grep', 'a b', 'x'] }],
    ["bash(rm -rf '/*')", { kind: 'exact', words: ['rm', '-rf', '/*'] }],
    ['bash(*)', { kind: 'any' }],
    ['write_file(src/**)', { tool: 'write_file', kind: 'glob', pattern: 'src/**' }],
    ['Edit_File(**/*.md)', { tool: 'edit_file', kind: 'glob', pattern: '**/*.md' }],
    ['read_file(**)', { tool: 'read_file', kind: 'glob' }],
  ])('%s', (text, want) => {
    expect(parseRule(text)).toMatchObject({ text, ...want });
  });

  it.each(['', 'bash(', 'bash()', '(git push)', 'bash(git *push)', 'bash(git push*)', "bash(echo 'x)", 'ba sh(x)'])(
    'rejects %j, naming it',
    (text) => {
      expect(() => parseRule(text)).toThrow(text === '' ? /invalid permission rule ""/ : text);
    },
  );
});

describe('matchRule', () => {
  const rows: Array<[rule: string, tool: string, subject: { argv?: string[]; path?: string }, want: boolean]> = [
    ['bash(git push:*)', 'bash', { argv: ['git', 'push'] }, true],
    ['bash(git push:*)', 'bash', { argv: ['git', 'push', 'origin', 'main'] }, true],
    ['bash(git push:*)', 'bash', { argv: ['git', 'pushx'] }, false],
    ['bash(git push:*)', 'bash', { argv: ['git'] }, false],
    ['bash(git push:*)', 'Bash', { argv: ['git', 'push'] }, true],
    ['Bash(git push:*)', 'bash', { argv: ['git', 'push'] }, true],
    ['bash(npm test)', 'bash', { argv: ['npm', 'test'] }, true],
    ['bash(npm test)', 'bash', { argv: ['npm', 'test', '--watch'] }, false],
    ['bash(npm test)', 'bash', { argv: ['npm'] }, false],
    ['bash', 'bash', { argv: ['anything'] }, true],
    ['bash', 'write_file', { path: 'a' }, false],
    ['write_file(src/**)', 'write_file', { path: 'src/a/b.ts' }, true],
    ['write_file(src/**)', 'write_file', { path: './src/a.ts' }, true],
    ['write_file(src/**)', 'write_file', { path: 'lib/a.ts' }, false],
    ['write_file(src/**)', 'write_file', { path: 'src/../lib/a.ts' }, false],
    ['write_file(src/**)', 'edit_file', { path: 'src/a.ts' }, false],
    ['write_file(**/.env)', 'write_file', { path: '.env' }, true],
    ['write_file(**/.env)', 'write_file', { path: 'pkg/.env' }, true],
    ['write_file(**)', 'write_file', { path: '../outside.txt' }, false],
    ['write_file(**)', 'write_file', { path: '/etc/passwd' }, false],
    ['write_file(/etc/**)', 'write_file', { path: '/etc/passwd' }, true],
    ['write_file(*.md)', 'write_file', { path: 'docs/a.md' }, false],
    ['write_file', 'write_file', { path: '/anything' }, true],
  ];
  it.each(rows)('%s on %s %j → %s', (rule, tool, subject, want) => {
    expect(matchRule(parseRule(rule), tool, subject)).toBe(want);
  });
});

describe('findRule and buildRuleSet', () => {
  it('gives deny precedence over ask over allow, whatever the order', () => {
    const rs = buildRuleSet({ allow: ['bash(git:*)'], ask: ['bash(git push:*)'], deny: ['bash(git push --force:*)'] }, false);
    expect(findRule(rs, 'bash', { argv: ['git', 'status'] })?.list).toBe('allow');
    expect(findRule(rs, 'bash', { argv: ['git', 'push'] })?.list).toBe('ask');
    expect(findRule(rs, 'bash', { argv: ['git', 'push', '--force'] })).toMatchObject({ list: 'deny', rule: { text: 'bash(git push --force:*)' } });
    expect(findRule(rs, 'bash', { argv: ['ls'] })).toBeUndefined();
  });

  it('merges the defaults with user lists unless told not to', () => {
    const withDefaults = buildRuleSet({ ask: ['bash(make:*)'] });
    expect(withDefaults.ask.map((r) => r.text)).toEqual([...DEFAULT_RULES.ask, 'bash(make:*)']);
    expect(withDefaults.deny.length).toBe(DEFAULT_RULES.deny.length);
    const bare = buildRuleSet({ ask: ['bash(make:*)'] }, false);
    expect(bare.ask.map((r) => r.text)).toEqual(['bash(make:*)']);
    expect(bare.deny).toEqual([]);
  });

  it('asks by default for git push, publishing, recursive rm and sudo', () => {
    const rs = buildRuleSet({});
    for (const argv of [['git', 'push'], ['npm', 'publish'], ['yarn', 'publish'], ['pnpm', 'publish'], ['rm', '-rf', 'x'], ['rm', '-r', 'x'], ['sudo', 'ls']]) {
      expect(findRule(rs, 'bash', { argv })?.list, argv.join(' ')).toBe('ask');
    }
    expect(findRule(rs, 'bash', { argv: ['rm', '-rf', '/'] })?.list).toBe('deny');
  });

  it('throws on a bad user rule, naming it', () => {
    expect(() => buildRuleSet({ deny: ['bash(git push*)'] })).toThrow('bash(git push*)');
  });
});
