import type * as acp from '@agentclientprotocol/sdk';
import { connect, initialize, type ClientHandlers } from '../acp/connection.js';
import { ServerProcess, type Exit } from '../acp/server-process.js';
import type { ServerSettings } from '../server-settings.js';
import { ferretMeta, type FerretAgentMeta } from '../model/ferret-meta.js';

export interface ServerEvents {
  onLog: (line: string) => void;
  onHttpUrl: (url: string) => void;
  /** The process ended without stop() being asked (a crash, or killed from outside). */
  onUnexpectedExit: (exit: Exit, lastLogLine: string | undefined) => void;
}

/** The server's process as a window sees it: its stdio child, or a detached one (detached-server.ts). */
export interface ServerHost {
  readonly running: boolean;
  readonly exited: Promise<Exit>;
  readonly isStopping: boolean;
  readonly lastLogLine: string | undefined;
  readonly spawnError: NodeJS.ErrnoException | undefined;
  stop(): Promise<void>;
}

/** One running server and its ACP connection, initialized. One per window, shared by its sessions. */
export class ChimeraServer {
  constructor(
    readonly process: ServerHost,
    private readonly connection: acp.ClientConnection,
    readonly init: acp.InitializeResponse,
    /** What it was started with (a later difference means the settings changed). */
    readonly settings: ServerSettings,
    /** A detached server: the window lets it run on when it closes or reloads (release). */
    readonly detached?: { release(): void },
  ) {}

  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  get alive(): boolean {
    return this.process.running && !this.connection.signal.aborted;
  }

  /** ferret's extras (version, sandbox, extension methods); undefined for another agent. */
  get ferret(): FerretAgentMeta | undefined {
    return ferretMeta<FerretAgentMeta>(this.init.agentCapabilities?._meta);
  }

  /** Spawns, connects and initializes; rejects with the spawn error or the handshake failure. */
  static async start(s: ServerSettings, cwd: string, version: string, handlers: ClientHandlers, events: ServerEvents): Promise<ChimeraServer> {
    const proc = new ServerProcess({ ...s, cwd, onLog: events.onLog, onHttpUrl: events.onHttpUrl });
    const conn = connect(proc, handlers);
    let ready = false; // before that, a failed start is reported by the rejection below
    const exited = proc.exited.then((exit) => {
      conn.close();
      if (ready && !proc.isStopping) events.onUnexpectedExit(exit, proc.lastLogLine);
      return exit;
    });
    // Whichever comes first: the answer, the process dying, or a deadline.
    let timer: NodeJS.Timeout | undefined;
    const died = exited.then((exit): never => {
      if (proc.spawnError) throw proc.spawnError;
      throw new Error(`the server exited (${exit.signal ?? `code ${exit.code}`}) before answering initialize${proc.lastLogLine ? `: ${proc.lastLogLine}` : ''}`);
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the server did not answer initialize within 20 s')), 20_000);
    });
    died.catch(() => undefined);
    late.catch(() => undefined);
    try {
      const init = await Promise.race([initialize(conn.agent, version), died, late]);
      ready = true;
      return new ChimeraServer(proc, conn, init, s);
    } catch (err) {
      // A program that is not there closes the pipes before its 'error' arrives: the SDK then
      // says only "connection closed". Wait a moment for the real cause and report that instead.
      await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 1000).unref())]);
      await proc.stop();
      throw proc.spawnError ?? err;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    const stopping = this.process.stop();
    this.connection.close();
    this.detached?.release();
    await stopping;
  }

  /** The window closes or reloads: a detached server runs on (its turn too); a child is stopped. */
  async leave(): Promise<void> {
    if (!this.detached) return this.stop();
    this.detached.release();
    this.connection.close();
  }
}
