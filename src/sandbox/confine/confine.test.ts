// Real confined runs: every escape must fail AND leave the outside byte-for-byte untouched.
// bwrap missing is a failure, never a skip (CI installs bubblewrap).
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../../protocol/index.js';
import { pidsCgroupAvailable } from './cgroup.js';
import { commandCpuProcs } from './cpu-cgroup.js';
import { commandEnv, confineCommand, passCommandEnv, probeBwrap } from './confine.js';
import { GIT_NEUTRAL_VARS, withNeutralGit } from './git-env.js';
import { detectViolation } from './violation.js';
import { scanWorkspace, sweepWorkspace } from './workspace-guard.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import { createHostFacts } from '../facts.js';

const host = createHostFacts({ env: {} });

// Not under /tmp: the sandbox's private /tmp would hide a /tmp "outside" and make every
// escape test pass for the wrong reason. `.tmp/` is git-ignored.
const BASE = scratchRoot();
const SECRETS = {
  FERRET_SERVER_TOKEN: `ferret-tok-${process.pid}-${Date.now()}`,
  OPENAI_API_KEY: 'sk-test-openai-9f8e7d',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-5a4b3c',
  GITHUB_TOKEN: 'ghp_test_1q2w3e',
  DB_PASSWORD: 'hunter2-db-77',
};
let root = '';
let ws = '';
let outside = '';
let gitConfig = '';

function run(mode: SandboxMode, command: string, extra: { tmpDir?: string; workspace?: string } = {}) {
  const s = confineCommand({ host, mode, workspace: extra.workspace ?? ws, command, env: { ...process.env, ...SECRETS, LANG: 'visible-123' }, tmpDir: extra.tmpDir });
  const p = execa(s.file, s.args, { env: s.env, extendEnv: false, reject: false, timeout: 15_000, detached: true });
  void p.finally(() => (s.release(), s.end()));
  return p;
}

function expectOutsideUntouched(): void {
  expect(readdirSync(outside)).toEqual(['sentinel']);
  expect(readFileSync(join(outside, 'sentinel'), 'utf8')).toBe('host\n');
  expect(readdirSync(root).sort()).toEqual(['outside', 'ws']);
  expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(gitConfig);
  expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
}

beforeAll(async () => {
  const probe = await probeBwrap(host);
  if (!probe.ok) throw new Error(`bubblewrap unavailable, sandbox tests cannot run: ${probe.reason}`);
  Object.assign(process.env, SECRETS); // as if the server itself held them
});
afterAll(() => Object.keys(SECRETS).forEach((k) => delete process.env[k]));
beforeEach(async () => {
  mkdirSync(BASE, { recursive: true });
  root = await mkdtemp(join(BASE, 'sbx-'));
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'sentinel'), 'host\n');
  await execa('git', ['init', '-q'], { cwd: ws });
  gitConfig = readFileSync(join(ws, '.git', 'config'), 'utf8');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('probeBwrap', () => {
  it('finds a working bwrap and caches the answer', async () => {
    const a = await probeBwrap(host);
    expect(a).toEqual({ ok: true, path: expect.stringMatching(/^\/.*bwrap$/) });
    expect(await probeBwrap(host)).toBe(a);
  });
});

