// A committed folder that git takes for a repository, whose config points every executable
// setting at a marker script: the read-only git commands ferret runs without asking, started the
// way the bash tool starts them (confineCommand, real bwrap, real git), never run the marker.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../../protocol/index.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import { createHostFacts } from '../facts.js';
import { bashApproval } from '../bash/bash-approval.js';
import { buildRuleSet } from '../policy/rules.js';
import { confineCommand } from './confine.js';
import { withNeutralGit } from './git-env.js';

let root: string;
let ws: string;
let marker: string;
const host = createHostFacts({ env: process.env });

/** The hostile folder's config: each key runs the marker script (under /tmp: readable in the sandbox). */
function hostileConfig(script: string): string {
  return `[core]
\trepositoryformatversion = 0
\tbare = false
\tworktree = ..
\tfsmonitor = ${script}
\tpager = ${script}
\thooksPath = hooks
[diff]
\texternal = ${script}
[diff "mark"]
\ttextconv = ${script}
[filter "mark"]
\tclean = ${script}
[alias]
\tst = !${script}
[log]
\tshowSignature = true
[gpg]
\tprogram = ${script}
`;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(scratchRoot(), 'git-env-')));
  ws = join(root, 'ws');
  marker = join(root, 'MARK');
  const script = join(root, 'mark.sh');
  // A confined command cannot write outside the workspace: the script also says so on stderr.
  writeFileSync(script, `#!/bin/sh\necho MARKER-RAN >&2\necho "$0 $*" >> ${marker}\ncat\n`);
  chmodSync(script, 0o755);
  mkdirSync(join(ws, 'fixture', 'objects'), { recursive: true });
  mkdirSync(join(ws, 'fixture', 'refs', 'heads'), { recursive: true });
  mkdirSync(join(ws, 'fixture', 'hooks'), { recursive: true });
  writeFileSync(join(ws, 'fixture', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, 'fixture', 'config'), hostileConfig(script));
  writeFileSync(join(ws, 'fixture', 'objects', '.keep'), '');
  writeFileSync(join(ws, 'fixture', 'refs', 'heads', '.keep'), '');
  writeFileSync(join(ws, 'fixture', 'hooks', 'post-index-change'), `#!/bin/sh\necho MARKER-RAN >&2\necho hook >> ${marker}\n`);
  chmodSync(join(ws, 'fixture', 'hooks', 'post-index-change'), 0o755);
  writeFileSync(join(ws, '.gitattributes'), '* diff=mark filter=mark\n');
  writeFileSync(join(ws, 'a.txt'), 'one\n');
  writeFileSync(join(ws, 'b.txt'), 'two\n');
  const git = (...args: string[]) => execa('git', args, { cwd: ws, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  await git('init', '-q', '-b', 'main');
  await git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A');
  await git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'a folder that looks like a repository');
  writeFileSync(join(ws, 'a.txt'), 'one, changed\n'); // a change for diff, textconv and filters to look at
}, 30_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The commands the issue names, and more that are judged read-only, each through the folder. */
const COMMANDS = [
  'git -C fixture status', 'cd fixture && git status', 'git -C fixture ls-files', 'git -C fixture diff --stat',
  'git -C fixture diff', 'git -C fixture diff --no-index ../a.txt ../b.txt', 'cd fixture && git diff --no-index ../a.txt ../b.txt',
  'git -C fixture log -p', 'git -C fixture show', 'git -C fixture blame ../a.txt', 'git -C fixture grep one',
  'cd fixture/refs/heads && git status', 'git -C fixture/objects log', 'git -C fixture status --porcelain',
];

async function run(mode: SandboxMode, command: string, env: NodeJS.ProcessEnv = process.env) {
  const s = confineCommand({ host, mode, workspace: ws, command, env });
  try {
    return await execa(s.file, s.args, { cwd: ws, env: s.env, extendEnv: false, reject: false, timeout: 20_000, stdin: 'ignore' });
  } finally {
    s.release();
  }
}

