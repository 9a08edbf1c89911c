// The environment block: facts a model would otherwise guess at or spend tool calls on (which
// OS, which shell, today's date, the branch, whether commands can reach the network). Gathered
// once per session (system-prompt.ts), so the block is the same bytes on every call.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arch, release, type } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { ApprovalPreset, SandboxMode } from '../../protocol/index.js';
import { setBounded } from '../../util/bounded-map.js';

export interface GitFacts {
  /** The repository's top folder (the nearest folder at or above the workspace holding `.git`). */
  root: string;
  /** "main", "detached HEAD", "no commits yet on main", or undefined when git could not say. */
  branch?: string;
  /** "clean", "3 changed, 1 untracked", or why it is unknown. */
  status: string;
}

export interface EnvFacts {
  os: string;
  date: string;
  workspace: string;
  /** Undefined: the workspace is in no git repository. */
  git: GitFacts | undefined;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
}

const SANDBOX: Record<SandboxMode, string> = {
  'read-only': 'read-only (commands and file tools may read; nothing may be written)',
  'workspace-write': 'workspace-write (writes only inside the workspace, git metadata excepted; the rest of the disk is read-only; /tmp is private)',
  'danger-full-access': 'danger-full-access (no OS sandbox: commands run unconfined and may write anywhere except ferret\'s own state)',
};

// Confined commands run in bubblewrap with --unshare-net (src/sandbox/confine): no network at all.
const NETWORK: Record<SandboxMode, string> = {
  'read-only': 'none (confined commands have no network: installs and downloads fail)',
  'workspace-write': 'none (confined commands have no network: installs and downloads fail)',
  'danger-full-access': 'yes, as this machine has',
};

export const APPROVAL: Record<ApprovalPreset, string> = {
  suggest: 'suggest (a person approves every write and every command not known to be read-only)',
  auto: 'auto (reads, writes inside the workspace and commands known to be safe run at once; anything else waits for a person)',
  'full-auto': 'full-auto (nothing waits for a person; deny rules and the sandbox still refuse, and so do commands that cannot be judged before they run)',
};

/** The line that states the approval preset: in the block, and in a context message when it changes. */
export const approvalLine = (a: ApprovalPreset): string => `Approval preset: ${APPROVAL[a]}`;
/** The line that states the sandbox mode (and what it means for the network). */
export const sandboxLines = (s: SandboxMode): string => `Sandbox: ${SANDBOX[s]}\nNetwork for commands: ${NETWORK[s]}`;

/** The environment block, as the system prompt carries it. */
export function renderEnvironment(f: EnvFacts): string {
  const git = f.git
    ? `Git: repository at ${f.git.root}${f.git.root === f.workspace ? ' (the workspace)' : ` (the workspace is ${relative(f.git.root, f.workspace)}/ in it)`}; ` +
      `${f.git.branch !== undefined ? `branch ${f.git.branch}; ` : ''}${f.git.status} (at the start of the session)`
    : 'Git: the workspace is not in a git repository';
  return [
    '# Environment',
    `Operating system: ${f.os}`,
    'Shell: bash (the bash tool runs each command with bash -c in the workspace)',
    `Date: ${f.date}`,
    `Workspace: ${f.workspace}`,
    git,
    sandboxLines(f.sandbox),
    approvalLine(f.approval),
  ].join('\n');
}

/** The nearest folder at or above `dir` that holds a `.git` (folder or file), or undefined. */
export function gitRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** How long git may take to say the branch and status before the block says "unknown". */
const GIT_TIMEOUT_MS = 2000;
/** Output read of `git status`: past this the counts are given as "many". */
const GIT_MAX_BUFFER = 1 << 20;

/**
 * The branch and a short status, from one bounded `git status`. The repository's metadata is
 * protected from the model's commands and file tools (docs/security.md), and what it could still
 * make git run on its own is switched off: no fsmonitor, no optional index lock (the agent's own
 * commands may be using the index), no submodule walk, no prompt for credentials.
 */
export function gitFacts(workspace: string, env: NodeJS.ProcessEnv, now = Date.now()): Promise<GitFacts | undefined> {
  // Sessions that start together in one workspace (a fleet of bots, a benchmark) share one run.
  const hit = recent.get(workspace);
  if (hit && now - hit.at < SHARE_MS) return hit.facts;
  return setBounded(recent, workspace, { at: now, facts: runGit(workspace, env) }, 64).facts;
}

/** How long one `git status` answers for every session that starts in the same workspace. */
const SHARE_MS = 5000;
// A per-process memo of a few seconds, not state: every session still keeps its own answer.
const recent = new Map<string, { at: number; facts: Promise<GitFacts | undefined> }>();

async function runGit(workspace: string, env: NodeJS.ProcessEnv): Promise<GitFacts | undefined> {
  const root = gitRoot(workspace);
  if (root === undefined) return undefined;
  // safe.bareRepository: a committed folder that looks like a bare repository is never opened (docs/security.md).
  const args = ['-c', 'core.fsmonitor=false', '-c', 'safe.bareRepository=explicit', '--no-optional-locks', 'status', '--porcelain=v1', '--branch', '--ignore-submodules=all', '--untracked-files=normal'];
  const gitEnv: NodeJS.ProcessEnv = {
    PATH: env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    ...(env['HOME'] !== undefined ? { HOME: env['HOME'] } : {}),
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
  return new Promise((resolve) => {
    execFile('git', args, { cwd: workspace, env: gitEnv, timeout: GIT_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: GIT_MAX_BUFFER, windowsHide: true }, (err, stdout) => {
      if (err && (err as { code?: unknown }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve({ root, ...parseStatus(stdout, true) });
      if (err) return resolve({ root, status: err.killed ? 'status unknown (git took too long)' : 'status unknown (git failed)' });
      resolve({ root, ...parseStatus(stdout, false) });
    });
  });
}

/** `git status --porcelain=v1 --branch` as a branch name and "clean" / "N changed, M untracked". */
export function parseStatus(out: string, cut: boolean): { branch?: string; status: string } {
  const lines = out.split('\n').filter((l) => l.length > 0);
  let branch: string | undefined;
  if (lines[0]?.startsWith('## ')) branch = branchOf(lines.shift()!.slice(3));
  if (cut) lines.pop(); // the last line may be half a line
  const untracked = lines.filter((l) => l.startsWith('??')).length;
  const changed = lines.length - untracked;
  const more = cut ? ' or more' : '';
  const status = changed + untracked === 0 && !cut ? 'clean' : [changed ? `${changed}${more} changed` : '', untracked ? `${untracked}${more} untracked` : ''].filter(Boolean).join(', ') || 'many changes';
  return { ...(branch !== undefined ? { branch } : {}), status };
}

function branchOf(head: string): string {
  if (head.startsWith('No commits yet on ')) return `${head.slice('No commits yet on '.length)} (no commits yet)`;
  if (head.startsWith('HEAD (no branch)')) return 'detached HEAD';
  const dots = head.indexOf('...');
  const name = dots >= 0 ? head.slice(0, dots) : head.split(' ')[0]!;
  const track = /\[(.+)\]$/.exec(head)?.[1];
  return track ? `${name} (${track})` : name;
}

/** Today's date where ferret runs, as YYYY-MM-DD. */
export function today(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** "Linux 6.5.0-1025 (linux x64)" */
export function osLine(): string {
  return `${type()} ${release()} (${process.platform} ${arch()})`;
}
