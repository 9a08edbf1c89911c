// Family: repository metadata the host runs later. Every way of naming git metadata (any depth,
// any case, a `gitdir:` target, the common dir, core.hooksPath, a script the config runs, a
// repository git would take for one) is refused to file tools under workspace-write; the files
// other tools run are asked for under auto and refused under full-auto; ordinary files are not.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApprovalPreset, SandboxMode } from '../../protocol/index.js';
import { HOST_RUN_NAMES, hostMetaOf, isGitPath, parseGitConfig } from './host-meta.js';
import { checkRealPath, protectedWrite, realPathOf } from './paths.js';
import type { PolicyVerdict } from '../policy/policy.js';
import { guardProtectedWrite } from '../policy/protected-write.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-meta-')));
const ws = join(root, 'ws');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(rel: string, text = ''): void {
  mkdirSync(join(ws, rel, '..'), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

// The workspace: a repository whose config names a hooks folder and scripts; a nested repository;
// a worktree-style `.git` file pointing into the workspace; a bare-looking folder.
mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
file('.git/HEAD', 'ref: refs/heads/main\n');
mkdirSync(join(ws, '.git', 'objects'));
mkdirSync(join(ws, '.git', 'refs'));
file(
  '.git/config',
  [
    '[core]',
    '\thooksPath = .githooks ; a comment',
    '\tfsmonitor = "tools/fsmon.sh" --flag',
    '[alias]',
    '\tup = !./scripts/up.sh arg',
    '\tst = status',
    '[filter "lfs"]',
    '\tclean = bin/clean %f',
    '[include]',
    '\tpath = ../extra.gitconfig',
  ].join('\n'),
);
file('extra.gitconfig', '[diff]\n\texternal = ./tools/ext-diff\n');
file('vendor/lib/.git/config', '[core]\n\thooksPath = ../../lib-hooks\n');
file('wt/.git', 'gitdir: ../gitdirs/wt\n');
file('gitdirs/wt/HEAD', 'ref: refs/heads/x\n');
file('gitdirs/wt/commondir', '../../common\n');
file('common/config', '');
mkdirSync(join(ws, 'common', 'objects'));
mkdirSync(join(ws, 'common', 'refs'));
file('bare/HEAD', 'ref: refs/heads/main\n');
mkdirSync(join(ws, 'bare', 'objects'), { recursive: true });
mkdirSync(join(ws, 'bare', 'refs'), { recursive: true });
mkdirSync(join(ws, 'src'), { recursive: true });
symlinkSync(join(ws, '.git', 'hooks'), join(ws, 'src', 'hooks-link'));

const real = (rel: string) => realPathOf(join(ws, rel));

// Variants of spelling `.git` and where it sits.
const gitSpellings = ['.git', '.GIT', '.Git'];
const gitDepths = ['', 'sub/', 'a/b/c/', 'vendor/lib/'];
const gitInside = ['config', 'hooks/pre-commit', 'info/attributes', 'HEAD', 'modules/m/config', ''];
const gitPaths = gitSpellings.flatMap((g) => gitDepths.flatMap((d) => gitInside.map((i) => `${d}${g}${i ? `/${i}` : ''}`)));

// Metadata that does not carry the name `.git`.
const pointedTo = [
  'gitdirs/wt/config', // the `gitdir:` target of wt/.git
  'gitdirs/wt/hooks/post-checkout',
  'common/config', // the target's commondir
  '.githooks/pre-commit', // core.hooksPath
  'tools/fsmon.sh', // core.fsmonitor's program
  'scripts/up.sh', // a `!` alias
  'bin/clean', // a filter driver
  'tools/ext-diff', // diff.external, from an included file
  'lib-hooks/pre-push', // the nested repository's core.hooksPath
  'bare/config', // a folder git takes for a repository
  'bare/hooks/pre-receive',
  'src/hooks-link/pre-commit', // a symlink into .git
];

const autoRun = HOST_RUN_NAMES.filter((n) => n !== '.git').flatMap((n) => [n, `${n}/settings.json`, `${n}/a/b`, n.toUpperCase()]);

const ordinary = ['src/a.ts', '.gitignore', '.gitattributes', '.gitkeep', 'my.git/x', 'git/config', '.github/workflows/ci.yml', 'docs/.vscode.md', 'sub/.vscode/settings.json', 'tools/other.sh', 'README.md'];

describe('git metadata is refused to file tools under workspace-write, at any depth and under any name', () => {
  it.each([...gitPaths, ...pointedTo])('%s', (rel) => {
    const r = real(rel);
    expect(hostMetaOf(host.workspace(ws), r)?.kind).toBe('git');
    const v = checkRealPath({ facts: host.workspace(ws), real: r, write: true, mode: 'workspace-write' });
    expect(v.ok).toBe(false);
    // Reading it is fine.
    expect(checkRealPath({ facts: host.workspace(ws), real: r, write: false, mode: 'workspace-write' }).ok).toBe(true);
  });
  it('isGitPath is component-wise', () => {
    expect(isGitPath('a/.git/b')).toBe(true);
    expect(isGitPath('a/.gitx/b')).toBe(false);
    expect(isGitPath('a/x.git')).toBe(false);
  });
});

describe('files other tools run are known, ordinary files are not', () => {
  it.each(autoRun)('%s is auto-run metadata', (rel) => {
    expect(hostMetaOf(host.workspace(ws), real(rel))).toMatchObject({ kind: 'auto-run' });
    expect(checkRealPath({ facts: host.workspace(ws), real: real(rel), write: true, mode: 'workspace-write' }).ok).toBe(true);
  });
  it.each(ordinary)('%s is ordinary', (rel) => {
    expect(hostMetaOf(host.workspace(ws), real(rel))).toBeUndefined();
  });
});

describe('the approval side: asked under auto, refused under full-auto where commands could not write it', () => {
  const allow: PolicyVerdict = { action: 'allow', risk: 'medium', reason: 'auto preset: writes inside the workspace', by: 'preset' };
  const cases: [ApprovalPreset, SandboxMode, PolicyVerdict, PolicyVerdict['action']][] = [
    ['auto', 'workspace-write', allow, 'ask'],
    ['full-auto', 'workspace-write', { ...allow, reason: 'full-auto preset' }, 'deny'],
    ['full-auto', 'danger-full-access', { ...allow, reason: 'full-auto preset' }, 'allow'],
    ['auto', 'danger-full-access', allow, 'ask'],
    ['auto', 'workspace-write', { ...allow, by: 'persisted' }, 'allow'], // a person's "always" for this request
    ['auto', 'workspace-write', { ...allow, by: 'rule', rule: 'write_file(.vscode/**)' }, 'allow'], // a person's rule
    ['suggest', 'workspace-write', { ...allow, action: 'ask' }, 'ask'],
  ];
  const paths = [...autoRun.slice(0, 12), 'sub/.git/config'];
  it.each(cases.flatMap(([preset, sandbox, v, want]) => paths.map((p) => [preset, sandbox, v.by, p, v, want] as const)))(
    '%s / %s / by %s: %s',
    (preset, sandbox, _by, rel, v, want) => {
      const meta = protectedWrite(host.workspace(ws), real(rel))!;
      expect(meta).toBeDefined();
      const out = guardProtectedWrite(v, { preset, sandbox, path: rel, meta });
      expect(out.action).toBe(want);
      if (want !== v.action) expect(out.risk).toBe('high');
    },
  );
});

describe('git config reading', () => {
  it('reads sections, subsections, quotes, comments and continuations', () => {
    const e = parseGitConfig('[core]\n  hooksPath = "a b" # x\n[remote "origin"]\n\turl = u\n[x.Y]\nk\n[alias]\n\tl = !echo \\\n more\n');
    expect(e).toEqual([
      { key: 'core.hookspath', value: 'a b' },
      { key: 'remote.origin.url', value: 'u' },
      { key: 'x.Y.k', value: 'true' },
      { key: 'alias.l', value: '!echo  more' },
    ]);
  });
  it('a FIFO where a config or a .git file should be does not hang the check', () => {
    const fifoWs = join(root, 'fifo-ws');
    mkdirSync(join(fifoWs, 'sub'), { recursive: true });
    execFileSync('mkfifo', [join(fifoWs, 'sub', '.git'), join(fifoWs, 'cfg')]);
    const t = Date.now();
    expect(hostMetaOf(host.workspace(fifoWs), join(fifoWs, 'sub', 'x'))).toBeUndefined();
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
