// detectViolation on the messages tools really print: a fixed table (including tools this
// host may lack), then real confined runs so the table cannot drift from reality.
import { mkdtemp, rm } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../../protocol/index.js';
import { confineCommand, probeBwrap } from './confine.js';
import { detectViolation } from './violation.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

const WS = '/home/u/proj';

describe('detectViolation: message table', () => {
  const writes: [string, string][] = [
    ['bash: /etc/x: Read-only file system', '/etc/x'],
    ['bash: line 1: /etc/x: Read-only file system', '/etc/x'],
    ['bash: line 3: .git/hooks/pre-commit: Read-only file system', `${WS}/.git/hooks/pre-commit`],
    ["touch: cannot touch '/x': Read-only file system", '/x'],
    ["cp: cannot create regular file '/x': Read-only file system", '/x'],
    ['touch: cannot touch ‘/x y’: Read-only file system', '/x y'],
    ['mkdir: cannot create directory ‘d’: Read-only file system', `${WS}/d`],
    ["mkdir: cannot create directory '/opt/d': Read-only file system", '/opt/d'],
    ["ln: failed to create symbolic link '/x': Read-only file system", '/x'],
    ["rm: cannot remove '../other/f': Read-only file system", '/home/u/other/f'],
    ["mv: cannot move 'a' to '/x': Read-only file system", '/x'],
    ["mv: inter-device move failed: 'f' to '/etc/f'; unable to remove target: Read-only file system", '/etc/f'],
    ['tee: /x: Read-only file system', '/x'],
    ["dd: failed to open '/etc/x': Read-only file system", '/etc/x'],
    ['sed: couldn\'t open temporary file /etc/sedi1LXFk: Read-only file system', '/etc/sedi1LXFk'],
    ["Error: EROFS: read-only file system, open '/etc/x'", '/etc/x'],
    ["OSError: [Errno 30] Read-only file system: '/etc/x'", '/etc/x'],
    ["fatal: Unable to create '/home/u/proj/.git/index.lock': Read-only file system", `${WS}/.git/index.lock`],
    ['error: could not lock config file .git/config: Read-only file system', `${WS}/.git/config`],
    ["fatal: could not create work tree dir 'clone': Read-only file system", `${WS}/clone`],
  ];
  it.each(writes)('%s', (line, path) => {
    expect(detectViolation(`some noise\n${line}\n`, 'workspace-write', WS)).toEqual({ kind: 'write', path });
  });

  const network = [
    'curl: (6) Could not resolve host: example.com',
    "fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com",
    'curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn\'t connect to server',
    'Error: getaddrinfo ENOTFOUND registry.npmjs.org',
    'npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
    'Error: connect ENETUNREACH 1.1.1.1:443',
    'Error: connect ECONNREFUSED 127.0.0.1:8080',
    'ssh: Could not resolve hostname github.com: Temporary failure in name resolution',
    'wget: unable to resolve host address \'example.com\'',
    'urllib.error.URLError: <urlopen error [Errno 101] Network is unreachable>',
  ];
  it.each(network)('%s', (line) => {
    expect(detectViolation(line, 'read-only', WS)).toEqual({ kind: 'network' });
  });

  it('reports the first sign when there are several', () => {
    expect(detectViolation('curl: (6) Could not resolve host: x\ntouch: cannot touch \'/x\': Read-only file system', 'read-only', WS))
      .toEqual({ kind: 'network' });
  });

  it('says nothing for ordinary failures or unconfined commands', () => {
    expect(detectViolation('', 'workspace-write', WS)).toBeUndefined();
    expect(detectViolation("cat: nope: No such file or directory\nbash: foo: command not found", 'read-only', WS)).toBeUndefined();
    expect(detectViolation("touch: cannot touch '/x': Read-only file system", 'danger-full-access', WS)).toBeUndefined();
    expect(detectViolation('curl: (6) Could not resolve host: x', 'danger-full-access', WS)).toBeUndefined();
  });
});

describe('detectViolation: real confined runs', () => {
  const BASE = scratchRoot();
  let ws = '';
  beforeAll(async () => {
    const probe = await probeBwrap(host);
    if (!probe.ok) throw new Error(`bubblewrap unavailable: ${probe.reason}`);
    mkdirSync(BASE, { recursive: true });
    ws = await mkdtemp(join(BASE, 'viol-'));
    await execa('git', ['init', '-q'], { cwd: ws });
  });
  afterAll(async () => {
    if (ws) await rm(ws, { recursive: true, force: true });
  });

  const cases: [SandboxMode, string, { kind: 'write' | 'network'; path?: string }][] = [
    ['workspace-write', 'echo x > /etc/ferret-x', { kind: 'write', path: '/etc/ferret-x' }],
    ['workspace-write', 'touch /usr/ferret-x', { kind: 'write', path: '/usr/ferret-x' }],
    ['workspace-write', 'cp /etc/hostname /opt/ferret-x', { kind: 'write', path: '/opt/ferret-x' }],
    ['workspace-write', 'echo x | tee /etc/ferret-x', { kind: 'write', path: '/etc/ferret-x' }],
    ['workspace-write', 'echo x > .git/hooks/pre-commit', { kind: 'write', path: '.git/hooks/pre-commit' }],
    ['workspace-write', 'git config user.name x', { kind: 'write', path: '.git/config' }],
    ['read-only', 'LC_ALL=C mkdir d', { kind: 'write', path: 'd' }],
    ['read-only', 'LC_ALL=C.UTF-8 mkdir "d 2"', { kind: 'write', path: 'd 2' }],
    ['read-only', `node -e "require('net').connect(80, '1.1.1.1').on('error', e => { console.error(e.message); process.exit(1) })"`, { kind: 'network' }],
    ['read-only', 'git ls-remote https://github.com/git/git', { kind: 'network' }],
  ];
  it.each(cases)('%s: %s', async (mode, command, want) => {
    const s = confineCommand({ host, mode, workspace: ws, command, env: process.env });
    const r = await execa(s.file, s.args, { env: s.env, extendEnv: false, reject: false, timeout: 15_000 });
    await s.end();
    expect(r.exitCode).not.toBe(0);
    const path = want.path === undefined || want.path.startsWith('/') ? want.path : join(ws, want.path);
    expect(detectViolation(r.stderr, mode, ws)).toEqual(path === undefined ? { kind: want.kind } : { kind: want.kind, path });
  });
});