describe('confineCommand argv', () => {
  const env = { PATH: '/usr/bin:/bin', HOME: '/root' };
  it('orders mounts so later ones win; only confined modes get bwrap', () => {
    const w = confineCommand({ host, mode: 'workspace-write', workspace: ws, command: 'true', env });
    const a = w.args.join(' ');
    expect(w.confined).toBe(true);
    // ferret's own state (a CHIMERA_HOME that exists on this machine) is hidden after the workspace binds.
    expect(a).toMatch(new RegExp(`--ro-bind / / .*--tmpfs /tmp .*--bind ${ws} ${ws} --ro-bind ${ws}/.git ${ws}/.git (?:--tmpfs \\S+ --remount-ro \\S+ )*(?:--ro-bind /dev/null \\S+ )*--clearenv .*--chdir ${ws} -- (/\\S*bash) -c ulimit -u \\d+ .* \\1 true$`));
    for (const f of ['--unshare-net', '--unshare-pid', '--new-session', '--die-with-parent', '--dev /dev', '--proc /proc']) expect(a).toContain(f);
    const r = confineCommand({ host, mode: 'read-only', workspace: ws, command: 'true', env });
    expect(r.args.join(' ')).toMatch(new RegExp(`--ro-bind ${ws} ${ws} (?:--tmpfs \\S+ --remount-ro \\S+ )*(?:--ro-bind /dev/null \\S+ )*--clearenv`));
    expect(r.args).not.toContain('--bind');
    const d = confineCommand({ host, mode: 'danger-full-access', workspace: ws, command: 'echo hi', env: { ...env, ...SECRETS } });
    // Under the subreaper (subreaper.ts), which gives the command the call's marker; its own
    // environment carries the reaper's marker instead.
    const marker = /^[0-9a-f]{24}$/;
    expect(d).toMatchObject({ file: expect.stringMatching(/^\/.*\/(bash|perl)$/), env: { ...withNeutralGit(env), FERRET_REAPER: expect.stringMatching(marker) }, confined: false });
    expect(d.env['FERRET_CALL']).toBeUndefined();
    // In a pids cgroup and the commands' CPU cgroup where they can be made: the wrapper joins them
    // first (each `cgroup.procs` before `--`), then becomes the command.
    const joined = [pidsCgroupAvailable(), commandCpuProcs() !== undefined].filter(Boolean).length;
    const reaped = ['-e', expect.stringContaining('syscall($nr, 36, 1'), '--', '157', 'FERRET_CALL', d.env['FERRET_REAPER'], expect.stringMatching(/\/bash$/), '-c', 'echo hi'];
    if (process.arch !== 'x64') reaped[3] = expect.any(String);
    if (joined) {
      expect(d.args.slice(0, 3)).toEqual(['-c', expect.stringContaining('exec "$@"'), 'ferret-cgroup']);
      expect(d.args.slice(3, 3 + joined)).toEqual(new Array(joined).fill(expect.stringMatching(/\/cgroup\.procs$/)));
      expect(d.args.slice(3 + joined)).toEqual(['--', expect.stringMatching(/\/perl$/), ...reaped]);
    } else {
      expect(d.file).toMatch(/\/perl$/);
      expect(d.args).toEqual(reaped);
    }
    for (const s of [w, r, d]) void s.end();
  });
  it('refuses a relative or root workspace', () => {
    expect(() => confineCommand({ host, mode: 'read-only', workspace: 'ws', command: 'true', env })).toThrow(/absolute/);
    expect(() => confineCommand({ host, mode: 'workspace-write', workspace: '/', command: 'true', env })).toThrow(/root/);
  });
});

