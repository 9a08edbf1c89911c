// OS confinement of shell commands with bubblewrap (contract §6, issue 7).
// The OS enforces the sandbox; nothing here inspects the command string.
import { accessSync, constants, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { isInside, type SandboxMode } from '../../protocol/index.js';
import type { BwrapProbe, HostFacts, WorkspaceFacts } from '../facts.js';
import { PLACEHOLDER_NAMES, repoTargets, rootRunPaths } from '../paths/host-meta.js';
import { lstatOrUndefined } from '../paths/real-path.js';
import { stateBlocks } from '../paths/state-roots.js';
import { homeMasks } from './home-masks.js';
import { withNeutralGit } from './git-env.js';
import { holdPlaceholder, isEmptyFolder, isPlaceholder, nestedGitPaths, releasePlaceholder, type WorkspaceScan } from './workspace-guard.js';
import { lazyRequire } from '../../util/lazy-require.js';
import { setBounded } from '../../util/bounded-map.js';
import { COMMAND_LIMITS } from '../limits.js';
import { commandCgroup, killMarked } from './cgroup.js';
import { endReapers } from './reaper-sweep.js';
import { REAPER_MARKER, reaperMissing, reaperOf, underReaper } from './subreaper.js';
import { commandCpuProcs } from './cpu-cgroup.js';

export interface ConfineRequest {
  /** The server's sandbox facts (createCore's): state roots, env.pass, found programs, placeholders. */
  host: HostFacts;
  mode: SandboxMode;
  workspace: string; // absolute real path; writable only under workspace-write
  command: string; // a bash command string
  env: NodeJS.ProcessEnv; // the parent's environment: only allowlisted names pass (commandEnv)
  tmpDir?: string; // optional private temp dir (host path) mounted at /tmp
  /** The workspace's nested repositories (scanWorkspace, before the run): their metadata is read-only too. */
  scan?: WorkspaceScan;
  /**
   * The session's shared network namespace (net-holder.ts: a process in it): the command enters it
   * instead of getting a private one, so it reaches the session's background processes on loopback.
   */
  netnsPid?: number;
  /**
   * stdin is a socket (Node's 'pipe' is a socketpair): bash takes that for an rsh/ssh login and
   * sources ~/.bashrc (which may read stdin) unless SHLVL says it is not the first shell, so
   * the command gets SHLVL=1 (background processes, whose stdin process_input writes).
   */
  stdinSocket?: boolean;
  /**
   * A person approved this everyday git command (bash/git-metadata.ts): the workspace's own `.git`
   * folder is writable for it, except what carries code (GIT_CODE_PATHS), which stays read-only.
   */
  gitWritable?: boolean;
}

/**
 * Inside a writable `.git`: what git or the person's tools run or load as code. hooks/ runs at
 * commit; config (and config.worktree) names programs (core.fsmonitor, filters, aliases);
 * info/ holds attributes (which select those filters) and sparse-checkout; modules/ and
 * worktrees/ are other repositories' git directories with their own hooks and config.
 * A missing folder among them gets an empty read-only placeholder, as a missing `.git` does; a
 * missing file (commondir, config.worktree) that the command creates is moved aside after it
 * (workspace-guard.ts sweepGitDir).
 */
export const GIT_CODE_PATHS: readonly string[] = ['hooks', 'config', 'config.worktree', 'info', 'modules', 'worktrees', 'commondir'];
const GIT_CODE_FOLDERS = new Set(['hooks', 'info', 'modules', 'worktrees']);

/** Spawn with `{ env, extendEnv: false, detached: true }` and kill the process group to cancel. */
export interface ConfinedSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  confined: boolean;
  /** Removes the placeholders bwrap made on the host; call once, after the command ended. */
  release(): void;
  /**
   * Ends whatever the command started that is still running (its pids cgroup; under
   * danger-full-access without one, the processes carrying its marker): call once its main
   * process ended, the call is over. `limitHits`: forks its process limit refused (known with a cgroup).
   */
  end(): Promise<{ limitHits: number }>;
}

/** Names the processes of one unconfined call, for `end()` when there is no cgroup (cgroup.ts killMarked). */
export const CALL_MARKER = 'FERRET_CALL';

/**
 * Run first, outside the sandbox: joins the command's cgroups (its pids cgroup, the commands' CPU
 * cgroup: each `cgroup.procs` named before `--`), then becomes the command, so nothing it starts
 * is outside them. Fails (126) rather than run unlimited.
 */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; exec "$@"';

