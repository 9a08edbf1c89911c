// Temp folders (CHIMERA_HOME, workspaces) that are removed even when a run dies half-way, and
// scripted-model files to put in them. Plain Node ESM; types in temp.d.mts.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs = new Set();

/** A fresh folder `ferret-NAME-XXXXXX` (real path) under parent (default the OS temp dir), removed at exit unless removeAtExit is false. */
export function tempDir(name, { parent = tmpdir(), removeAtExit = true } = {}) {
  const d = realpathSync(mkdtempSync(join(parent, `ferret-${name}-`)));
  if (removeAtExit) dirs.add(d);
  return d;
}

/** Removes a folder (one tempDir made, or any) and forgets it. */
export function removeDir(d) {
  // Retried: a server that is still exiting may write into it meanwhile (its compiled-code cache,
  // CHIMERA_HOME/ferret/code-cache), and a single pass then fails with ENOTEMPTY. A server a client
  // spawned (acpx) exits after the client, so this waits up to ~3 s for it on a loaded machine.
  rmSync(d, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
  dirs.delete(d);
}

/** Removes every temp folder still around: teardown for scripts, and what runs at process exit. */
export function removeTempDirs() {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}
process.on('exit', removeTempDirs);

/** A temp CHIMERA_HOME and workspace for one test or run; cleanup() removes both. */
export function tempEnv() {
  const home = tempDir('home');
  const ws = tempDir('ws');
  return {
    home,
    ws,
    cleanup: () => {
      removeDir(home);
      removeDir(ws);
    },
  };
}

/** Writes a scripted-model file (docs/scripted-model.md) and returns its path, for `--model scripted:PATH`. */
export function writeScript(dir, name, script) {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(script));
  return p;
}
