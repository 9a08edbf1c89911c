// A command's cgroup on a real cgroup v2 tree, where this machine has one ferret may write: a
// hybrid host (cgroup v1 controllers, v2 at /sys/fs/cgroup/unified without any controller) has
// no `pids` to hand down, so the pids limit itself is tested with fake roots (cpu-cgroup.test.ts)
// and on v1; what v2 needs no controller for is tested here: joining, the end's `cgroup.kill`
// of a process that left its group, the folder's removal.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandCgroup } from './cgroup.js';

// The v2 tree: hybrid hosts mount it at unified/, v2-only hosts at the root. cgroup.kill: kernel 5.14+.
const UNIFIED = ['/sys/fs/cgroup/unified', '/sys/fs/cgroup'].find((d) => existsSync(join(d, 'cgroup.controllers')) && existsSync(join(d, 'cgroup.procs')));

function writable(dir: string | undefined): boolean {
  if (!dir) return false;
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

describe.runIf(writable(UNIFIED))('a command cgroup on a real cgroup v2 tree', () => {
  it('its end kills a member that left the process group and session, and removes the folder', async () => {
    const dir = join(UNIFIED!, `ferret-test-${process.pid}`);
    mkdirSync(dir);
    try {
      const cg = new CommandCgroup(dir, true);
      // A "daemon": its own session and process group, moved into the cgroup.
      const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' }); // detached: setsid
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(cg.procs, String(child.pid));
      expect(readFileSync(cg.procs, 'utf8').trim().split('\n').map(Number)).toContain(child.pid);
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
      expect(await cg.end()).toEqual({ limitHits: 0 }); // no pids controller here: no limit counted
      expect(await exited).toBe('SIGKILL');
      expect(existsSync(dir)).toBe(false);
    } finally {
      if (existsSync(dir)) rmdirSync(dir); // a failed run's folder (empty once its member is gone)
    }
  });
});