/**
 * Run first inside the sandbox, then replaced by the command: RLIMIT_NPROC set here, inside the
 * sandbox's own user namespace, counts only this command's processes (set before bwrap it would
 * also count all of the user's others), and binds every user but root; RLIMIT_FSIZE bounds a file.
 * A limit already lower stays (ulimit cannot raise it, and says nothing).
 */
const INNER_LIMITS = `ulimit -u ${COMMAND_LIMITS.pidsMax} 2>/dev/null; ulimit -f ${COMMAND_LIMITS.fileSizeBytes / 1024} 2>/dev/null; exec "$0" -c "$1"`;

export const BWRAP_INSTALL_HINT =
  'install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora/RHEL), ' +
  'pacman -S bubblewrap (Arch), apk add bubblewrap (Alpine), zypper install bubblewrap (openSUSE)';

const USERNS_HINT =
  'bwrap needs user namespaces: check sysctl user.max_user_namespaces > 0 (and kernel.unprivileged_userns_clone=1 on ' +
  'older Debian, the bwrap AppArmor profile on Ubuntu 24.04+); inside a container run it with --security-opt systempaths=unconfined (bwrap mounts a fresh /proc), ' +
  'plus seccomp=unconfined on Docker and apparmor=unconfined where AppArmor is on, or use danger-full-access ' +
  'inside an outer sandbox';

// Commands get an allowlisted environment, never the server's: a denylist always misses one
// (GITHUB_PAT, *_PASSPHRASE, redis://:pw@host, a webhook URL). config.json's env.pass adds names.
// bwrap itself gets the same (as PID 1 of the sandbox its environ is readable there).
const BASE_ENV = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR']);
const BASE_ENV_PREFIX = ['LC_'];
/** Never passed, whatever config.json says: the server's own secrets. */
const NEVER_PASS = new Set(['FERRET_SERVER_TOKEN', 'FERRET_FLEET_SECRET']);
/** Adds names (a trailing `*` matches a prefix) that every command of this server receives from now on. */
export function passCommandEnv(host: HostFacts, names: readonly string[]): void {
  for (const n of names) if (!host.commandEnvPass.includes(n)) host.commandEnvPass.push(n);
}

function passes(name: string, pass: readonly string[]): boolean {
  if (NEVER_PASS.has(name)) return false;
  if (BASE_ENV.has(name) || BASE_ENV_PREFIX.some((p) => name.startsWith(p))) return true;
  return pass.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

/**
 * The environment a command may see: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LANGUAGE,
 * LC_*, TZ, TMPDIR, and `pass` (config.json's env.pass). Under every mode.
 */
export function commandEnv(env: NodeJS.ProcessEnv, pass: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && passes(name, pass)) out[name] = value;
  return out;
}

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

// Fixed system locations first, then absolute PATH entries; never anything inside the
// workspace, so a repository cannot plant its own `bwrap` or `bash`.
function findExecutable(host: HostFacts, name: string, pathEnv: string | undefined, exclude?: string): string | undefined {
  // Looked up twice per command: a found program is kept for a moment (it is still checked
  // again after FOUND_MS, so an uninstalled or moved one is not used for long).
  const found = host.found;
  const key = `${name}\0${pathEnv ?? ''}\0${exclude ?? ''}`;
  const hit = found.get(key);
  if (hit && performance.now() - hit.at < FOUND_MS) return hit.file;
  const file = lookUpExecutable(name, pathEnv, exclude);
  if (file === undefined) found.delete(key);
  else setBounded(found, key, { file, at: performance.now() }, 32);
  return file;
}
const FOUND_MS = 2000;

function lookUpExecutable(name: string, pathEnv: string | undefined, exclude?: string): string | undefined {
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
  return lstatOrUndefined(p) !== undefined;
}

interface Guard {
  readOnly: string[];
  /** The folders between the workspace and each read-only path, bound onto themselves (writable). */
  pinned: string[];
  placeholders: string[];
}

/**
 * What stays read-only inside a writable workspace (host-meta.ts: git metadata at any depth,
 * what it points to, the files other tools run), and the missing names that get a placeholder.
 */