describe('workspace-write escapes', () => {
  const O = '"$OUT"'; // the outside dir, passed literally so each case reads like what a model types
  const cases: [string, string][] = [
    ['redirect through ..', 'echo pwned > ../outside/x'],
    ['cd .. then write', 'cd .. && echo pwned > outside/x'],
    ['absolute redirect', `echo pwned > ${O}/x`],
    ['append to existing file', `echo pwned >> ${O}/sentinel`],
    ['touch', `touch ${O}/x`],
    ['cp', `cp /etc/hostname ${O}/x`],
    ['mv', `echo a > f && mv f ${O}/x`],
    ['tee', `echo pwned | tee ${O}/x`],
    ['sed -i', `sed -i s/host/pwned/ ${O}/sentinel`],
    ['rm', `rm -f ${O}/sentinel`],
    ['node fs', `node -e "require('fs').writeFileSync(process.env.OUT + '/x', 'p')"`],
    ['symlink in the same command', `ln -s ${O} link && echo pwned > link/x`],
    ['hook in .git/hooks', 'echo "#!/bin/sh" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'],
    ['git config core.hooksPath', 'git config core.hooksPath /tmp'],
    ['replace .git', 'mv .git g; rm -rf .git; mkdir -p .git/hooks && echo x > .git/hooks/pre-commit'],
    ['hard link out of the workspace', `ln ${O}/sentinel ./hl && echo pwned >> hl`],
    ['home directory', 'echo pwned > "$HOME/.ferret-sbx-pwned"'],
  ];
  it.each(cases)('%s', async (_name, cmd) => {
    const r = await run('workspace-write', `OUT='${outside}'; ${cmd}`);
    expect(r.exitCode).not.toBe(0);
    expectOutsideUntouched();
    expect(existsSync(join(process.env.HOME ?? '/root', '.ferret-sbx-pwned'))).toBe(false);
  });

  it('a symlink planted by an earlier command does not lead outside later', async () => {
    expect((await run('workspace-write', `ln -s '${outside}' link`)).exitCode).toBe(0);
    const r = await run('workspace-write', 'echo pwned > link/x');
    expect(r.exitCode).not.toBe(0);
    expect(detectViolation(r.stderr, 'workspace-write', ws)).toEqual({ kind: 'write', path: join(ws, 'link/x') });
    expectOutsideUntouched();
  });

  it('the outside is really visible (read-only), so the escapes above are meaningful', async () => {
    const r = await run('workspace-write', `cat '${outside}/sentinel'`);
    expect(r.stdout).toBe('host');
  });
});

