import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CODE_SERVER, NODE24 } from './e2e-tools.js';

/** A free loopback port (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * VS Code in the browser: code-server on Node 24 with its own user-data, extensions and config
 * folders under `dir`, so nothing of the machine's user is read or written.
 */
export class CodeServer {
  private child: ChildProcess | undefined;
  log = '';
  readonly userData: string;
  readonly extensions: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly base: string[];

  constructor(readonly dir: string) {
    this.userData = join(dir, 'user-data');
    this.extensions = join(dir, 'extensions');
    const xdg = join(dir, 'xdg');
    for (const d of [join(this.userData, 'User'), this.extensions, xdg]) mkdirSync(d, { recursive: true });
    this.env = { ...process.env, XDG_CONFIG_HOME: xdg, XDG_DATA_HOME: xdg };
    this.base = [CODE_SERVER, '--config', join(xdg, 'config.yaml'), '--user-data-dir', this.userData, '--extensions-dir', this.extensions];
  }

  /** User settings (settings.json), as a person would have written them. */
  settings(values: Record<string, unknown>): void {
    writeFileSync(join(this.userData, 'User', 'settings.json'), JSON.stringify(values, null, 2));
  }

  /** `code-server --install-extension FILE.vsix`; returns what it printed. */
  async install(vsix: string): Promise<string> {
    const { stdout, stderr } = await promisify(execFile)(NODE24, [...this.base, '--install-extension', vsix], { env: this.env });
    return stdout + stderr;
  }

  /** Starts serving `folder`; resolves with the workbench URL once the HTTP server listens. */
  async start(folder: string): Promise<string> {
    const port = await freePort();
    const args = [...this.base, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', folder];
    // Its own process group: code-server's extension host (and the chimera it starts) go with it.
    this.child = spawn(NODE24, args, { env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const child = this.child;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.log += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.log += d));
    const deadline = Date.now() + 30_000;
    while (!this.log.includes('HTTP server listening')) {
      if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${this.log}`);
      if (Date.now() > deadline) throw new Error(`code-server did not start within 30 s:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  }

  /** SIGTERM to the whole group (code-server, its extension host, the chimera server), SIGKILL to stragglers. */
  async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (!pid) return;
    const signal = (s: NodeJS.Signals | 0): boolean => {
      try {
        process.kill(-pid, s);
        return true;
      } catch {
        return false; // the group is empty
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + 5000;
    while (signal(0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    signal('SIGKILL');
  }
}