function workspaceGuard(facts: WorkspaceFacts, scan: WorkspaceScan | undefined, gitWritable = false): Guard {
  const ws = facts.workspace;
  const host = facts.host;
  const roots = rootRunPaths(facts);
  // The scan just looked at every root name (in this tick's run-up to the spawn): no second lstat each.
  const scanned = scan && scan.workspace === ws ? new Set(roots) : undefined;
  const present = (c: string) => (scanned?.has(c) ? scan!.roots.has(c) : exists(c));
  // Looked at again now, not taken from the scan: a `.git` another process removed since is
  // still held by a placeholder, so the command cannot make one.
  const bare = (p: string) => !exists(p) || isEmptyFolder(p);
  // A `.git` missing or empty (a placeholder) is no repository: nothing of git's to follow. Looked
  // at now, not by the hold count: the host may have run `git init` in a held placeholder.
  const dotGit = join(ws, '.git');
  const noRepo = bare(dotGit);
  const placeholders = PLACEHOLDER_NAMES.map((n) => join(ws, n)).filter((p) => isPlaceholder(host, p) || (p === dotGit ? noRepo : bare(p)));
  const repo = noRepo ? [] : repoTargets(host, ws);
  // An approved everyday git command: .git itself stays out of the read-only list (it is pinned,
  // below, so it cannot be renamed away), and each of its code paths goes in instead. Only a real
  // folder: a `.git` file or link points elsewhere, which stays read-only as before.
  const openGit = gitWritable && !noRepo && lstatOrUndefined(dotGit)?.isDirectory() === true;
  const inner = openGit ? GIT_CODE_PATHS.map((n) => join(dotGit, n)) : [];
  if (openGit) for (const p of inner) if (GIT_CODE_FOLDERS.has(basename(p)) && (isPlaceholder(host, p) || !exists(p))) placeholders.push(p);
  const candidates = [...roots, ...inner, ...repo.map((t) => t.path)];
  if (scan) candidates.push(...nestedGitPaths(host, scan));
  if (openGit) candidates.splice(0, candidates.length, ...candidates.filter((c) => c !== dotGit));
  const found: string[] = [];
  for (const c of candidates) {
    if (!present(c) || placeholders.includes(c)) continue;
    let real: string;
    try {
      real = realpathSync(c);
    } catch {
      continue; // dangling symlink: nothing real to protect
    }
    if (isInside(ws, real) && !isInside(real, ws) && !found.includes(real)) found.push(real);
  }
  // A bind over a folder already bound read-only would only hide the outer one's mounts.
  const readOnly = found.filter((p) => !found.some((q) => q !== p && isInside(q, p))).sort();
  // A mount point cannot be renamed or removed: pinning the folders on the way to a protected path
  // stops `mv tools tools.old && mkdir tools && echo … > tools/fsmon.sh` from replacing it.
  const pinned = new Set<string>();
  for (const p of [...readOnly, ...placeholders]) for (let d = dirname(p); d !== ws && isInside(ws, d); d = dirname(d)) pinned.add(d);
  return { readOnly, pinned: [...pinned].sort((a, b) => a.length - b.length), placeholders };
}

/** ferret's state folders that exist: hidden from every confined command (an empty read-only tmpfs over each). */
function hiddenState(facts: WorkspaceFacts): string[] {
  return stateBlocks(facts).filter((b) => exists(b) && !isInside(b, facts.workspace));
}

