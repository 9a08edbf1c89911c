// Processes found by an environment variable they were started with: a client that spawns ferret
// detached (acpx's queue owner) leaves no handle to wait on, but its ferret carries CHIMERA_HOME.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids (other than this process) whose environment holds NAME=VALUE exactly; Linux /proc only. */
export function pidsWithEnv(name: string, value: string): number[] {
  const want = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(want)) pids.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

/** Waits until no process holds NAME=VALUE; after timeoutMs the rest get SIGKILL (and a short wait). */
export async function waitForEnvProcsGone(name: string, value: string, timeoutMs = 10_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; pidsWithEnv(name, value).length; ) {
    if (Date.now() > end) {
      for (const pid of pidsWithEnv(name, value)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      await new Promise((r) => setTimeout(r, 200));
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
