// OS confinement of shell commands with bubblewrap (contract §6, issue 7).
// The OS enforces the sandbox; nothing here inspects the command string.
import { execFile } from 'node:child_process';
import { accessSync, constants, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { isInside, type SandboxMode } from '../protocol/index.js';

export interface ConfineRequest {
  mode: SandboxMode;
  workspace: string; // absolute real path; writable only under workspace-write
  command: string; // a bash command string
  env: NodeJS.ProcessEnv; // the parent's environment (will be scrubbed)
  tmpDir?: string; // optional private temp dir (host path) mounted at /tmp
}

/** Spawn with `{ env, extendEnv: false, detached: true }` and kill the process group to cancel. */
export interface ConfinedSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  confined: boolean;
}

export const BWRAP_INSTALL_HINT =
  'install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora/RHEL), ' +
  'pacman -S bubblewrap (Arch), apk add bubblewrap (Alpine), zypper install bubblewrap (openSUSE)';

const USERNS_HINT =
  'bwrap needs user namespaces: check sysctl user.max_user_namespaces > 0 (and kernel.unprivileged_userns_clone=1 on ' +
  'older Debian, the bwrap AppArmor profile on Ubuntu 24.04+); inside Docker the default seccomp/AppArmor profiles ' +
  'block them (--security-opt seccomp=unconfined --security-opt apparmor=unconfined), or use danger-full-access ' +
  'inside an outer sandbox';

// Names that carry credentials. FERRET_SERVER_TOKEN is covered by /TOKEN/.
const SECRET_NAME = [
  /TOKEN/, /SECRET/, /PASSW(OR)?D/, /CREDENTIAL/, /COOKIE/, /API_?KEY/, /(^|_)KEYS?$/,
  /(ACCESS|PRIVATE|SIGNING|ENCRYPTION|MASTER|SESSION)_?KEY/, /(^|_)PASS$/, /(^|_)PWD$/,
  /(^|_)AUTH($|_|ORIZATION)/, /^AWS_/, /^SSH_AUTH_SOCK$/, /(^|_)DSN$/, /DATABASE_URL/,
  /CONNECTION_STRING/,
];
// A URL with user:password@ (proxies, database URLs) leaks a password whatever its name.
const SECRET_VALUE = /:\/\/[^/\s:@]+:[^/\s@]+@/;
const KEEP = new Set(['PWD', 'OLDPWD']);

/** The parent's environment minus credentials; applied under every mode. */
export function scrubEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    const secret = !KEEP.has(upper) && (SECRET_NAME.some((re) => re.test(upper)) || SECRET_VALUE.test(value));
    if (!secret) out[name] = value;
  }
  return out;
}

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