function bwrapArgs(req: ConfineRequest, facts: WorkspaceFacts, env: Record<string, string>, bash: string, guard: Guard | undefined): string[] {
  const ws = facts.workspace;
  const args = [
    '--new-session', // setsid: no TIOCSTI/job-control tricks against a terminal
    '--die-with-parent', // killing bwrap (its process group) tears down the PID namespace
    '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts',
    '--unshare-cgroup-try', '--cap-drop', 'ALL',
  ];
  // In the session's shared namespace (entered by nsenter before bwrap) there is no new one to make.
  if (req.netnsPid === undefined) args.push('--unshare-net');
  if (req.host.supportsDisableUserns) args.push('--disable-userns');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  // Private temp, and /run masked: it holds Unix sockets (docker, dbus, agents) that
  // --unshare-net does not cut off.
  if (req.tmpDir !== undefined) args.push('--bind', realpathSync(req.tmpDir), '/tmp');
  else args.push('--tmpfs', '/tmp');
  args.push('--tmpfs', '/var/tmp', '--tmpfs', '/run');
  const xdg = req.env.XDG_RUNTIME_DIR ?? req.host.xdgRuntimeDir;
  if (xdg && isAbsolute(xdg) && exists(xdg) && !isInside(ws, xdg)) args.push('--tmpfs', xdg);
  // The workspace comes after the tmpfs mounts so a workspace under /tmp stays visible;
  // later mounts win, so the protected paths come last.
  if (req.mode === 'workspace-write' && guard) {
    args.push('--bind', ws, ws);
    for (const p of guard.pinned) args.push('--bind', p, p);
    for (const p of guard.readOnly) args.push('--ro-bind', p, p);
    for (const p of guard.placeholders) args.push('--tmpfs', p, '--remount-ro', p);
  } else {
    args.push('--ro-bind', ws, ws);
  }
  // ferret's own state (audit log and key, config.json, other projects' logs) is not there at all.
  for (const p of hiddenState(facts)) args.push('--tmpfs', p, '--remount-ro', p);
  // Secret locations and Unix sockets under the home folder are not there either (home-masks.ts).
  const masks = homeMasks(facts);
  for (const p of masks.folders) args.push('--tmpfs', p, '--remount-ro', p);
  for (const p of masks.files) args.push('--ro-bind', '/dev/null', p);
  // --clearenv: the child sees exactly the scrubbed env even if bwrap inherited more.
  args.push('--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--chdir', ws, '--', bash, '-c', INNER_LIMITS, bash, req.command);
  return args;
}

/**
 * Builds the spawn for a command. Throws (never falls back to unconfined) when a confined
 * mode is asked for and no bwrap binary exists.
 */
export function confineCommand(req: ConfineRequest): ConfinedSpawn {
  if (!isAbsolute(req.workspace)) throw new Error(`workspace must be absolute: ${req.workspace}`);
  const ws = realpathSync.native(req.workspace); // one system call, not an lstat per component
  const host = req.host;
  // Under every mode, danger-full-access included (there git runs on the host): git-env.ts.
  const env = withNeutralGit(commandEnv(req.env, host.commandEnvPass));
  env.PATH ??= DEFAULT_PATH;
  if (req.stdinSocket) env.SHLVL = '1';
  const confined = req.mode !== 'danger-full-access';
  // Binding `/` writable (or re-binding it) would also bring back the host /proc and /dev.
  if (confined && ws === '/') throw new Error('refusing to confine with the filesystem root as workspace');
  const bash = findExecutable(host, 'bash', env.PATH, ws === '/' ? undefined : ws);
  if (bash === undefined) throw new Error('bash not found');
  // Every process the call starts is in its pids cgroup where one can be made (cgroup.ts).
  const cgroup = commandCgroup();
  // And in the commands' CPU cgroup (cpu-cgroup.ts: v1; on v2 the pids folder carries the weight).
  const join = [cgroup?.procs, commandCpuProcs()].filter((p): p is string => p !== undefined);
  const inCgroup = (file: string, args: string[]): { file: string; args: string[] } =>
    join.length ? { file: bash, args: ['-c', JOIN_CGROUP, 'ferret-cgroup', ...join, '--', file, ...args] } : { file, args };
  if (!confined) {
    const marker = nodeCrypto().randomBytes(12).toString('hex');
    // Under the subreaper where there is one (subreaper.ts): it sets the call's marker on the command.
    const reaper = reaperOf(() => findExecutable(host, 'perl', env.PATH, ws === '/' ? undefined : ws));
    const end = async () => {
      // A reaper still killing what the command left (its group was killed: cancel, timeout) finishes
      // first; one the command stopped, or one still there after the wait, is ended with what it holds.
      if (reaper) await endReapers(REAPER_MARKER, marker, REAPER_WAIT_MS);
      return cgroup ? cgroup.end() : killMarked(CALL_MARKER, marker).then(() => ({ limitHits: 0 }));
    };
    if (!reaper) return { ...inCgroup(bash, ['-c', req.command]), env: { ...env, [CALL_MARKER]: marker }, confined: false, release: () => {}, end };
    const run = underReaper(reaper.perl, reaper.nr, { name: CALL_MARKER, value: marker }, bash, ['-c', req.command]);
    return { ...inCgroup(run.file, run.args), env: { ...env, [REAPER_MARKER]: marker }, confined: false, release: () => {}, end };
  }
  let bwrap: string | undefined;
  try {
    bwrap = findExecutable(host, 'bwrap', env.PATH, ws);
    if (bwrap === undefined) throw new Error(`bwrap not found; ${BWRAP_INSTALL_HINT}`);
  } catch (err) {
    void cgroup?.end();
    throw err;
  }
  const inner = { ...env, TMPDIR: '/tmp' };
  const facts = host.workspace(ws);
  const guard = req.mode === 'workspace-write' ? workspaceGuard(facts, req.scan, req.gitWritable === true) : undefined;
  for (const p of guard?.placeholders ?? []) holdPlaceholder(host, p);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    for (const p of guard?.placeholders ?? []) releasePlaceholder(host, p);
  };
  // bwrap itself gets the allowlisted env: as PID 1 of the sandbox its environ is readable there.
  const end = async () => (cgroup ? cgroup.end() : { limitHits: 0 });
  const args = bwrapArgs(req, facts, inner, bash, guard);
  if (req.netnsPid !== undefined) {
    // The holder's user namespace first (ours: entering it needs no privilege), then its network.
    const nsenter = findExecutable(host, 'nsenter', env.PATH, ws);
    if (nsenter === undefined) {
      release();
      void cgroup?.end();
      throw new Error('nsenter not found (util-linux): a command cannot join its session\'s network namespace');
    }
    const entered = [String(req.netnsPid), '--user', '--net', '--preserve-credentials', '--', bwrap, ...args];
    return { ...inCgroup(nsenter, ['--target', ...entered]), env: inner, confined: true, release, end };
  }
  return { ...inCgroup(bwrap, args), env: inner, confined: true, release, end };
}