describe('writes that must work', () => {
  it('workspace-write can write in the workspace and still read git', async () => {
    const r = await run('workspace-write', 'mkdir -p a/b && echo hi > a/b/c && cat a/b/c && git status --short');
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(ws, 'a/b/c'), 'utf8')).toBe('hi\n');
    expect(r.stdout).toContain('?? a/');
  });

  it("another process's placeholder (an empty .git it mounted over) is a placeholder here too: removed meanwhile, the command still runs, and nothing is moved aside", async () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    mkdirSync(join(plain, '.git')); // what a second ferret in this workspace has bwrap make for its own command
    const s = confineCommand({ host, mode: 'workspace-write', workspace: plain, command: 'true', env: { ...process.env } });
    expect(s.args.join(' ')).toContain(`--tmpfs ${join(plain, '.git')} --remount-ro ${join(plain, '.git')}`);
    expect(s.args.join(' ')).not.toContain(`--ro-bind ${join(plain, '.git')}`);
    rmSync(join(plain, '.git'), { recursive: true }); // its owner's command ended first and removed it
    const before = await scanWorkspace(host.workspace(plain));
    const t0 = Date.now();
    const r = await execa(s.file, s.args, { env: s.env, extendEnv: false, reject: false, timeout: 15_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    mkdirSync(join(plain, '.git'), { recursive: true }); // the other process's next placeholder, made during this run
    expect(await sweepWorkspace(host.workspace(plain), before, t0)).toEqual([]);
    s.release();
    void s.end();
    expect(existsSync(join(plain, '.git'))).toBe(false); // this process's hold was the last: removed
  });

  it('read-only cannot write in the workspace', async () => {
    const r = await run('read-only', 'touch made');
    expect(r.exitCode).not.toBe(0);
    expect(existsSync(join(ws, 'made'))).toBe(false);
    expect(detectViolation(r.stderr, 'read-only', ws)).toEqual({ kind: 'write', path: join(ws, 'made') });
  });

  it('/tmp is private: a tmpfs by default, the given tmpDir when asked', async () => {
    const own = await mkdtemp(join(BASE, 'tmpdir-'));
    try {
      expect((await run('read-only', 'echo t > /tmp/probe && cat /tmp/probe && echo $TMPDIR')).stdout).toBe('t\n/tmp');
      expect((await run('read-only', 'echo t > /tmp/probe', { tmpDir: own })).exitCode).toBe(0);
      expect(await readFile(join(own, 'probe'), 'utf8')).toBe('t\n');
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('a workspace under the host /tmp stays visible despite the private /tmp', async () => {
    const t = realpathSync(await mkdtemp(join(tmpdir(), 'ferret-sbx-')));
    try {
      expect((await run('workspace-write', 'echo w > f && pwd', { workspace: t })).stdout).toBe(t);
      expect(readFileSync(join(t, 'f'), 'utf8')).toBe('w\n');
      expect((await run('read-only', 'cat f && touch g', { workspace: t })).stdout).toBe('w');
      expect(existsSync(join(t, 'g'))).toBe(false);
    } finally {
      await rm(t, { recursive: true, force: true });
    }
  });
});

describe('network', () => {
  let server: Server;
  let hits = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => { hits++; res.end('reached'); });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const addr = server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const fetchCmd = () => `node -e "fetch('${url}/').then(r => r.text()).then(console.log, e => { console.error(String(e.cause ?? e)); process.exit(3) })"`;
  it('unconfined can reach the host server (control)', async () => {
    expect((await run('danger-full-access', fetchCmd())).stdout).toBe('reached');
    hits = 0;
  });
  const cases: [string, () => string][] = [
    ['node fetch', fetchCmd],
    ['git clone', () => `git clone -q ${url}/repo.git /tmp/clone`],
    ['node DNS', () => `node -e "require('dns').lookup('example.com', e => { console.error(String(e)); process.exit(e ? 3 : 0) })"`],
  ];
  // curl is optional on the host; node and git are not.
  if (existsSync('/usr/bin/curl')) {
    cases.push(['curl', () => `curl -sS --max-time 5 ${url}/`], ['curl DNS', () => 'curl -sS --max-time 5 https://example.com/']);
  }
  it.each(cases)('%s cannot get out', async (_name, cmd) => {
    for (const mode of ['read-only', 'workspace-write'] as const) {
      const r = await run(mode, cmd());
      expect(r.exitCode).not.toBe(0);
      expect(r.stdout).not.toContain('reached');
      expect(detectViolation(r.stderr, mode, ws)).toEqual({ kind: 'network' });
    }
    expect(hits).toBe(0);
  });
});

describe('environment', () => {
  const dump = 'env; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr "\\0" "\\n" < "$f"; done';
  it.each<SandboxMode>(['read-only', 'workspace-write', 'danger-full-access'])('no secret reaches a %s command', async (mode) => {
    const r = await run(mode, mode === 'danger-full-access' ? 'env' : `cat /proc/1/environ; ${dump}`);
    expect(r.exitCode).toBe(0);
    for (const v of Object.values(SECRETS)) expect(r.stdout).not.toContain(v);
    expect(r.stdout).toContain('LANG=visible-123');
    expect(r.stdout).toMatch(/^PATH=/m);
  });

  it('commandEnv passes the allowlist and the names asked for, never the server token', () => {
    const out = commandEnv({
      ...SECRETS, PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm', PWD: '/w', GIT_AUTHOR_NAME: 'a',
      GITHUB_PAT: 'ghp', GPG_PASSPHRASE: 'x', REDIS: 'redis://:pw@h', SLACK_HOOK: 'https://hooks.slack.com/x', U: undefined,
    }, ['GIT_*', 'FERRET_SERVER_TOKEN']);
    expect(out).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm', GIT_AUTHOR_NAME: 'a' });
  });
});

describe('environment: an allowlist, not a denylist', () => {
  // Names and values no denylist foresaw, plus the classics; only allowlisted names may pass.
  const leaks: Record<string, string> = {
    GITHUB_PAT: 'ghp_leak1', GPG_PASSPHRASE: 'leak2', SIGNING_PASSPHRASE: 'leak3', REDIS: 'redis://:leak4@h:6379',
    SLACK_HOOK: 'https://hooks.slack.com/services/T0/B0/leak5', DISCORD: 'https://discord.com/api/webhooks/1/leak6',
    SENTRY: 'https://leak7@o1.ingest.sentry.io/1', NPM_CONFIG__AUTHTOKEN: 'leak8', X: 'leak9', CI_JOB_JWT: 'leak10',
    KUBECONFIG_DATA: 'leak11', FERRET_SERVER_TOKEN: 'leak12', LC_SECRET_LOOKING: 'visible-lc',
  };
  for (let i = 0; i < 20; i++) leaks[`R${i.toString(36)}_${(i * 7919).toString(36).toUpperCase()}`] = `leak-random-${i}`;
  it.each<SandboxMode>(['read-only', 'workspace-write', 'danger-full-access'])('under %s only allowlisted and configured names pass', async (mode) => {
    passCommandEnv(host, ['KEEP_*', 'FERRET_SERVER_TOKEN']);
    const s = confineCommand({ host, mode, workspace: ws, command: mode === 'danger-full-access' ? 'env' : 'env; cat /proc/1/environ | tr "\\0" "\\n"', env: { ...process.env, ...leaks, KEEP_ME: 'kept' } });
    try {
      // stdin not a socket, as in the bash tool: bash sources ~/.bashrc when it thinks sshd started it.
      const r = await execa(s.file, s.args, { env: s.env, extendEnv: false, reject: false, timeout: 15_000, stdin: 'ignore' });
      expect(r.stdout).not.toMatch(/leak/);
      expect(r.stdout).toContain('KEEP_ME=kept');
      expect(r.stdout).toContain('LC_SECRET_LOOKING=visible-lc');
      const names = r.stdout.split('\n').map((l) => l.split('=')[0] ?? '').filter(Boolean);
      // Plus the settings that keep git from running a repository's configuration (git-env.ts).
      const git = (n: string) => /^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(n) || n in GIT_NEUTRAL_VARS;
      for (const n of names.filter((x) => !git(x))) expect(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'PWD', 'SHLVL', '_', 'OLDPWD', 'KEEP_ME', 'FERRET_CALL']).toContain(n.startsWith('LC_') ? 'LANG' : n);
      expect(r.stdout).toContain('GIT_CONFIG_KEY_0=safe.bareRepository');
    } finally {
      s.release();
      void s.end();
    }
  });
});