// Fixed system locations first, then absolute PATH entries; never anything inside the
// workspace, so a repository cannot plant its own `bwrap` or `bash`.
function findExecutable(name: string, pathEnv: string | undefined, exclude?: string): string | undefined {
  const dirs = ['/usr/bin', '/bin', '/usr/local/bin', ...(pathEnv ?? '').split(delimiter)];
  for (const dir of dirs) {
    if (!isAbsolute(dir) || (exclude !== undefined && isInside(exclude, dir))) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

// Paths that stay read-only inside a writable workspace: git metadata (hooks and config
// are code execution on the host), ferret's own state, and the audit store.
function protectedPaths(ws: string, env: NodeJS.ProcessEnv): string[] {
  const candidates = [join(ws, '.git'), join(ws, '.ferret')];
  const chimera = env.CHIMERA_HOME ?? (env.HOME ? join(env.HOME, '.chimera') : undefined);
  if (chimera !== undefined && isAbsolute(chimera)) candidates.push(chimera);
  const dotGit = join(ws, '.git');
  try {
    // A worktree/submodule `.git` file points at the real gitdir.
    if (lstatSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
      if (m?.[1]) candidates.push(resolve(ws, m[1]));
    }
  } catch {
    // no .git: nothing to add
  }
  const out: string[] = [];
  for (const c of candidates) {
    if (!exists(c)) continue;
    let real: string;
    try {
      real = realpathSync(c);
    } catch {
      continue; // dangling symlink: nothing real to protect
    }
    if (isInside(ws, real) && real !== ws && !out.includes(real)) out.push(real);
  }
  return out;
}

// Probe results: flags the installed bwrap does not know are left out (e.g. --disable-userns < 0.8).
let supportsDisableUserns = true;

function bwrapArgs(req: ConfineRequest, ws: string, env: Record<string, string>, bash: string): string[] {
  const args = [
    '--new-session', // setsid: no TIOCSTI/job-control tricks against a terminal
    '--die-with-parent', // killing bwrap (its process group) tears down the PID namespace
    '--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts',
    '--unshare-cgroup-try', '--cap-drop', 'ALL',
  ];
  if (supportsDisableUserns) args.push('--disable-userns');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  // Private temp, and /run masked: it holds Unix sockets (docker, dbus, agents) that
  // --unshare-net does not cut off.
  if (req.tmpDir !== undefined) args.push('--bind', realpathSync(req.tmpDir), '/tmp');
  else args.push('--tmpfs', '/tmp');
  args.push('--tmpfs', '/var/tmp', '--tmpfs', '/run');
  const xdg = req.env.XDG_RUNTIME_DIR;
  if (xdg && isAbsolute(xdg) && exists(xdg) && !isInside(ws, xdg)) args.push('--tmpfs', xdg);
  // The workspace comes after the tmpfs mounts so a workspace under /tmp stays visible;
  // later mounts win, so the protected paths come last.
  if (req.mode === 'workspace-write') {
    args.push('--bind', ws, ws);
    for (const p of protectedPaths(ws, req.env)) args.push('--ro-bind', p, p);
  } else {
    args.push('--ro-bind', ws, ws);
  }
  // --clearenv: the child sees exactly the scrubbed env even if bwrap inherited more.
  args.push('--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--chdir', ws, '--', bash, '-c', req.command);
  return args;
}

/**
 * Builds the spawn for a command. Throws (never falls back to unconfined) when a confined
 * mode is asked for and no bwrap binary exists.
 */
export function confineCommand(req: ConfineRequest): ConfinedSpawn {
  if (!isAbsolute(req.workspace)) throw new Error(`workspace must be absolute: ${req.workspace}`);
  const ws = realpathSync(req.workspace);
  const env = scrubEnv(req.env);
  env.PATH ??= DEFAULT_PATH;
  const confined = req.mode !== 'danger-full-access';
  // Binding `/` writable (or re-binding it) would also bring back the host /proc and /dev.
  if (confined && ws === '/') throw new Error('refusing to confine with the filesystem root as workspace');
  const bash = findExecutable('bash', env.PATH, ws === '/' ? undefined : ws);
  if (bash === undefined) throw new Error('bash not found');
  if (!confined) return { file: bash, args: ['-c', req.command], env, confined: false };
  const bwrap = findExecutable('bwrap', env.PATH, ws);
  if (bwrap === undefined) throw new Error(`bwrap not found; ${BWRAP_INSTALL_HINT}`);
  const inner = { ...env, TMPDIR: '/tmp' };
  // bwrap itself gets the scrubbed env: as PID 1 of the sandbox its environ is readable there.
  return { file: bwrap, args: bwrapArgs(req, ws, inner, bash), env: inner, confined: true };
}

function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(file, args, { env, timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, out: `${stdout}${stderr}`.trim() || (err?.message ?? '') });
    });
  });
}

let probe: Promise<{ ok: true; path: string } | { ok: false; reason: string }> | undefined;

/** Whether bwrap exists and can create its namespaces here. Cached for the process. */
export async function probeBwrap(): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
  probe ??= (async () => {
    const env = { PATH: process.env.PATH ?? DEFAULT_PATH };
    const path = findExecutable('bwrap', env.PATH);
    if (path === undefined) return { ok: false as const, reason: `bwrap not found; ${BWRAP_INSTALL_HINT}` };
    const help = await run(path, ['--help'], env);
    supportsDisableUserns = help.out.includes('--disable-userns');
    // Start the real recipe once so missing user namespaces (Docker, hardened kernels) show here.
    let res: { code: number; out: string };
    try {
      const spawn = confineCommand({ mode: 'workspace-write', workspace: realpathSync(tmpdir()), command: 'true', env });
      res = await run(spawn.file, spawn.args, spawn.env);
    } catch (err) {
      res = { code: 1, out: err instanceof Error ? err.message : String(err) };
    }
    if (res.code !== 0) return { ok: false as const, reason: `bwrap cannot start a sandbox here: ${res.out}; ${USERNS_HINT}` };
    return { ok: true as const, path };
  })();
  return probe;
}
