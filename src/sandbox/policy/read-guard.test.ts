// Family: secrets outside the workspace. Every way a command or a file tool names a secret
// location (tilde, $HOME, an absolute path, `..`, a glob over the home folder, `cd` then a relative
// name, a `bash -c` string, `--opt=~/…`, a redirection) asks, or is refused under full-auto, in
// every mode but danger-full-access + full-auto; read-only asks before any read outside the workspace.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHostFacts } from '../facts.js';
import { callReach, guardReads } from './read-guard.js';
import type { PolicyVerdict } from './policy.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-secrets-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home', 'me');
const ws = join(home, 'src', 'proj');
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(join(ws, 'sub'), { recursive: true });
writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
const host = createHostFacts({ env: {}, home, stateRoots: [join(root, 'state')] });
const facts = host.workspace(ws);

const reach = (command: string, mode: 'read-only' | 'workspace-write' | 'danger-full-access' = 'workspace-write') =>
  callReach(facts, mode, { reals: [], command });

describe('commands that name a secret location', () => {
  const secret = [
    'cat ~/.ssh/id_rsa', 'cat $HOME/.ssh/id_rsa', 'cat "${HOME}/.aws/credentials"', `cat ${home}/.ssh/id_rsa`,
    'cat ../../.ssh/id_rsa', 'cat ~/.s*/id_rsa', 'cat ~/$d/id_rsa', 'grep -r BEGIN ~', 'find / -name id_rsa',
    'cd && cat .ssh/id_rsa', 'cd ~ && cat .ssh/id_rsa', 'cd $x && cat .npmrc', 'bash -c "cat ~/.ssh/id_rsa"',
    'ssh-keygen -y -f ~/.ssh/id_rsa', 'curl --netrc-file=~/.netrc x', 'cat < ~/.ssh/id_rsa', 'x=$(cat ~/.kube/config); echo $x',
    'tar -C ~ -cf - .ssh', 'ls ~user/', 'cat $(echo ~)/.ssh/id_rsa', 'cp -r ../.. /tmp/x', 'cat ~/.config/gcloud/credentials.db',
    'cat ~/.mozilla/firefox/x/logins.json', `cat ${join(root, 'state')}/ferret/config.json`, 'cat ~/.chimera/ferret/config.json',
  ];
  for (const c of secret) {
    it(`finds one in: ${c}`, async () => {
      expect((await reach(c)).secret).toBeDefined();
    });
  }
  const clean = ['cat src/a.ts', 'grep -rn foo .', 'ls -la sub', 'cat .npmrc', 'git status', 'echo ssh', `cat ${ws}/sub/x`, 'sed -n 1,5p README.md', 'cat /etc/hosts'];
  for (const c of clean) {
    it(`finds none in: ${c}`, async () => {
      expect((await reach(c)).secret).toBeUndefined();
    });
  }
});

describe('read-only: reads outside the workspace', () => {
  it('finds absolute and parent paths outside, not the devices or temp', async () => {
    expect((await reach('cat /etc/hosts', 'read-only')).outside).toBe('/etc/hosts');
    expect((await reach('cd /usr && ls', 'read-only')).outside).toBe('/usr');
    const up = '../'.repeat(ws.split('/').length) + 'etc/hosts';
    expect((await reach(`cat ${up}`, 'read-only')).outside).toBe(up);
    expect((await reach('grep x src 2>/dev/null', 'read-only')).outside).toBeUndefined();
    expect((await reach('ls /tmp', 'read-only')).outside).toBeUndefined();
    expect((await reach('/usr/bin/env ls', 'read-only')).outside).toBeUndefined();
  });
  it('is not looked for under workspace-write', async () => {
    expect((await reach('cat /etc/hosts', 'workspace-write')).outside).toBeUndefined();
  });
  it('is not looked for when config says readOutside allow', async () => {
    const open = createHostFacts({ env: {}, home, readOutside: 'allow' }).workspace(ws);
    expect((await callReach(open, 'read-only', { reals: [], command: 'cat /etc/hosts' })).outside).toBeUndefined();
  });
});

describe('file tools', () => {
  it('a real path in a secret location', async () => {
    expect((await callReach(facts, 'danger-full-access', { reals: [join(home, '.ssh', 'id_rsa')] })).secret).toBe(join(home, '.ssh', 'id_rsa'));
    expect((await callReach(facts, 'danger-full-access', { reals: [home] })).secret).toBeUndefined();
  });
});

describe('the verdict', () => {
  const allow: PolicyVerdict = { action: 'allow', risk: 'low', reason: 'reads', by: 'classifier' };
  const secret = { secret: '~/.ssh/id_rsa' };
  it('asks under auto and suggest, refuses under full-auto, in every mode but danger-full-access + full-auto', () => {
    for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
      expect(guardReads(allow, secret, { preset: 'auto', sandbox }).action).toBe('ask');
      expect(guardReads(allow, secret, { preset: 'suggest', sandbox }).action).toBe('ask');
    }
    expect(guardReads(allow, secret, { preset: 'full-auto', sandbox: 'read-only' }).action).toBe('deny');
    expect(guardReads(allow, secret, { preset: 'full-auto', sandbox: 'workspace-write' }).action).toBe('deny');
    expect(guardReads(allow, secret, { preset: 'full-auto', sandbox: 'danger-full-access' }).action).toBe('allow');
  });
  it('keeps a deny, a persisted "always" and an allow rule', () => {
    expect(guardReads({ ...allow, action: 'deny' }, secret, { preset: 'auto', sandbox: 'read-only' }).action).toBe('deny');
    expect(guardReads({ ...allow, by: 'persisted' }, secret, { preset: 'auto', sandbox: 'read-only' }).action).toBe('allow');
    expect(guardReads({ ...allow, by: 'rule', rule: 'bash(cat ~/.ssh/id_rsa)' }, secret, { preset: 'auto', sandbox: 'read-only' }).action).toBe('allow');
  });
  it('read-only asks before an outside read, except under full-auto', () => {
    expect(guardReads(allow, { outside: '/etc/hosts' }, { preset: 'auto', sandbox: 'read-only' }).action).toBe('ask');
    expect(guardReads(allow, { outside: '/etc/hosts' }, { preset: 'full-auto', sandbox: 'read-only' }).action).toBe('allow');
    expect(guardReads(allow, { outside: '/etc/hosts' }, { preset: 'auto', sandbox: 'workspace-write' }).action).toBe('allow');
  });
});
