import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CHIMERA = resolve(import.meta.dirname, '../../dist/cli/main.js');

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A temp CHIMERA_HOME and workspace, removed by cleanup(). */
export function tempEnv(): { home: string; ws: string; cleanup: () => void } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-home-')));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-ws-')));
  return { home, ws, cleanup: () => { rmSync(home, { recursive: true, force: true }); rmSync(ws, { recursive: true, force: true }); } };
}

export function writeScript(dir: string, name: string, script: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(script));
  return p;
}

/**
 * A real client on real pipes: spawns the built `chimera ferret serve`, speaks newline-delimited
 * JSON-RPC, and records every line it gets so tests can assert what a user's editor would see.
 */
export class AcpProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Json[] = [];
  readonly stdoutLines: string[] = [];
  stderr = '';
  private nextId = 1;
  private waiters: { pred: (m: Json) => boolean; resolve: (m: Json) => void; reject: (e: Error) => void }[] = [];
  readonly exited: Promise<number | null>;
  private dead = false;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [CHIMERA, 'ferret', 'serve', ...args], {
      env: { ...process.env, FERRET_LOG_LEVEL: 'warn', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.stdoutLines.push(line);
      const msg = JSON.parse(line) as Json; // anything but JSON on stdout fails the test here
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => (w.pred(msg) ? (w.resolve(msg), false) : true));
    });
    this.exited = new Promise((r) =>
      this.child.on('exit', (code) => {
        // A server that dies fails every pending wait at once, with what it said.
        this.dead = true;
        for (const w of this.waiters.splice(0)) w.reject(new Error(`chimera exited (${code}); stderr:\n${this.stderr}`));
        r(code);
      }),
    );
  }

  sendRaw(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  /** Sends a request and resolves with the whole response (result or error). */
  request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<Json> {
    const p = this.waitFor((m) => m['id'] === id && ('result' in m || 'error' in m));
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }));
    return p;
  }

  /** Like request, but fails the test unless the answer is a result. */
  async call(method: string, params?: unknown): Promise<Json> {
    const r = await this.request(method, params);
    if (r['error']) throw new Error(`${method} failed: ${JSON.stringify(r['error'])}`);
    return r['result'] as Json;
  }

  waitFor(pred: (m: Json) => boolean, timeoutMs = 10_000): Promise<Json> {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    if (this.dead) return Promise.reject(new Error(`chimera has exited; stderr:\n${this.stderr}`));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting; stderr:\n${this.stderr}`)), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (m) => { clearTimeout(t); resolve(m); },
        reject: (e) => { clearTimeout(t); reject(e); },
      });
    });
  }

  updates(sessionId?: string): Json[] {
    return this.messages
      .filter((m) => m['method'] === 'session/update' && (!sessionId || m['params']?.sessionId === sessionId))
      .map((m) => m['params'] as Json);
  }

  kinds(sessionId?: string): string[] {
    return this.updates(sessionId).map((u) => u['kind'] as string);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}
