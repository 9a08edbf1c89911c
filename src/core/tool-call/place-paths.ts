import { resolve } from 'node:path';
import type { SandboxMode } from '../../protocol/index.js';
import { checkRealPath, realPathOf, type WorkspaceFacts } from '../../sandbox/index.js';
import type { Tool } from '../../tools/define.js';

export type Placed =
  | { ok: true; args: Record<string, unknown>; reals: string[] }
  | { ok: false; real: string; reason: string };

/** The real path of every path argument the call gives, resolved once (symlinks and `..`). */
export interface RealPath {
  /** The argument's name; absent for a path a tool's `paths()` named. */
  name?: string;
  /** The path as the call gave it. */
  given: string;
  real: string;
}

export function realPathsOf(tool: Tool, args: Record<string, unknown>, cwd: string): RealPath[] {
  const named = (tool.pathArgs ?? []).flatMap((name) => {
    const v = args[name];
    return typeof v === 'string' && v.length > 0 ? [{ name, given: v, real: realPathOf(resolve(cwd, v)) }] : [];
  });
  const extra = (tool.paths?.(args) ?? []).filter((p) => p.length > 0).map((given) => ({ given, real: realPathOf(resolve(cwd, given)) }));
  return [...named, ...extra];
}

/** The checked real path of each path a tool's `paths()` named, by the text the call gave. */
export function placedExtras(found: RealPath[]): Map<string, string> {
  return new Map(found.filter((f) => f.name === undefined).map((f) => [f.given, f.real]));
}

/**
 * Checks each path argument against the sandbox and re-points it to its checked real path, so
 * the tool works on what was judged, not on a name a symlink could re-point later. `keptDir` (a
 * real path) is the session's kept tool output (`facts`: one workspace, or the root holding each path), which a tool that pages through it (read_file) may read.
 */
export function placePaths(tool: Tool, args: Record<string, unknown>, found: RealPath[], facts: WorkspaceFacts | ((real: string) => WorkspaceFacts), sandbox: SandboxMode, keptDir?: string): Placed {
  const placed: Record<string, unknown> = { ...args };
  const readable = tool.readsKeptOutput && tool.effect === 'read' ? keptDir : undefined;
  for (const { name, real } of found) {
    const v = checkRealPath({ facts: typeof facts === 'function' ? facts(real) : facts, real, write: tool.effect === 'write', mode: sandbox, readable });
    if (!v.ok) return { ok: false, real: v.real, reason: v.reason };
    if (name !== undefined) placed[name] = real;
  }
  return { ok: true, args: placed, reals: found.map((f) => f.real) };
}