describe('process confinement', () => {
  // Host-side view of /proc: `exact` matches a whole argv (the sleeps), otherwise a substring
  // (which also catches bwrap, whose argv carries the command string).
  const alive = (mark: string, exact = false) => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).some((p) => {
    try {
      const c = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return exact ? c === `sleep\0${mark}\0` : c.includes(mark);
    } catch { return false; }
  });
  const waitFor = async (cond: () => boolean) => {
    for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
    return cond();
  };
  it.each(['SIGKILL', 'SIGTERM'] as const)('killing the process group with %s kills everything inside', async (sig) => {
    const mark = `${process.pid}${Date.now() % 1e6}`;
    // A background child, a setsid/nohup "daemon", and the foreground command.
    const p = run('workspace-write', `sleep 1${mark}1 & setsid nohup sleep 1${mark}2 >/dev/null 2>&1 & sleep 1${mark}3; wait`);
    expect(await waitFor(() => alive(`1${mark}1`, true) && alive(`1${mark}2`, true) && alive(`1${mark}3`, true))).toBe(true);
    if (!p.pid) throw new Error('no pid'); // never kill(-0): that is our own group
    process.kill(-p.pid, sig);
    await p;
    expect(await waitFor(() => !alive(mark))).toBe(true);
  });

  it('has no capabilities, no_new_privs, and sees only its own PID namespace', async () => {
    const r = await run('workspace-write', 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; ls /proc | grep -c "^[0-9]"');
    expect(r.stdout).toMatch(/CapEff:\s+0+\nNoNewPrivs:\s+1\n[1-5]$/);
  });
});
