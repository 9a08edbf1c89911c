// ferret's own state (CHIMERA_HOME: the audit log and its key, config.json with API keys, every
// project's event logs) is off limits to its tools: file tools refuse it under every sandbox
// mode, and confined commands do not see it. One server has one state root; the core gives it
// to its HostFacts at start, and the default ~/.chimera is always included.
import { join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts, WorkspaceFacts } from '../facts.js';
import { realPathOf } from './real-path.js';

/** The folders of a state root that hold state, hidden one by one when the root holds the workspace. */
export const STATE_DIRS = ['eventlog', 'ferret'] as const;

/** Every protected state root, as real paths (resolved once: the root exists from start-up on). */
export function stateRoots(host: HostFacts): string[] {
  const out = new Set<string>();
  const candidates = [...host.stateRoots, join(host.home, '.chimera')];
  if (host.chimeraHome) candidates.push(host.chimeraHome);
  for (const c of candidates) {
    let real = host.realRoots.get(c);
    if (real === undefined) host.realRoots.set(c, (real = realPathOf(c)));
    out.add(real);
  }
  return [...out];
}

/**
 * What of the state roots is off limits for a workspace: a whole root, or, when a root holds the
 * workspace itself (CHIMERA_HOME=~ with --cwd ~/project), its state folders.
 */
export function stateBlocks(facts: WorkspaceFacts): readonly string[] {
  // Asked several times per command: kept with the workspace's facts until a root is added.
  const host = facts.host;
  const hit = facts.stateBlocks;
  if (hit && hit.version === host.rootsVersion) return hit.blocks;
  const out: string[] = [];
  for (const root of stateRoots(host)) {
    if (isInside(root, facts.workspace)) for (const d of STATE_DIRS) out.push(join(root, d));
    else out.push(root);
  }
  const blocks = Object.freeze(out);
  facts.stateBlocks = { version: host.rootsVersion, blocks };
  return blocks;
}

/** The protected state folder `real` lies in, if any. */
export function inStateBlock(facts: WorkspaceFacts, real: string): string | undefined {
  return stateBlocks(facts).find((b) => isInside(b, real));
}
