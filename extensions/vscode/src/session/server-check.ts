import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ServerSettings } from '../server-settings.js';
import { listensOn } from './pid-port.js';
import { isLoopbackUrl } from './server-state.js';

// Before a window trusts the server server.json names: is it still ours, and is it the program
// this window would start? A port another process took, or a pid the system gave to someone else,
// must never be reattached to or signalled; a server from before an upgrade is replaced unless it
// still runs a turn to hand back.

/** What an authenticated look at a recorded server found. */
export interface Found {
  /** The version it reports (GET /health, after the token was checked). */
  version: string | undefined;
  /** A session it holds runs a turn (that turn may wait on a person: it is handed back, never killed). */
  running: boolean;
}

/**
 * The server server.json records, if it is ours: a loopback url, its pid a `ferret serve` process
 * listening on that url's port (pid-port.ts), the port refusing a wrong token and accepting ours
 * (only the server we started has that token).
 */
export async function findServer(pid: number, url: string, token: string): Promise<Found | undefined> {
  if (!isLoopbackUrl(url) || !(await isFerretServe(pid))) return undefined;
  if (!(await listensOn(pid, Number(new URL(url).port)))) return undefined;
  try {
    const [ours, stranger] = await Promise.all([get(url, '/session', token), get(url, '/session', 'not-the-token')]);
    if (ours.status !== 200 || stranger.status !== 401) return undefined;
    const sessions = (ours.body as { sessions?: unknown } | undefined)?.sessions;
    if (!Array.isArray(sessions)) return undefined;
    const running = sessions.some((s: { live?: unknown; status?: unknown }) => s.live === true && s.status === 'running');
    const health = await get(url, '/health', token);
    const version = (health.body as { version?: unknown } | undefined)?.version;
    return { version: typeof version === 'string' ? version : undefined, running };
  } catch {
    return undefined;
  }
}

async function get(url: string, path: string, token: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(3000) });
  const body: unknown = r.headers.get('content-type')?.includes('json') ? await r.json() : await r.text();
  return { status: r.status, body };
}

/** Whether `pid` runs `… ferret serve …` (Linux: /proc; macOS and the BSDs: ps; Windows: not checked, the token is). */
export async function isFerretServe(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (process.platform === 'win32') return true;
  const words = await commandLine(pid);
  return words !== undefined && words.includes('ferret') && words.includes('serve') && words.includes('--idle-exit');
}

async function commandLine(pid: number): Promise<string[] | undefined> {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    // no /proc (macOS): ps prints it as one line, split at spaces (ours has no quoted words that matter)
  }
  return new Promise((done) => {
    execFile('ps', ['-p', String(pid), '-o', 'command='], { timeout: 3000 }, (err, out) => done(err || !out.trim() ? undefined : out.trim().split(/\s+/)));
  });
}

/**
 * Which program these settings start, as files on disk: the command found on PATH and any argument
 * that is a file (`node /path/main.js`), each by real path, size and time. An upgrade or rebuild
 * changes it; undefined when the command cannot be found (a shell alias: then `--version` decides).
 */
export function programPrint(s: ServerSettings, cwd: string): string | undefined {
  const cmd = which(s.command, cwd, s.env['PATH'] ?? process.env['PATH'] ?? '');
  if (!cmd) return undefined;
  const files = [cmd, ...s.args.filter((a) => isAbsolute(a))];
  const parts: string[] = [];
  for (const f of files) {
    try {
      const real = realpathSync(f);
      const st = statSync(real);
      if (st.isFile()) parts.push(`${real}:${st.size}:${Math.round(st.mtimeMs)}`);
    } catch {
      // an argument that only looks like a path
    }
  }
  return parts.join('|');
}

function which(command: string, cwd: string, path: string): string | undefined {
  if (command.includes('/') || command.includes('\\')) return isFile(resolve(cwd, command)) ? resolve(cwd, command) : undefined;
  const exts = process.platform === 'win32' ? ['', '.cmd', '.exe', '.bat'] : [''];
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) if (isFile(join(dir, command + ext))) return join(dir, command + ext);
  }
  return undefined;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The version these settings would start: `command <args before serve> --version`; undefined when it does not say. */
export function versionToStart(s: ServerSettings, cwd: string): Promise<string | undefined> {
  const at = s.args.indexOf('serve');
  if (at < 0) return Promise.resolve(undefined);
  return new Promise((done) => {
    execFile(s.command, [...s.args.slice(0, at), '--version'], { cwd, env: { ...process.env, ...s.env }, timeout: 10_000, shell: process.platform === 'win32' }, (err, out) => {
      const v = /^\s*v?(\d+\.\d+\.\d+\S*)\s*$/m.exec(out ?? '')?.[1];
      done(err ? undefined : v);
    });
  });
}
