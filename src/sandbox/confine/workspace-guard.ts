// What a confined command must not change in a writable workspace, worked out around each run:
// before it, the protected paths that exist (read-only binds, confine.ts); after it, anything
// protected that the command created where no bind could stand (a new `sub/.git`, a new
// `.vscode`) is moved aside, so the host never runs it. See docs/security.md for the window.
import { readdirSync, renameSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts, WorkspaceFacts } from '../facts.js';
import { listRoot, scanGit, type GitScan } from '../paths/git-scan.js';
import { PLACEHOLDER_NAMES, repoTargets, rootRunPaths } from '../paths/host-meta.js';
import { lstatOrUndefined, realPathOf } from '../paths/real-path.js';

export interface WorkspaceScan extends GitScan {
  /** Root-level protected entries that existed (absolute paths), with their identity (dev:ino). */
  roots: Map<string, string>;
}

/** Finds every `.git` in the workspace (bounded, skipping SCAN_SKIP) without blocking the event loop. */
export async function scanWorkspace(facts: WorkspaceFacts): Promise<WorkspaceScan> {
  const ws = facts.workspace;
  const scan = await scanGit(facts);
  // The root is looked at in the same tick as the spawn that follows (as an lstat per name was):
  // when the walk gave the loop a turn, its first listing is read again.
  const names = scan.yielded ? listRoot(ws) : scan.rootNames;
  const roots = new Map<string, string>();
  for (const p of rootRunPaths(facts)) {
    // A root name the listing does not hold is not there: no lstat for each of the ~20 names,
    // most of them missing (rootListing: ASCII names only, compared case-insensitively).
    if (names && dirname(p) === ws && !names.has(basename(p).toLowerCase())) continue;
    const seen = scan.yielded ? undefined : scan.git.get(p); // the root `.git`: the walk has just looked at it
    if (seen) {
      roots.set(p, seen);
      continue;
    }
    const st = lstatOrUndefined(p);
    if (st) roots.set(p, `${st.dev}:${st.ino}`);
  }
  return { ...scan, roots };
}

/** The nested repositories' metadata a scan found: each `.git` and what it points to. */
export function nestedGitPaths(host: HostFacts, scan: WorkspaceScan): string[] {
  const out: string[] = [];
  for (const p of scan.git.keys()) {
    out.push(p);
    if (dirname(p) !== scan.workspace) for (const t of repoTargets(host, dirname(p))) out.push(t.path);
  }
  return out;
}

// Placeholders: an empty read-only folder mounted where a protected name is missing, so a
// command cannot create it (bwrap makes the mount point on the host). Counted per path, since
// two commands in one workspace share one placeholder; the last one out removes it. The counts
// are the server's (HostFacts.placeholders).

/** Takes a hold on a placeholder at p (missing now, or another command's). */
export function holdPlaceholder(host: HostFacts, p: string): void {
  host.placeholders.set(p, (host.placeholders.get(p) ?? 0) + 1);
}

export function isPlaceholder(host: HostFacts, p: string): boolean {
  return host.placeholders.has(p);
}

/**
 * An empty folder (not a symlink) at a placeholder name: another ferret process's placeholder
 * (several servers of a fleet, or two processes, in one workspace), or one left behind. It
 * holds nothing git or a tool could run, so it is treated as a placeholder here too: mounted
 * over (bwrap makes it again if its owner removes it meanwhile), never moved aside as made by a
 * command.
 */
export function isEmptyFolder(p: string): boolean {
  try {
    return lstatOrUndefined(p)?.isDirectory() === true && readdirSync(p).length === 0;
  } catch {
    return false;
  }
}

/** Drops a hold; the last one removes the (empty) folder bwrap left on the host. */
export function releasePlaceholder(host: HostFacts, p: string): void {
  const held = host.placeholders;
  const n = (held.get(p) ?? 1) - 1;
  if (n > 0) {
    held.set(p, n);
    return;
  }
  held.delete(p);
  try {
    rmdirSync(p); // only ever removes an empty folder: never anything a person put there
  } catch {
    /* gone already, or not ours any more */
  }
}

