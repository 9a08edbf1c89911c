import { isInside } from '../../protocol/index.js';
import type { WorkspaceFacts } from '../../sandbox/index.js';
import type { TurnHost } from '../turn-host.js';

// A session's workspace roots: cwd, then its extra roots (ACP `additionalDirectories`). Each root
// is a workspace of its own to the sandbox (its state blocks, its `.git`, its host-run files), so a
// path in an extra root gets exactly the checks a path in cwd gets; a path in none of them is
// judged against cwd (and so refused as outside it, unless the sandbox is danger-full-access).

/** The root that holds a real path: cwd, an extra root, or (in none) cwd. */
export function rootOf(host: TurnHost, real: string): string {
  const { cwd, additionalDirectories } = host.state;
  if (isInside(cwd, real)) return cwd;
  return additionalDirectories?.find((root) => isInside(root, real)) ?? cwd;
}

/** The sandbox's facts for the root that holds `real`. */
export function factsFor(host: TurnHost, real: string): WorkspaceFacts {
  return host.deps.sandbox.workspace(rootOf(host, real));
}
