import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listeningUrl, readableLogLine } from '../model/server-log.js';
import type { Exit } from './server-process.js';

// The window's server, started detached (its own process group: a window reload, which ends the
// extension host, does not end it or the turn it runs). It serves ACP over loopback HTTP behind a
// random token and ends by itself once no window has been connected for IDLE_EXIT_S (ferret's
// `--idle-exit`: a turn waiting on a person is stopped then; a working one gets 15 periods). Its stderr goes to server.log in the extension's storage folder, read from there.

/** How long the server waits for a window to come back before it exits (a reload takes seconds). */
export const IDLE_EXIT_S = 120;

/** Flags this extension sets itself for a detached server (a person's own are dropped). */
const OURS = new Map([
  ['--http', 0],
  ['--no-stdio', 0],
  ['--port', 1],
  ['--idle-exit', 1],
]);

export function detachedArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const skip = OURS.get(a.split('=')[0]!);
    if (skip === undefined) out.push(a);
    else if (!a.includes('=')) i += skip;
  }
  return [...out, '--http', '--port', '0', '--no-stdio', '--idle-exit', String(IDLE_EXIT_S)];
}

export interface Spawned {
  pid: number;
  url: string;
  token: string;
}

export interface DetachedOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The folder server.log goes in (the extension's storage for this workspace). */
  dir: string;
  onLog: (line: string) => void;
}

/**
 * A detached server: started here, or found running by a reloaded window (then only its pid is
 * known). Its log is tailed from server.log; `exited` settles when the process is gone.
 */
export class DetachedProcess {
  spawnError: NodeJS.ErrnoException | undefined;
  lastLogLine: string | undefined;
  private stopping = false;
  private gone = false;
  readonly exited: Promise<Exit>;
  private readonly tail: LogTail;

  private constructor(
    readonly pid: number,
    logPath: string,
    onLog: (line: string) => void,
    child?: ReturnType<typeof spawn>,
  ) {
    // A server an earlier window started: its log so far was shown there; read on from its end.
    this.tail = new LogTail(logPath, child ? 0 : sizeOf(logPath), (line) => {
      this.lastLogLine = readableLogLine(line);
      onLog(line);
    });
    this.exited = new Promise((resolve) => {
      const done = (e: Exit) => {
        this.gone = true;
        this.tail.stop();
        resolve(e);
      };
      if (child) {
        child.once('error', (err: NodeJS.ErrnoException) => {
          this.spawnError = err;
          done({ code: null, signal: null });
        });
        child.once('exit', (code, signal) => done({ code, signal }));
      } else {
        // Not our child (a reloaded window found it): look now and then.
        const t = setInterval(() => {
          if (!alive(pid)) {
            clearInterval(t);
            done({ code: null, signal: null });
          }
        }, 1000);
        t.unref();
      }
    });
  }

  /** Starts `command args` detached; resolves once it says where it listens (or rejects with why not). */
  static async start(o: DetachedOptions): Promise<{ proc: DetachedProcess; spawned: Spawned }> {
    const token = randomBytes(24).toString('hex');
    mkdirSync(o.dir, { recursive: true });
    const logPath = join(o.dir, 'server.log');
    const fd = openSync(logPath, 'w', 0o600);
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(o.command, detachedArgs(o.args), {
        cwd: o.cwd,
        env: { ...process.env, ...o.env, FERRET_SERVER_TOKEN: token },
        stdio: ['ignore', 'ignore', fd],
        detached: true,
        shell: process.platform === 'win32',
      });
    } finally {
      closeSync(fd);
    }
    child.unref();
    const proc = new DetachedProcess(child.pid ?? -1, logPath, o.onLog, child);
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server did not start listening within 20 s')), 20_000);
      proc.tail.onUrl = (u) => {
        clearTimeout(timer);
        resolve(u);
      };
      void proc.exited.then((exit) => {
        clearTimeout(timer);
        reject(proc.spawnError ?? new Error(`the server exited (${exit.signal ?? `code ${exit.code}`}) before it listened${proc.lastLogLine ? `: ${proc.lastLogLine}` : ''}`));
      });
    });
    return { proc, spawned: { pid: proc.pid, url, token } };
  }

  /** A server an earlier window started: its log is tailed from the end. */
  static adopt(pid: number, dir: string, onLog: (line: string) => void): DetachedProcess {
    return new DetachedProcess(pid, join(dir, 'server.log'), onLog);
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  get running(): boolean {
    return !this.gone && !this.spawnError && alive(this.pid);
  }

  /** Restart or a settings change: SIGTERM to its group (it cancels turns and flushes logs), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.running) return;
    signal(this.pid, 'SIGTERM');
    const gone = this.exited.then(() => true);
    if (await Promise.race([gone, new Promise<boolean>((r) => setTimeout(() => r(false), 5000).unref())])) return;
    signal(this.pid, 'SIGKILL');
  }

  /** The window goes (or reloads): stop reading the log; the server runs on. */
  release(): void {
    this.tail.stop();
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** To its process group (the server and the commands it runs), else to it alone. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/** Reads new whole lines of server.log every 200 ms. */
class LogTail {
  onUrl: ((url: string) => void) | undefined;
  private partial = '';
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly path: string,
    private offset: number,
    private readonly onLine: (line: string) => void,
  ) {
    this.timer = setInterval(() => this.poll(), 200);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.poll();
  }

  private poll(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) this.offset = 0; // a new server's log
      if (size === this.offset) return;
      const buf = Buffer.alloc(size - this.offset);
      readSync(fd, buf, 0, buf.length, this.offset);
      this.offset = size;
      const lines = (this.partial + buf.toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        this.onLine(line);
        const url = listeningUrl(line);
        if (url) this.onUrl?.(url);
      }
    } finally {
      closeSync(fd);
    }
  }
}
