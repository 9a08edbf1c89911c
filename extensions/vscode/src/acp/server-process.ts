import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { listeningUrl, readableLogLine } from '../model/server-log.js';

export interface ServerOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Every stderr line (ferret's logs). */
  onLog: (line: string) => void;
  /** The HTTP+SSE address, when the server was started with --http. */
  onHttpUrl: (url: string) => void;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The `chimera ferret serve` child: stdin/stdout carry ACP, stderr its logs. It runs in the
 * workspace folder and ends with the window (stdin closed; SIGTERM after, because with --http
 * the server outlives its stdin by design).
 */
export class ServerProcess {
  readonly child: ChildProcess;
  /** Settles when the process is gone (or never started: then `spawnError` says why). */
  readonly exited: Promise<Exit>;
  spawnError: NodeJS.ErrnoException | undefined;
  lastLogLine: string | undefined;
  private stopping = false;

  constructor(readonly opts: ServerOptions) {
    this.child = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Windows resolves `chimera` to chimera.cmd only through a shell.
      shell: process.platform === 'win32',
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        this.spawnError = err;
        resolve({ code: null, signal: null });
      });
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    const lines = createInterface({ input: this.child.stderr! });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      this.lastLogLine = readableLogLine(line);
      opts.onLog(line);
      const url = listeningUrl(line);
      if (url) opts.onHttpUrl(url);
    });
    // A dead child must not crash the extension host with EPIPE.
    this.child.stdin!.on('error', () => undefined);
    // Last resort when the extension host itself goes away without deactivating us.
    const killOnExit = () => this.child.kill('SIGTERM');
    process.once('exit', killOnExit);
    void this.exited.then(() => process.removeListener('exit', killOnExit));
  }

  /** True once stop() was asked: an exit after that is expected, not a crash. */
  get isStopping(): boolean {
    return this.stopping;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && !this.spawnError;
  }

  /**
   * Closes stdin (that ends a stdio-only server), then SIGTERM, then SIGKILL, each after a grace
   * period. A server with --http keeps serving after stdin closes, so it gets SIGTERM at once
   * (ferret then cancels running turns and flushes its logs).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.running) return;
    this.child.stdin!.end();
    const graceMs = this.opts.args.includes('--http') ? 0 : 1500;
    const gone = this.exited.then(() => true);
    const wait = (ms: number) => new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref());
    if (await Promise.race([gone, wait(graceMs)])) return;
    this.child.kill('SIGTERM');
    if (await Promise.race([gone, wait(5000)])) return;
    this.child.kill('SIGKILL');
  }
}
