// Spawning the built `chimera ferret serve`, and making sure no child outlives the run.
// Plain Node ESM (node:* only) so tests, benchmarks and the evals harness share it; types in spawn.d.mts.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The repo root: every caller finds dist/, docs/ and fixtures from it, wherever it runs from. */
export const REPO = resolve(import.meta.dirname, '../..');

/** The built CLI (`npm run build`) that every client spawns. */
export const CHIMERA = resolve(REPO, 'dist/cli/main.js');

const live = new Set();
const exits = new WeakMap();

/** Registers a child so it is SIGKILLed if the run ends first, and records its exit for `exited`. */
export function track(child) {
  live.add(child);
  exits.set(
    child,
    new Promise((r) => {
      child.once('exit', (code) => {
        live.delete(child);
        r(code);
      });
      child.once('error', () => {
        live.delete(child);
        r(null);
      });
    }),
  );
  return child;
}

/** Resolves with a tracked child's exit code (null when a signal ended it), so callers never miss an exit that already happened. */
export function exited(child) {
  const p = exits.get(child);
  if (!p) throw new Error('exited(): the child was not spawned through track()');
  return p;
}

/**
 * Spawns `node CHIMERA ferret serve ...args` (FERRET_LOG_LEVEL=warn unless env says otherwise), tracked.
 * `bin`: the CLI to run (FERRET_PROFILE_BIN: a wrapper that profiles it, for a bench investigation).
 */
export function spawnFerret(args, { env = {}, cwd, stdio = ['pipe', 'pipe', 'pipe'], bin = process.env.FERRET_PROFILE_BIN || CHIMERA, uid, gid } = {}) {
  return track(
    spawn(process.execPath, [bin, 'ferret', 'serve', ...args], {
      cwd,
      env: { ...process.env, FERRET_LOG_LEVEL: 'warn', ...env },
      stdio,
      ...(uid !== undefined ? { uid } : {}),
      ...(gid !== undefined ? { gid } : {}),
    }),
  );
}

/** Sends `signal` (none when null), SIGKILLs after graceMs, and resolves with the exit code: a hung server fails a run instead of hanging it. */
export async function stopChild(child, signal = 'SIGTERM', graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  if (signal) child.kill(signal);
  const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited(child);
  } finally {
    clearTimeout(t);
  }
}

/** SIGKILLs every tracked child still running: teardown for scripts, and what runs at process exit. */
export function killAll() {
  for (const c of live) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}
process.on('exit', killAll);

let onSignals = false;
/** Makes Ctrl-C and SIGTERM exit (code 130) through the exit-time cleanup, for scripts that own their process. */
export function exitOnSignals() {
  if (onSignals) return;
  onSignals = true;
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
}
