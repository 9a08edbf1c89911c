import type * as acp from '@agentclientprotocol/sdk';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerSettings } from '../config.js';

// What a window needs to find this workspace's detached server: where it listens and its token
// (so the file is 0600, in the extension's own storage folder) and what it was started with (the extension's version, the program on disk, the version it
// reported: whether it is still the server a later window would start, server-reuse.ts). What
// each window goes on with after a reload (its connection, client id, session, held writes) is in
// that window's own record (window-slot.ts).

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
      return s as ServerState;
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
