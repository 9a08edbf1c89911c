import type * as acp from '@agentclientprotocol/sdk';
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServerSettings } from '../server-settings.js';

// What a window needs to find this workspace's detached server: where it listens and its token
// (so the file is 0600, under CHIMERA_HOME: every ferret process on that home hides its state from
// the agent's commands and file tools, wherever an editor keeps its own storage; see
// serverStateDir) and what it was started with (the
// extension's version, the program on disk, the version it reported: whether it is still the
// server a later window would start, server-reuse.ts). The settings are kept as a hash only:
// chimera.env may hold API keys, and one copy of them (settings.json) is enough. What each window
// goes on with after a reload (its connection, client id, session, held writes) is in that
// window's own record (window-slot.ts).

export interface HeldWrite {
  /** The ACP-over-HTTP connection the request came on (answered there). */
  connection: string;
  id: string | number;
  params: acp.WriteTextFileRequest;
}

export interface ServerState {
  pid: number;
  url: string;
  token: string;
  cwd: string;
  /** settingsHash of the settings it was started with. */
  settings: string;
  /** The extension version that started it. */
  extension?: string;
  /** The program it was started from, as files on disk (server-check.ts programPrint). */
  program?: string;
  /** The version it reported when it started (its initialize answer's agentInfo). */
  version?: string;
}

export class ServerStateFile {
  private readonly file: string;

  constructor(readonly dir: string) {
    this.file = join(dir, 'server.json');
  }

  /** The recorded server, if the file is sound: this user's, private, naming a loopback url (else nothing is reused or signalled). */
  load(log: (line: string) => void = () => undefined): ServerState | undefined {
    let text: string;
    try {
      text = readPrivate(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`ignoring ${this.file}: ${(err as Error).message}`);
      return undefined;
    }
    try {
      const s = JSON.parse(text) as Omit<Partial<ServerState>, 'settings'> & { settings?: unknown };
      if (typeof s.pid !== 'number' || typeof s.url !== 'string' || typeof s.token !== 'string' || typeof s.cwd !== 'string') return undefined;
      if (!isLoopbackUrl(s.url)) {
        log(`ignoring ${this.file}: its url ${s.url} is not http://127.0.0.1 or http://[::1]`);
        return undefined;
      }
      // A file from before the hash kept the settings themselves.
      const settings = typeof s.settings === 'string' ? s.settings : s.settings && typeof s.settings === 'object' ? settingsHash(s.settings as ServerSettings) : undefined;
      return settings === undefined ? undefined : ({ ...s, settings } as ServerState);
    } catch {
      return undefined;
    }
  }

  /** Written whole, at once (a reload may come any moment), readable by this user only. */
  save(s: ServerState): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(s), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

/** How server.json records the settings a server started with (compared, never read back). */
export function settingsHash(s: ServerSettings): string {
  return createHash('sha256').update(JSON.stringify([s.command, s.args, Object.entries(s.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])).digest('hex');
}

/** Only the server this extension starts: http on the loopback address, a port, nothing else. */
export function isLoopbackUrl(url: string): boolean {
  return /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/.test(url);
}

/**
 * The file's text, if this user owns it and nobody else may read or write it (another user's
 * file, or a loose one, could point a window at a server that is not its own). Checked on the
 * open file, so a swap between the check and the read is not possible. Windows: no such modes.
 */
function readPrivate(file: string): string {
  // O_NONBLOCK: a FIFO in its place would otherwise hold the window until someone writes to it.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (process.platform !== 'win32') {
      const st = fstatSync(fd);
      const uid = process.getuid?.();
      if (uid !== undefined && st.uid !== uid) throw new Error(`it belongs to uid ${st.uid}, not this user (${uid})`);
      if ((st.mode & 0o077) !== 0) throw new Error(`others may read or write it (mode ${(st.mode & 0o777).toString(8)})`);
      if (!st.isFile()) throw new Error('it is not a regular file');
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The folder of a workspace's detached server file: CHIMERA_HOME/ferret/vscode/<workspace hash>,
 * the same for every window on the folder. Not the editor's storage folder: an editor's data can
 * live anywhere (a portable build, Flatpak, a fork, --user-data-dir), and a token there could
 * reach the model through a command that reads it; ferret's own state never can.
 */
export function serverStateDir(settings: ServerSettings, cwd: string, env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const root = settings.env['CHIMERA_HOME'] || env['CHIMERA_HOME'] || join(home, '.chimera');
  return join(resolve(root), 'ferret', 'vscode', createHash('sha256').update(resolve(cwd)).digest('hex').slice(0, 24));
}