export interface MovedAside {
  path: string;
  movedTo: string;
  reason: string;
}

/**
 * After a command ended (its whole PID namespace is gone): every `.git` and root-level
 * protected entry that is new since `before` and was born during the run is renamed aside.
 * Renamed, never deleted: what the command put inside stays for the person to look at.
 */
export async function sweepWorkspace(facts: WorkspaceFacts, before: WorkspaceScan, startedAtMs: number): Promise<MovedAside[]> {
  const ws = before.workspace;
  const after = await scanWorkspace(ws === facts.workspace ? facts : facts.host.workspace(ws));
  const known = new Set(before.git.values());
  const fresh: string[] = [];
  for (const [p, id] of after.git) if (!known.has(id)) fresh.push(p);
  // A root-level name that is new, or now another entry (a symlinked .vscode replaced by a folder).
  for (const [p, id] of after.roots) if (before.roots.get(p) !== id) fresh.push(p);
  const out: MovedAside[] = [];
  // Coarse file-system clocks can stamp a file a tick before Date.now() said the run started.
  const since = startedAtMs - 1000;
  for (const p of fresh.sort((a, b) => b.length - a.length)) {
    const st = lstatOrUndefined(p);
    if (!st || isPlaceholder(facts.host, p) || (PLACEHOLDER_NAMES.includes(basename(p)) && dirname(p) === ws && isEmptyFolder(p))) continue;
    // A rename keeps the birth time but moves ctime: a `.git` or `.vscode` built under another
    // name by an earlier command and renamed into place by this one counts as made now. ctime
    // also moves when anything inside changes (git's index.lock), so it counts only where the
    // scan before the run was complete: the root names always, nested ones when nothing was
    // left unread. Else a real repository the scan did not reach, that git touched meanwhile,
    // would be taken for the command's.
    const whole = before.complete || dirname(p) === ws;
    const born = whole ? Math.max(st.birthtimeMs, st.ctimeMs) : st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
    if (born < since) continue; // it was there before the run (the scan did not reach it then)
    if (!isInside(ws, realPathOf(dirname(p)))) continue;
    const movedTo = join(dirname(p), `${basename(p)}.ferret-blocked-${Date.now().toString(36)}`);
    try {
      renameSync(p, movedTo);
    } catch {
      continue;
    }
    out.push({
      path: p,
      movedTo,
      reason:
        `the command created ${p}, which git or another tool would run on this machine; ferret moved it to ${movedTo}. ` +
        'Commands cannot create git repositories or the files editors and tools run; write such files with write_file (it asks the user), or ask the user to do it',
    });
  }
  return out;
}

/** Files in a git directory that redirect git to other configuration (`commondir`) or add to it (`config.worktree`). */
const GIT_REDIRECTS = ['commondir', 'config.worktree'];

/**
 * After a command that ran with the workspace's `.git` writable (an approved everyday git
 * command, confine.ts): a redirecting file it created there is moved aside, as a new `.git` is.
 */
export function sweepGitDir(ws: string, startedAtMs: number): MovedAside[] {
  const out: MovedAside[] = [];
  for (const name of GIT_REDIRECTS) {
    const p = join(ws, '.git', name);
    const st = lstatOrUndefined(p);
    if (!st || Math.max(st.birthtimeMs, st.ctimeMs) < startedAtMs - 1000) continue;
    const movedTo = `${p}.ferret-blocked-${Date.now().toString(36)}`;
    try {
      renameSync(p, movedTo);
    } catch {
      continue;
    }
    out.push({ path: p, movedTo, reason: `the command created ${p}, which would point git at other configuration; ferret moved it to ${movedTo}` });
  }
  return out;
}
