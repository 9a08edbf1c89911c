import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxMode } from '../protocol/index.js';
import type { HostFacts } from '../sandbox/index.js';
import { bashTool } from './bash.js';
import { nodeFiles } from './node-files.js';

/**
 * Runs `true` once through the bash tool, sandbox and all, in a scratch folder that is removed
 * after: the first real call of a process then finds the command helper's spawn path, bubblewrap
 * and the tool's own code already run once (measured: 32 → 14 ms for the first `bash true`).
 */
export async function rehearseBash(sandbox: SandboxMode, host: HostFacts): Promise<void> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ferret-warm-')));
  try {
    const outcome = await bashTool.run(
      { command: 'true' },
      {
        cwd: dir,
        callId: 'warm-up',
        signal: AbortSignal.timeout(10_000),
        sandbox,
        files: nodeFiles,
        env: {},
        facts: host.workspace(dir),
        progress: () => {},
        fileEdit: () => {},
        fileOpen: () => {},
        violation: () => {},
      },
    );
    if (outcome.status !== 'completed') throw new Error(outcome.output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
