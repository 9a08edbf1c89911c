import type * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerSettings } from '../config.js';

// What a reloaded window needs to find this workspace's detached server and go on where the last
// window stopped: where it listens and its token (so the file is 0600, in the extension's own
// storage folder), the connection and client id to continue, the session shown, and each write the
// server still waits on a person's Accept/Reject for (answered by its request id after a reload).
// What started it (the extension's version, the program on disk, the version it reported) tells a
// later window whether it is still the server that window would start (server-reuse.ts).

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
  settings: ServerSettings;
  /** The extension version that started it. */
  extension?: string;
  /** The program it was started from, as files on disk (server-check.ts programPrint). */
  program?: string;
  /** The version it reported when it started (its initialize answer's agentInfo). */
  version?: string;
  /** The client id ferret gave the first connection (each later one continues it). */
  clientId?: string;
  /** The connection of the window that wrote this last. */
  connection?: string;
  sessionId?: string;
  held: HeldWrite[];
}

export class ServerStateFile {
  private readonly file: string;

  constructor(readonly dir: string) {
    this.file = join(dir, 'server.json');
  }

  load(): ServerState | undefined {
    try {
      const s = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<ServerState>;
      if (typeof s.pid !== 'number' || typeof s.url !== 'string' || typeof s.token !== 'string' || typeof s.cwd !== 'string' || !s.settings) return undefined;
      return { ...(s as ServerState), held: Array.isArray(s.held) ? s.held : [] };
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
