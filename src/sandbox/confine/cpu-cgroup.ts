// A CPU cgroup for commands, so a command that wants every core (a fork bomb stopped at its pids
// limit, a `make -j` beside it) leaves ferret's own event loop its share: the commands of one
// server together weigh COMMAND_LIMITS.cpuShares against the server (cgroup v1 `cpu.shares`, in
// the `cpu` hierarchy, a folder every command joins) or cpuWeight (cgroup v2 `cpu.weight`, on the
// server's folder in the unified tree that already holds each command's pids folder). A weight,
// not a quota: an idle server leaves commands every core.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_LIMITS } from '../limits.js';
import { processAlive } from '../../util/process-alive.js';

/** Where the cgroup files are (a fake folder in tests) and whose folder to make. */
export interface CgroupHost {
  /** The cgroup mount root, `/sys/fs/cgroup`. */
  root: string;
  /** The text of `/proc/self/cgroup`. */
  self: string;
  pid: number;
}

/** cgroup v1: the folder of the `cpu` hierarchy this process is in, or undefined (none, or v2 only). */
export function v1CpuParent(host: CgroupHost): string | undefined {
  for (const line of host.self.split('\n')) {
    const m = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (!m || !m[1]!.split(',').includes('cpu')) continue;
    // The mount is `cpu` or `cpu,cpuacct` (with `cpu` a link to it on most distributions).
    for (const mount of ['cpu', m[1]!]) {
      const dir = join(host.root, mount);
      if (existsSync(join(dir, 'cpu.shares'))) return join(dir, m[2]!).replace(/\/+$/, '');
    }
  }
  return undefined;
}

/**
 * v1: makes `<cpu hierarchy>/ferret-<pid>` with the commands' share and returns its
 * `cgroup.procs` for commands to join; undefined where it cannot (no v1 cpu hierarchy, no right to
 * write it). Folders of servers that are gone are removed on the way.
 */
export function setUpV1Cpu(host: CgroupHost): { dir: string; procs: string } | undefined {
  const parent = v1CpuParent(host);
  if (!parent) return undefined;
  const dir = join(parent, `ferret-${host.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cpu.shares'), String(COMMAND_LIMITS.cpuShares));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return undefined;
  }
  removeStaleCpu(parent, host.pid);
  return { dir, procs: join(dir, 'cgroup.procs') };
}

/**
 * v2: the commands' weight on the server's folder of the unified tree (`…/ferret-<pid>`, made for
 * the pids limit), once its parent hands `cpu` down. False where it cannot (the parent holds
 * processes of its own and is not the root, no delegation): then commands compete as before.
 */
export function setUpV2Cpu(parent: string, dir: string): boolean {
  try {
    const control = join(parent, 'cgroup.subtree_control');
    if (!readFileSync(control, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(control, '+cpu');
    writeFileSync(join(dir, 'cpu.weight'), String(COMMAND_LIMITS.cpuWeight));
    return true;
  } catch {
    return false;
  }
}

function removeStaleCpu(parent: string, own: number): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^ferret-(\d+)$/.exec(name);
    if (!m || Number(m[1]) === own || processAlive(Number(m[1]))) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // a process of it still runs, or not ours
    }
  }
}

/** undefined: not looked for yet; null: none here. */
let v1: { dir: string; procs: string } | null | undefined;

/** The v1 CPU folder every command of this server joins (made once per process), or undefined. */
export function commandCpuProcs(): string | undefined {
  if (v1 === undefined) {
    let self = '';
    try {
      self = readFileSync('/proc/self/cgroup', 'utf8');
    } catch {
      // not Linux
    }
    v1 = setUpV1Cpu({ root: '/sys/fs/cgroup', self, pid: process.pid }) ?? null;
    const made = v1;
    if (made) {
      process.once('exit', () => {
        try {
          rmdirSync(made.dir);
        } catch {
          // a command still running at exit: the next server removes it
        }
      });
    }
  }
  return v1?.procs;
}
