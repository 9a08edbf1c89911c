import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { isInside, type SandboxMode } from '../protocol/index.js';

export { isInside } from '../protocol/index.js';

export type PathVerdict = { ok: true; real: string } | { ok: false; real: string; reason: string };

/**
 * The real path of p: symlinks resolved all the way, including a dangling one (its target is
 * where a write would land), and for a path that does not exist yet, its nearest existing
 * ancestor's real path joined with the rest.
 */
export function realPathOf(p: string, depth = 0): string {
  if (depth > 40) return p; // a symlink loop: judged as written, which is inside nothing real
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(cur), ...rest.reverse());
    } catch {
      // realpath fails on a dangling link too: follow it by hand rather than trusting its name.
      let target: string | undefined;
      try {
        if (lstatSync(cur).isSymbolicLink()) target = resolve(dirname(cur), readlinkSync(cur));
      } catch {
        /* does not exist: go up */
      }
      if (target !== undefined) return realPathOf(resolve(target, ...rest.reverse()), depth + 1);
      const parent = dirname(cur);
      if (parent === cur) return p;
      rest.push(cur.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      cur = parent;
    }
  }
}

/**
 * File-tool check on real paths (symlinks and .. resolved): under read-only and
 * workspace-write a file tool stays in the workspace, nothing is written under read-only,
 * and .git/ is read-only (its hooks are code execution).
 */
export function checkFilePath(opts: { workspace: string; path: string; write: boolean; mode: SandboxMode }): PathVerdict {
  return checkRealPath({ ...opts, real: realPathOf(resolve(opts.workspace, opts.path)) });
}

/** The same judgement for a path already resolved with realPathOf (resolve once, judge and report it). */
export function checkRealPath(opts: { workspace: string; real: string; write: boolean; mode: SandboxMode }): PathVerdict {
  const real = opts.real;
  if (opts.mode === 'danger-full-access') return { ok: true, real };
  if (!isInside(opts.workspace, real)) {
    return { ok: false, real, reason: `${real} is outside the workspace ${opts.workspace}` };
  }
  if (opts.write && opts.mode === 'read-only') {
    return { ok: false, real, reason: 'the read-only sandbox allows no writes' };
  }
  if (opts.write && isInside(resolve(opts.workspace, '.git'), real)) {
    return { ok: false, real, reason: '.git/ is read-only in the workspace-write sandbox' };
  }
  return { ok: true, real };
}