const marked = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

describe("git's executable settings from a folder that looks like a repository", () => {
  it('the folder is a repository to git: without the neutral settings its fsmonitor, external diff and hook run (the test can fail)', async () => {
    rmSync(marker, { force: true });
    // The same spawn with the neutral settings taken out again: what commands got before.
    for (const command of ['git -C fixture status', 'git -C fixture diff']) {
      const s = confineCommand({ host, mode: 'danger-full-access', workspace: ws, command, env: process.env });
      const bare = Object.fromEntries(Object.entries(s.env).filter(([k]) => !k.startsWith('GIT_')));
      await execa(s.file, s.args, { cwd: ws, env: bare, extendEnv: false, reject: false, timeout: 20_000, stdin: 'ignore' });
    }
    expect(marked()).not.toBe('');
    rmSync(marker, { force: true });
  });

  const rules = buildRuleSet({});
  it.each(COMMANDS)('%s is judged read-only (it runs without asking)', async (command) => {
    expect((await bashApproval(command, rules)).judgement.action).toBe('allow');
  });

  it.each(['read-only', 'workspace-write', 'danger-full-access'] as const)('under %s none of them runs the marker', async (mode) => {
    rmSync(marker, { force: true });
    // The control, in the same sandbox: a command that drops the settings (it would be asked) reaches the marker.
    const dropped = await run(mode, 'env -u GIT_CONFIG_COUNT git -C fixture status');
    expect(dropped.stderr).toContain('MARKER-RAN');
    rmSync(marker, { force: true });
    for (const command of COMMANDS) {
      const r = await run(mode, command);
      expect(`${r.stdout}${r.stderr}`, command).not.toContain('MARKER-RAN');
      expect(marked(), `${command} ran the marker (${r.stderr})`).toBe('');
    }
  }, 120_000);

  it('the settings win over what the command inherits, and a command cannot drop them without asking', async () => {
    const env = withNeutralGit({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.bareRepository', GIT_CONFIG_VALUE_0: 'all' });
    expect(env).toMatchObject({ GIT_CONFIG_KEY_0: 'safe.bareRepository', GIT_CONFIG_VALUE_0: 'all', GIT_CONFIG_KEY_1: 'safe.bareRepository', GIT_CONFIG_VALUE_1: 'explicit' });
    for (const command of [
      'git -C fixture st', 'cd fixture && git st', 'git -C fixture --bare log', 'git --git-dir=fixture log', 'GIT_DIR=fixture git log',
      'env -i git -C fixture status', 'env - git -C fixture status', 'exec -c git -C fixture status', 'env -u GIT_CONFIG_COUNT git -C fixture status',
      'unset GIT_CONFIG_COUNT; git -C fixture status', 'export GIT_CONFIG_COUNT=0; git -C fixture status', 'git -c safe.bareRepository=all -C fixture status',
      'git -C fixture log --ext-diff -p', 'git -C fixture log --show-signature', 'git -C fixture grep --textconv one',
    ]) {
      expect((await bashApproval(command, rules)).judgement.action, command).toBe('ask');
    }
  });

  it("the workspace's own repository still works: status, diff, log, and a commit with the user's hook", async () => {
    rmSync(marker, { force: true });
    const ok = await run('danger-full-access', 'git status --short && git diff --stat && git log --oneline');
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('a.txt');
    expect(ok.stdout).toContain('a folder that looks like a repository');
    // A hook of the workspace's own repository is the user's: git commit (which asks) still runs it.
    writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\necho own-hook >> ${marker}\n`);
    chmodSync(join(ws, '.git', 'hooks', 'pre-commit'), 0o755);
    const commit = await run('danger-full-access', 'git -c user.email=t@t -c user.name=t commit -qam "second"');
    expect(commit.exitCode, commit.stderr).toBe(0);
    expect(marked()).toBe('own-hook\n');
    rmSync(marker, { force: true });
  });
});
