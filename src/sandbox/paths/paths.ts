import { resolve } from 'node:path';
import { isInside, type SandboxMode } from '../../protocol/index.js';
import type { WorkspaceFacts } from '../facts.js';
import { hostMetaOf, type HostMeta } from './host-meta.js';
import { realPathOf } from './real-path.js';
import { inStateBlock } from './state-roots.js';

export { isInside } from '../../protocol/index.js';
export { realPathOf } from './real-path.js';

export type PathVerdict = { ok: true; real: string } | { ok: false; real: string; reason: string };

/**
 * File-tool check on real paths (symlinks and .. resolved): under read-only and
 * workspace-write a file tool stays in the workspace, nothing is written under read-only,
 * and .git/ is read-only (its hooks are code execution).
 */
export function checkFilePath(opts: { facts: WorkspaceFacts; path: string; write: boolean; mode: SandboxMode }): PathVerdict {
  return checkRealPath({ ...opts, real: realPathOf(resolve(opts.facts.workspace, opts.path)) });
}

/**
 * The same judgement for a path already resolved with realPathOf (resolve once, judge and report it):
 * - ferret's own state (CHIMERA_HOME) is refused, read or write, under every mode, except reads in
 *   `readable` (a real path: the calling session's kept tool output, under any mode);
 * - read-only and workspace-write keep file tools inside the workspace, and read-only writes nothing;
 * - workspace-write refuses writes to git metadata at any depth (host-meta.ts: `.git`, a `gitdir:`
 *   target, the core.hooksPath folder, scripts git's config runs), as the command sandbox does.
 * The other files the host runs (`.vscode`, `.envrc`, …) pass here and are asked for (protectedWrite).
 */
export function checkRealPath(opts: { facts: WorkspaceFacts; real: string; write: boolean; mode: SandboxMode; readable?: string | undefined }): PathVerdict {
  const real = opts.real;
  const ws = opts.facts.workspace;
  // The one exception: a read in the calling session's folder of kept tool output, which ferret
  // itself wrote and named to the model (core/tool-call/kept-output.ts). Nothing else of the state.
  if (!opts.write && opts.readable !== undefined && isInside(opts.readable, real)) return { ok: true, real };
  const state = inStateBlock(opts.facts, real);
  if (state !== undefined) {
    return { ok: false, real, reason: `${real} is ferret's own state (${state}); no tool reads or writes it` };
  }
  if (opts.mode === 'danger-full-access') return { ok: true, real };
  if (!isInside(ws, real)) {
    return { ok: false, real, reason: `${real} is outside the workspace ${ws}` };
  }
  if (opts.write && opts.mode === 'read-only') {
    return { ok: false, real, reason: 'the read-only sandbox allows no writes' };
  }
  if (opts.write) {
    const meta = hostMetaOf(opts.facts, real);
    if (meta?.kind === 'git') {
      return { ok: false, real, reason: `${real} is ${meta.what}, read-only in the workspace-write sandbox (git runs it on this machine)` };
    }
  }
  return { ok: true, real };
}

/** What the host would run from a write to `real` (see host-meta.ts); the approval policy asks before it. */
export function protectedWrite(facts: WorkspaceFacts, real: string): HostMeta | undefined {
  return hostMetaOf(facts, real);
}
