// One network namespace per session that has background processes: a dev server started in one
// call must answer a `curl` made by a later one. Every confined call gets a private network
// namespace from bubblewrap (--unshare-net: only loopback, nothing outside), so two calls cannot
// reach each other. A holder — bubblewrap running `sleep` in a new user and network namespace,
// no command of the model's — keeps one namespace alive; the session's later calls enter it
// (nsenter --user --net) before their own bubblewrap, which then skips --unshare-net. The
// namespace has loopback only, like a call's own: commands still reach nothing outside.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';

export interface NetHolder {
  /** A process inside the namespace (the holder's child): nsenter's `--target`. */
  readonly pid: number;
  /** Whether the namespace is still the one this holder made (its process alive, same inode). */
  alive(): boolean;
  /** Ends the holder; the namespace goes with the last process in it. */
  stop(): void;
}

const WAIT_MS = 3000;

/** Starts a holder with the bwrap found by the probe; rejects when it cannot (then calls keep private namespaces). */
export async function startNetHolder(bwrap: string, env: Record<string, string>): Promise<NetHolder> {
  const own = readlinkSync('/proc/self/ns/net');
  // --die-with-parent: the holder never outlives this server, even a killed one.
  const child: ChildProcess = spawn(
    bwrap,
    ['--new-session', '--die-with-parent', '--unshare-user', '--unshare-net', '--ro-bind', '/', '/', '--clearenv', '--', 'sleep', 'infinity'],
    { detached: true, stdio: 'ignore', env },
  );
  child.unref();
  const outer = child.pid;
  const stop = () => {
    if (outer === undefined) return;
    try {
      process.kill(-outer, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  if (outer === undefined) throw new Error('the network holder could not start');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const inner = childOf(outer);
    const ns = inner !== undefined ? netnsOf(inner) : undefined;
    if (inner !== undefined && ns !== undefined && ns !== own) {
      return {
        pid: inner,
        alive: () => netnsOf(inner) === ns,
        stop,
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error('the network holder did not start its namespace');
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

function childOf(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

function netnsOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}
