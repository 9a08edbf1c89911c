// The server's last word on a call's reapers (subreaper.ts). The reapers guard each other (W
// kills what a dead or stopped R leaves, R kills what it holds when W dies), but a command can
// stop them both (`kill -STOP $PPID <W>`): then, once the call's group is killed, R sits stopped
// with what the command left re-parented to it. Waiting on it would be waiting forever, so a
// reaper that is stopped, or still there after the wait, is ended here with everything under it.
import { readdir, readFile } from 'node:fs/promises';
import { markedPids } from './cgroup.js';

/** pid -> [state, parent pid] of every process readable in /proc. */
async function processTable(): Promise<Map<number, { state: string; ppid: number }>> {
  const table = new Map<number, { state: string; ppid: number }>();
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return table;
  }
  await Promise.all(
    entries.map(async (e) => {
      if (!/^\d+$/.test(e)) return;
      try {
        const t = await readFile(`/proc/${e}/stat`, 'utf8');
        const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
        table.set(Number(e), { state: f[0] ?? '', ppid: Number(f[1]) });
      } catch {
        // gone meanwhile
      }
    }),
  );
  return table;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile, or not ours
  }
}

/**
 * Stops `roots` and every process under them, round after round until a round finds none new (a
 * stopped process forks no more, and an orphan of one still alive stays under a stopped
 * subreaper), then kills them all. Returns how many processes it killed.
 */
export async function freezeAndKill(roots: readonly number[]): Promise<number> {
  const seen = new Set(roots);
  for (let round = 0; round < 1000; round++) {
    for (const pid of seen) signal(pid, 'SIGSTOP');
    const table = await processTable();
    let grew = false;
    for (const [pid, p] of table) {
      if (!seen.has(pid) && seen.has(p.ppid)) {
        seen.add(pid);
        grew = true;
      }
    }
    if (!grew) break;
  }
  for (const pid of seen) signal(pid, 'SIGKILL');
  return seen.size;
}

/**
 * Waits (at most `ms`) for the call's reapers (the processes carrying `name=value`) to finish
 * killing what the command left; a reaper that is stopped, or still there at the end, is ended
 * with everything under it. True when the reapers ended by themselves.
 */
export async function endReapers(name: string, value: string, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  for (;;) {
    const pids = await markedPids(name, value);
    if (pids.length === 0) return true;
    const table = await processTable();
    const stopped = pids.some((p) => /^[Tt]$/.test(table.get(p)?.state ?? ''));
    if (stopped || performance.now() > until) {
      await freezeAndKill(pids);
      return false;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