/** How long a call's end waits for its reaper to finish killing; then it is ended with what it holds (reaper-sweep.ts). */
const REAPER_WAIT_MS = 5000;

/** Why unconfined commands run without the subreaper here (subreaper.ts), or undefined when they run under it. */
export function subreaperMissing(host: HostFacts, path: string | undefined): string | undefined {
  return reaperMissing(() => findExecutable(host, 'perl', path ?? DEFAULT_PATH));
}

// node:child_process loads with the probe, not at start-up; node:crypto with the first unconfined command.
const childProcess = lazyRequire<typeof import('node:child_process')>('node:child_process');
const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto');

/** Runs a program to its end: its exit code and its output (stdout then stderr, trimmed). */
export type ProbeExec = (file: string, args: string[], env: Record<string, string>) => Promise<{ code: number; out: string }>;

function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    try {
      childProcess().execFile(file, args, { env, timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, out: `${stdout}${stderr}`.trim() || (err?.message ?? '') });
      });
    } catch (err) {
      // A spawn Node refuses at once: an answer like any other failure, so the probe never rejects.
      done({ code: 1, out: err instanceof Error ? err.message : String(err) });
    }
  });
}

/**
 * Whether bwrap exists and can create its namespaces here. Run once per server (HostFacts.probe).
 * `exec` starts its two processes: the server passes the command helper's (tools/spawner.ts), so
 * no fork of the server's own process holds its event loop; by default they are forked from here.
 */
export async function probeBwrap(host: HostFacts, exec: ProbeExec = run): Promise<BwrapProbe> {
  host.probe ??= (async () => {
    const env = { PATH: host.path ?? DEFAULT_PATH };
    const path = findExecutable(host, 'bwrap', env.PATH);
    if (path === undefined) return { ok: false as const, reason: `bwrap not found; ${BWRAP_INSTALL_HINT}` };
    const help = await exec(path, ['--help'], env);
    host.supportsDisableUserns = help.out.includes('--disable-userns');
    // Start the real recipe once so missing user namespaces (Docker, hardened kernels) show here.
    let res: { code: number; out: string };
    try {
      // read-only: the same namespaces and mounts, and no placeholder made in the host's /tmp.
      const spawn = confineCommand({ host, mode: 'read-only', workspace: realpathSync(tmpdir()), command: 'true', env });
      try {
        res = await exec(spawn.file, spawn.args, spawn.env);
      } finally {
        spawn.release();
        await spawn.end();
      }
    } catch (err) {
      res = { code: 1, out: err instanceof Error ? err.message : String(err) };
    }
    if (res.code !== 0) return { ok: false as const, reason: `bwrap cannot start a sandbox here: ${res.out}; ${USERNS_HINT}` };
    return { ok: true as const, path };
  })();
  return host.probe;
}
