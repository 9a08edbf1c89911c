// A pids cgroup per command, where this process may make one: the process limit that holds
// whoever runs the server (RLIMIT_NPROC does not bind root), and the list of everything a call
// started, so the call's end can kill what left its process group (`setsid cmd &`).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COMMAND_LIMITS } from '../limits.js';
import { setUpV2Cpu } from './cpu-cgroup.js';
import { processAlive as alive } from '../../util/process-alive.js';

interface Base {
  /** This server's folder in the pids hierarchy (`…/ferret-<pid>`): one sub-folder per command. */
  dir: string;
  v2: boolean;
}

/** undefined: not looked for yet; null: none here (then RLIMIT_NPROC and the process group are all there is). */
let base: Base | null | undefined;
let next = 0;

/** The pids hierarchy this process is in: cgroup v1's `pids` mount, or v2 with the pids controller. */
function ownPidsCgroup(): { parent: string; v2: boolean } | undefined {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return undefined; // not Linux, or no /proc
  }
  for (const line of lines) {
    const m = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (!m) continue;
    if (m[1]!.split(',').includes('pids') && existsSync('/sys/fs/cgroup/pids/cgroup.procs')) return { parent: join('/sys/fs/cgroup/pids', m[2]!), v2: false };
  }
  const v2 = lines.find((l) => l.startsWith('0::/'));
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) return { parent: join('/sys/fs/cgroup', v2.slice(3)), v2: true };
  return undefined;
}

/** Folders left by servers that are gone (a crash, SIGKILL): removed when empty. */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^ferret-(\d+)$/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    const dir = join(parent, name);
    try {
      for (const sub of readdirSync(dir, { withFileTypes: true })) if (sub.isDirectory()) rmdirSync(join(dir, sub.name));
      rmdirSync(dir);
    } catch {
      // still in use (a process outlived its server) or not ours to remove: left alone
    }
  }
}

function findBase(): Base | null {
  const own = ownPidsCgroup();
  if (!own) return null;
  const dir = join(own.parent, `ferret-${process.pid}`);
  try {
    if (own.v2) {
      // v2 hands a controller down only to the children of a cgroup whose subtree_control lists it;
      // a cgroup with processes of its own (ours, unless delegated and empty) cannot: then none.
      const control = join(own.parent, 'cgroup.subtree_control');
      if (!readFileSync(control, 'utf8').split(/\s+/).includes('pids')) writeFileSync(control, '+pids');
    }
    mkdirSync(dir, { recursive: true });
    if (own.v2) writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids');
    // One command's folder, made and removed, proves the whole path works here.
    const probe = join(dir, 'probe');
    mkdirSync(probe, { recursive: true });
    try {
      writeFileSync(join(probe, 'pids.max'), String(COMMAND_LIMITS.pidsMax));
    } finally {
      rmdirSync(probe);
    }
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return null;
  }
  removeStale(own.parent);
  // v2: the commands' CPU weight on the same folder (cpu-cgroup.ts); v1 has its own cpu hierarchy.
  if (own.v2) setUpV2Cpu(own.parent, dir);
  // Empty by then (each command's folder goes with its command); a crash leaves it to removeStale.
  process.once('exit', () => {
    try {
      rmdirSync(dir);
    } catch {
      // a command still running at exit: its folder stays until the next server removes it
    }
  });
  return { dir, v2: own.v2 };
}

/** Whether commands get a pids cgroup here (looked up once per process). */
export function pidsCgroupAvailable(): boolean {
  if (base === undefined) base = findBase();
  return base !== null;
}

/** One command's pids cgroup: its `cgroup.procs` (the command's wrapper joins it before anything else runs) and its end. */
export class CommandCgroup {
  readonly procs: string;

  constructor(
    readonly dir: string,
    private readonly v2: boolean,
  ) {
    this.procs = join(dir, 'cgroup.procs');
  }

  private members(): number[] {
    try {
      return readFileSync(this.procs, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** How many forks the limit refused (v1 and v2 both count them in pids.events). */
  private limitHits(): number {
    try {
      return Number(/^max (\d+)/m.exec(readFileSync(join(this.dir, 'pids.events'), 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /**
   * Kills every process still in the cgroup (whatever process group or session it moved to), then
   * removes it; says how many forks the limit refused.
   */
  async end(): Promise<{ limitHits: number }> {
    const limitHits = this.limitHits();
    if (this.v2) {
      try {
        writeFileSync(join(this.dir, 'cgroup.kill'), '1');
      } catch {
        // kernel before 5.14: killed one by one below
      }
    }
    for (let round = 0; round < 100; round++) {
      const pids = this.members();
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      try {
        rmdirSync(this.dir);
        return { limitHits };
      } catch {
        // members left, or exited and not yet reaped: look again shortly
      }
      await new Promise((r) => setTimeout(r, round < 10 ? 5 : 50));
    }
    return { limitHits };
  }
}

/** A new pids cgroup for one command (limit COMMAND_LIMITS.pidsMax), or undefined where none can be made. */
export function commandCgroup(): CommandCgroup | undefined {
  if (!pidsCgroupAvailable()) return undefined;
  const dir = join(base!.dir, `c${++next}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(COMMAND_LIMITS.pidsMax));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return undefined;
  }
  return new CommandCgroup(dir, base!.v2);
}

/** The pids of the processes whose environment carries `name=value` (not this one). Reads /proc without blocking the event loop. */
export async function markedPids(name: string, value: string): Promise<number[]> {
  const needle = Buffer.from(`${name}=${value}\0`);
  const inner = Buffer.concat([Buffer.from([0]), needle]);
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    entries.map(async (e) => {
      if (!/^\d+$/.test(e) || Number(e) === process.pid) return;
      let environ: Buffer;
      try {
        environ = await readFile(`/proc/${e}/environ`);
      } catch {
        return; // gone, or another user's
      }
      if (environ.indexOf(needle) === 0 || environ.indexOf(inner) >= 0) found.push(Number(e));
    }),
  );
  return found;
}

/**
 * Without a cgroup, under danger-full-access: the processes whose environment still carries the
 * call's marker (`FERRET_CALL=<id>`, inherited by everything the call starts unless a process
 * clears its environment) are killed at the call's end, wherever they moved (`setsid`, `nohup`,
 * a double fork). What cleared its environment is the subreaper's (subreaper.ts).
 */
export async function killMarked(name: string, value: string): Promise<number> {
  let killed = 0;
  for (const pid of await markedPids(name, value)) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

/**
 * Waits (at most `ms`) until no process carries `name=value`: the call's reaper (subreaper.ts),
 * which may still be killing what the command left when its group was killed (cancel, timeout).
 * True when none is left.
 */
export async function waitUnmarked(name: string, value: string, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  for (;;) {
    if ((await markedPids(name, value)).length === 0) return true;
    if (performance.now() > until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}
