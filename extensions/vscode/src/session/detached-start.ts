import { randomUUID } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import { connectStream, initialize, type ClientHandlers } from '../acp/connection.js';
import { DetachedProcess } from '../acp/detached-server.js';
import { pathStream, postMessage } from '../acp/path-stream.js';
import type { ServerSettings } from '../server-settings.js';
import { ferretMeta, type FerretAgentMeta } from '../model/ferret-meta.js';
import { ChimeraServer, type ServerEvents } from './server.js';
import { programPrint } from './server-check.js';
import { chooseServer } from './server-reuse.js';
import { settingsHash, type HeldWrite, type ServerState, type ServerStateFile } from './server-state.js';
import type { DetachedPart, WindowSlot } from './window-slot.js';

// The window's detached server: found running (a reloaded window, same folder and settings, the
// same program: server-reuse.ts) or started, then reached over ACP on loopback HTTP with a
// connection of this window's own. A reloaded window (one that took over a gone window's record,
// window-slot.ts) continues that window's client id, so a turn it started goes on here; a second
// window beside a live one gets a client id of its own and never touches the first one's connection.

type Obj = Record<string, unknown>;

/** What a reloaded window takes over from the window it continues. */
export interface Inherited {
  /** Writes the server waits on, held by earlier connections: answered by id there. */
  held: HeldWrite[];
  /** The previous window's connection, let go once nothing is held on it. */
  previous?: string;
}

export class DetachedServer {
  private constructor(
    readonly server: ChimeraServer,
    private readonly slot: WindowSlot,
    private readonly state: ServerState,
    private readonly mine: DetachedPart,
    readonly inherited: Inherited,
  ) {}

  static async open(s: ServerSettings, cwd: string, version: string, handlers: ClientHandlers, events: ServerEvents, file: ServerStateFile, slot: WindowSlot): Promise<DetachedServer> {
    const program = programPrint(s, cwd);
    const recorded = file.load(events.onLog);
    const choice = await chooseServer(recorded, { cwd, settings: s, extension: version, program }, { usedBy: (pid, url) => slot.othersOn(pid, url) });
    const reuse = choice.kind === 'reuse';
    let proc: DetachedProcess;
    let state: ServerState;
    if (choice.kind === 'reuse' && recorded) {
      if (choice.outdated) events.onLog(`reattaching to the running server although ${choice.outdated}: ${choice.kept ?? 'it is in use'}; a window opened once it is idle and no other window uses it starts the new one`);
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
      state = { ...started.spawned, cwd, settings: settingsHash(s), extension: version, ...(program !== undefined ? { program } : {}) };
      file.save(state);
    }
    const st = state;
    // This window connecting again to the same server (its connection dropped): it stays the same client.
    const own = slot.record.detached;
    const again = reuse && own?.serverPid === st.pid && own.serverUrl === st.url ? own : undefined;
    // Else only the window this one continues (window-slot.ts) hands over its connection and writes.
    const prev = reuse && !again ? slot.inheritedDetached(st.pid, st.url) : undefined;
    const inherited: Inherited = { held: prev ? [...prev.held] : [], ...(prev ? { previous: prev.connection } : {}) };
    const name = `vscode-${randomUUID()}`;
    const mine: DetachedPart = { serverPid: st.pid, serverUrl: st.url, connection: name, held: [...inherited.held] };
    const save = () => slot.setDetached(mine);
    const stream = pathStream({
      base: st.url,
      token: st.token,
      name,
      log: events.onLog,
      // A write the server waits on is written down at once: a reload may come before it is answered.
      onIncoming: (m) => {
        if (m['method'] === 'fs/write_text_file' && (typeof m['id'] === 'string' || typeof m['id'] === 'number')) {
          mine.held.push({ connection: name, id: m['id'], params: m['params'] as acp.WriteTextFileRequest });
          save();
        } else if (m['method'] === '$/cancel_request') {
          const id = (m['params'] as Obj | undefined)?.['requestId'];
          if (dropHeld(mine, name, id)) save();
        }
      },
      onOutgoing: (m) => {
        if (!('method' in m) && dropHeld(mine, name, m['id'])) save();
      },
    });
    const conn = connectStream(stream.stream, handlers);
    let init: acp.InitializeResponse;
    try {
      init = await initialize(conn.agent, version, (again ?? prev)?.clientId);
    } catch (err) {
      stream.close();
      throw err;
    }
    const clientId = ferretMeta<FerretAgentMeta>(init.agentCapabilities?._meta)?.clientId;
    if (clientId) mine.clientId = clientId;
    if (!reuse && init.agentInfo?.version) {
      st.version = init.agentInfo.version;
      file.save(st);
    }
    save();
    events.onHttpUrl(st.url);
    const server = new ChimeraServer(proc, conn, init, s, {
      release: () => {
        stream.close();
        proc.release();
      },
    });
    void stream.ended.then(() => conn.close());
    void proc.exited.then((exit) => {
      conn.close();
      if (!proc.isStopping) events.onUnexpectedExit(exit, proc.lastLogLine);
    });
    return new DetachedServer(server, slot, st, mine, inherited);
  }

  /** Answers a write held by an earlier connection, by its id there; lets that connection go once nothing is held on it. */
  async answer(h: HeldWrite, message: { result: unknown } | { error: unknown }): Promise<void> {
    await postMessage(this.state.url, this.state.token, h.connection, { jsonrpc: '2.0', id: h.id, ...message }).catch(() => undefined);
    if (dropHeld(this.mine, h.connection, h.id)) this.slot.setDetached(this.mine);
    await this.letGo(h.connection);
  }

  /** Ends the connection of the window this one continues (its turn runs on) once no write is held on it. */
  async letGo(connection: string | undefined): Promise<void> {
    if (!connection || connection === this.mine.connection || this.mine.held.some((h) => h.connection === connection)) return;
    await fetch(`${this.state.url}/acp/${encodeURIComponent(connection)}`, { method: 'DELETE', headers: { authorization: `Bearer ${this.state.token}` } }).catch(() => undefined);
  }
}

function dropHeld(st: { held: HeldWrite[] }, connection: string, id: unknown): boolean {
  const i = st.held.findIndex((h) => h.connection === connection && h.id === id);
  if (i < 0) return false;
  st.held.splice(i, 1);
  return true;
}
