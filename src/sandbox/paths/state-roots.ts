// ferret's own state (CHIMERA_HOME: the audit log and its key, config.json with API keys, every
// project's event logs) is off limits to its tools: file tools refuse it under every sandbox
// mode, and confined commands do not see it. One server has one state root; the core registers
// it at start, and the default ~/.chimera is always included.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import { realPathOf } from './real-path.js';
import { setBounded } from '../../util/bounded-map.js';

/** The folders of a state root that hold state, hidden one by one when the root holds the workspace. */
export const STATE_DIRS = ['eventlog', 'ferret'] as const;

const registered = new Set<string>();
const realOf = new Map<string, string>();

/** Protects a state root (CHIMERA_HOME) for the life of the process. */
export function protectStateRoot(dir: string): void {
  registered.add(dir);
  realOf.delete(dir);
  blocksOf.clear();
}

/** Every protected state root, as real paths (resolved once: the root exists from start-up on). */
export function stateRoots(): string[] {
  const out = new Set<string>();
  const candidates = [...registered, join(homedir(), '.chimera')];
  const env = process.env['CHIMERA_HOME'];
  if (env) candidates.push(env);
  for (const c of candidates) {
    let real = realOf.get(c);
    if (real === undefined) realOf.set(c, (real = realPathOf(c)));
    out.add(real);
  }
  return [...out];
}

/**
 * What of the state roots is off limits for a workspace: a whole root, or, when a root holds the
 * workspace itself (CHIMERA_HOME=~ with --cwd ~/project), its state folders.
 */
export function stateBlocks(workspace: string): readonly string[] {
  // Asked several times per command: kept per workspace until a root is added or CHIMERA_HOME changes.
  const env = process.env['CHIMERA_HOME'] ?? '';
  if (env !== blocksEnv) {
    blocksOf.clear();
    blocksEnv = env;
  }
  const hit = blocksOf.get(workspace);
  if (hit) return hit;
  const out: string[] = [];
  for (const root of stateRoots()) {
    if (isInside(root, workspace)) for (const d of STATE_DIRS) out.push(join(root, d));
    else out.push(root);
  }
  return setBounded(blocksOf, workspace, Object.freeze(out), 64);
}
const blocksOf = new Map<string, readonly string[]>();
let blocksEnv = '';

/** The protected state folder `real` lies in, if any. */
export function inStateBlock(workspace: string, real: string): string | undefined {
  return stateBlocks(workspace).find((b) => isInside(b, real));
}
