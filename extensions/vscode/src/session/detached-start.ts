import { randomUUID } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import { connectStream, initialize, type ClientHandlers } from '../acp/connection.js';
import { DetachedProcess } from '../acp/detached-server.js';
import { pathStream, postMessage } from '../acp/path-stream.js';
import type { ServerSettings } from '../config.js';
import { ferretMeta, type FerretAgentMeta } from '../model/ferret-meta.js';
import { ChimeraServer, type ServerEvents } from './server.js';
import { programPrint } from './server-check.js';
import { chooseServer } from './server-reuse.js';
import type { HeldWrite, ServerState, ServerStateFile } from './server-state.js';

// The window's detached server: found running (a reloaded window, same folder and settings, the
// same program: server-reuse.ts) or started, then reached over ACP on loopback HTTP with a connection of this window's own that
// continues the last window's client id, so a turn that window started goes on here.

type Obj = Record<string, unknown>;

/** What a reloaded window takes over from the last one. */
export interface Inherited {
  /** The session the last window showed. */
  sessionId?: string;
  /** Writes the server waits on, held by earlier connections: answered by id there. */
  held: HeldWrite[];
  /** The last window's connection, let go once nothing is held on it. */
  previous?: string;
}

export class DetachedServer {
  private constructor(
    readonly server: ChimeraServer,
    private readonly file: ServerStateFile,
    private readonly state: ServerState,
    readonly inherited: Inherited,
  ) {}

  static async open(s: ServerSettings, cwd: string, version: string, handlers: ClientHandlers, events: ServerEvents, file: ServerStateFile): Promise<DetachedServer> {
    const program = programPrint(s, cwd);
    const recorded = file.load();
    const choice = await chooseServer(recorded, { cwd, settings: s, extension: version, program });
    const reuse = choice.kind === 'reuse';
    let proc: DetachedProcess;
    let state: ServerState;
    if (choice.kind === 'reuse' && recorded) {
      if (choice.outdated) events.onLog(`reattaching to the running server although ${choice.outdated}: a turn runs on it; a window opened after it ends starts the new one`);
      proc = DetachedProcess.adopt(recorded.pid, file.dir, events.onLog);
      state = recorded;
    } else {
      if (choice.kind !== 'reuse' && choice.why) events.onLog(`starting a new server: ${choice.why}`);
      if (choice.kind === 'replace' && recorded) {
        // Ours (pid and token just checked) and no turn runs on it: stopped as Restart Server stops one.
        events.onLog(`stopping the last server (pid ${recorded.pid}) first`);
        await DetachedProcess.adopt(recorded.pid, file.dir, () => undefined).stop();
      }
      const started = await DetachedProcess.start({ ...s, cwd, dir: file.dir, onLog: events.onLog });
      proc = started.proc;
      state = { ...started.spawned, cwd, settings: s, extension: version, ...(program !== undefined ? { program } : {}), held: [] };
    }
    const st = state;
    const inherited: Inherited = { ...(reuse && st.sessionId ? { sessionId: st.sessionId } : {}), held: reuse ? [...st.held] : [], ...(reuse && st.connection ? { previous: st.connection } : {}) };
    const name = `vscode-${randomUUID()}`;
    let save = () => file.save(st);
    const stream = pathStream({
      base: st.url,
      token: st.token,
      name,
      log: events.onLog,
      // A write the server waits on is written down at once: a reload may come before it is answered.
      onIncoming: (m) => {
        if (m['method'] === 'fs/write_text_file' && (typeof m['id'] === 'string' || typeof m['id'] === 'number')) {
          st.held.push({ connection: name, id: m['id'], params: m['params'] as acp.WriteTextFileRequest });
          save();
        } else if (m['method'] === '$/cancel_request') {
          const id = (m['params'] as Obj | undefined)?.['requestId'];
          if (dropHeld(st, name, id)) save();
        }
      },
      onOutgoing: (m) => {
        if (!('method' in m) && dropHeld(st, name, m['id'])) save();
      },
    });
    const conn = connectStream(stream.stream, handlers);
    let init: acp.InitializeResponse;
    try {
      init = await initialize(conn.agent, version, reuse ? st.clientId : undefined);
    } catch (err) {
      stream.close();
      throw err;
    }
    const clientId = ferretMeta<FerretAgentMeta>(init.agentCapabilities?._meta)?.clientId;
    if (clientId) st.clientId = clientId;
    if (!reuse && init.agentInfo?.version) st.version = init.agentInfo.version;
    st.connection = name;
    save();
    events.onHttpUrl(st.url);
    const server = new ChimeraServer(proc, conn, init, s, {
      release: () => {
        save = () => undefined; // what the next window reads stays as it was
        stream.close();
        proc.release();
      },
    });
    void stream.ended.then(() => conn.close());
    void proc.exited.then((exit) => {
      conn.close();
      if (!proc.isStopping) events.onUnexpectedExit(exit, proc.lastLogLine);
    });
    return new DetachedServer(server, file, st, inherited);
  }

  /** The window shows this session: a reloaded window shows it again. */
  remember(sessionId: string): void {
    this.state.sessionId = sessionId;
    this.file.save(this.state);
  }

  /** Answers a write held by an earlier connection, by its id there; lets that connection go once nothing is held on it. */
  async answer(h: HeldWrite, message: { result: unknown } | { error: unknown }): Promise<void> {
    await postMessage(this.state.url, this.state.token, h.connection, { jsonrpc: '2.0', id: h.id, ...message }).catch(() => undefined);
    dropHeld(this.state, h.connection, h.id);
    this.file.save(this.state);
    await this.letGo(h.connection);
  }

  /** Ends an earlier connection of this window (its turn runs on) once no write is held on it. */
  async letGo(connection: string | undefined): Promise<void> {
    if (!connection || connection === this.state.connection || this.state.held.some((h) => h.connection === connection)) return;
    await fetch(`${this.state.url}/acp/${encodeURIComponent(connection)}`, { method: 'DELETE', headers: { authorization: `Bearer ${this.state.token}` } }).catch(() => undefined);
  }
}

function dropHeld(st: ServerState, connection: string, id: unknown): boolean {
  const i = st.held.findIndex((h) => h.connection === connection && h.id === id);
  if (i < 0) return false;
  st.held.splice(i, 1);
  return true;
}
