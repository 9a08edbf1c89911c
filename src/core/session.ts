import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import {
  errorText,
  FerretError,
  FileNotFoundError,
  isNotFound,
  type AgentMode,
  type ApprovalPreset,
  type Decision,
  type EventDraft,
  type EventOf,
  type FileAccess,
  type McpServerSpec,
  type SandboxMode,
  type SessionEvent,
  type SessionMeta,
  type SessionSummary,
  type TurnResult,
} from '../protocol/index.js';
import { EventLogWriter, readEventLog } from '../store/event-log.js';
import { eventsFile, sessionDir } from '../store/paths.js';
import { lockSession } from '../store/session-lock.js';
import { writeMeta } from '../store/session-meta.js';
import type { Tool } from '../tools/define.js';
import { createMcpPool, type McpPool } from '../tools/mcp-pool.js';
import { nodeFiles } from '../tools/node-files.js';
import type { ToolRegistry } from '../tools/registry.js';
import { PendingPermissions } from './approvals.js';
import { EventBus, type Listener } from './bus.js';
import { checkModel } from './model-check.js';
import { applyEvent, emptyState, type SessionState } from './session-state.js';
import type { SessionDeps, TurnHost } from './turn-host.js';
import { runTurn } from './turn.js';

interface RunningTurn {
  turnId: string;
  origin: string | undefined;
  controller: AbortController;
  done: Promise<TurnResult>;
}

/** What a client brings when it attaches: its editor's file seam and the MCP servers it asked for. */
export interface AttachOptions {
  /** Who this is; turns it starts carry it as their origin. Unique per client. */
  clientId: string;
  /** The editor's buffers; what it leaves out is served from disk. */
  files?: Partial<FileAccess>;
  mcpServers?: McpServerSpec[];
}

/** One client's attachment to a session; `detach` gives back what it brought. */
export interface ClientAttachment {
  readonly clientId: string;
  /** Settles when the client's MCP servers are connected (or failed, said in a notice). */
  readonly ready: Promise<void>;
  detach(): void;
}

interface Attached {
  files: FileAccess | undefined;
  pool: McpPool | undefined;
  tools: Tool[];
}

/**
 * An editor's file seam, completed from disk for what it leaves out. A file that is not on disk
 * is reported missing without asking the editor (a new file's write must not make it show an error).
 */
function editorSeam(files: Partial<FileAccess>): FileAccess {
  const read = files.readText;
  return {
    readText: read
      ? async (path, signal) => {
          if (!(await exists(path))) throw new FileNotFoundError(path);
          return read(path, signal);
        }
      : nodeFiles.readText,
    writeText: files.writeText ?? nodeFiles.writeText,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    return !isNotFound(err); // unreadable but present: let the editor answer
  }
}

/**
 * One live session: its state is a fold of its event log; transports send it commands
 * (startTurn, cancel, respondPermission, set*, attach) and read its events, never its fields.
 */
export class Session implements TurnHost {
  private readonly st: SessionState = emptyState();
  private readonly permissions = new PendingPermissions();
  private readonly bus: EventBus;
  /** Attached clients, oldest first: the newest with an editor seam serves turns started elsewhere. */
  private readonly attached = new Map<string, Attached>();
  /** Tools of config.json's MCP servers, loaded at the start of a turn. */
  private configTools: Tool[] = [];
  private seq = 0;
  private writer: EventLogWriter;
  private readonly releaseLock: () => void;
  private running: RunningTurn | undefined;
  private closed = false;

  constructor(
    readonly id: string,
    readonly deps: SessionDeps,
    history: SessionEvent[] = [],
    /** The server's sandbox, which a loaded session runs under whatever it was created with. */
    sandbox?: SandboxMode,
  ) {
    const lock = lockSession(sessionDir(deps.home, id));
    if ('owner' in lock) {
      throw new FerretError('session_busy', `session ${id} is open in another ferret process (pid ${lock.owner}); one process writes a session at a time`);
    }
    this.releaseLock = lock.release;
    this.writer = new EventLogWriter(eventsFile(deps.home, id), (err) => {
      deps.logger.error({ err, sessionId: id }, 'event log write failed');
      // The notice itself is queued for the log too; the writer reports a failure streak once, so this cannot loop.
      this.emit({ type: 'notice', data: { level: 'error', text: `ferret could not write the session log: ${err.message}` } });
    });
    this.bus = new EventBus(
      (after) => {
        this.writer.flush(); // lines still queued this tick must be on disk before the log is read
        return readEventLog(eventsFile(deps.home, id)).events.filter((e) => e.seq > after);
      },
      4096,
      (err) => deps.logger.warn({ err, sessionId: id }, 'event listener threw'),
    );
    for (const e of history) {
      applyEvent(this.st, e);
      this.seq = e.seq;
    }
    this.bus.seed(history.slice(-4096));
    if (sandbox) this.st.sandbox = sandbox;
  }

  /** Everything the log determines (read only: it changes by events alone). */
  get state(): Readonly<SessionState> {
    return this.st;
  }

  get status(): 'idle' | 'running' {
    return this.running ? 'running' : 'idle';
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** The running turn's id, so a client can tell its own turn from another client's. */
  get runningTurnId(): string | undefined {
    return this.running?.turnId;
  }

  /** Number, log, apply, then publish: the log is written before any client sees an event. */
  emit<E extends EventDraft>(draft: E): EventOf<E['type']> {
    const widened: EventDraft = draft;
    const event: SessionEvent = { seq: ++this.seq, sessionId: this.id, ts: Date.now(), ...widened };
    this.writer.append(event);
    applyEvent(this.st, event);
    this.bus.publish(event);
    return event as EventOf<E['type']>;
  }

  subscribe(listener: Listener, afterSeq?: number): () => void {
    return this.bus.subscribe(listener, afterSeq);
  }

  /**
   * Attaches a client: its editor seam serves its turns (and turns started elsewhere while it is
   * the newest editor attached); its MCP servers connect in the background through the one pool path.
   */
  attach(opts: AttachOptions): ClientAttachment {
    this.detach(opts.clientId); // the same client attaching again replaces what it brought
    const specs = opts.mcpServers ?? [];
    const pool = specs.length ? createMcpPool(specs, this.deps.logger, 'the client') : undefined;
    const files = opts.files && (opts.files.readText || opts.files.writeText) ? editorSeam(opts.files) : undefined;
    const entry: Attached = { files, pool, tools: [] };
    this.attached.set(opts.clientId, entry);
    const ready = pool
      ? pool.tools().then(
          ({ tools, failures }) => {
            if (this.attached.get(opts.clientId) !== entry) return;
            entry.tools = tools;
            for (const text of failures) this.emit({ type: 'notice', data: { level: 'warning', text } });
          },
          (err: unknown) => void this.emit({ type: 'notice', data: { level: 'warning', text: `MCP servers could not be connected: ${errorText(err)}` } }),
        )
      : Promise.resolve();
    return { clientId: opts.clientId, ready, detach: () => this.detach(opts.clientId, entry) };
  }

  private detach(clientId: string, only?: Attached): void {
    const entry = this.attached.get(clientId);
    if (!entry || (only && entry !== only)) return;
    this.attached.delete(clientId);
    void entry.pool?.close().catch((err: unknown) => this.deps.logger.warn({ err, clientId }, 'closing MCP servers failed'));
  }

  tools(): ToolRegistry {
    const extra = [...this.configTools];
    const taken = new Set(extra.map((t) => t.id));
    for (const a of this.attached.values()) {
      for (const t of a.tools) {
        if (taken.has(t.id)) continue;
        taken.add(t.id);
        extra.push(t);
      }
    }
    return extra.length ? this.deps.tools.with(extra) : this.deps.tools;
  }

  filesFor(origin: string | undefined): FileAccess {
    const own = origin !== undefined ? this.attached.get(origin)?.files : undefined;
    if (own) return own;
    let newest: FileAccess | undefined;
    for (const a of this.attached.values()) if (a.files) newest = a.files;
    return newest ?? nodeFiles;
  }

  async loadConfigTools(): Promise<void> {
    if (!this.deps.mcp) return;
    try {
      const { tools, failures } = await this.deps.mcp.tools();
      this.configTools = tools;
      for (const text of failures) this.emit({ type: 'notice', data: { level: 'warning', text } });
    } catch (err) {
      this.emit({ type: 'notice', data: { level: 'warning', text: `MCP servers from config.json are unavailable: ${errorText(err)}` } });
    }
  }

  /** Starts a turn and returns at once; `done` settles when it ends. `origin` names the client. */
  startTurn(text: string, origin?: string): { turnId: string; done: Promise<TurnResult> } {
    if (this.closed) throw new FerretError('session_not_found', `session ${this.id} is closed`);
    if (this.running) {
      throw new FerretError(
        'session_busy',
        `session ${this.id} is running turn ${this.running.turnId}; wait for it to end or cancel it`,
        { turnId: this.running.turnId },
      );
    }
    const turnId = `turn_${randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    const done = runTurn(this, { turnId, text, origin, signal: controller.signal }).finally(() => {
      this.running = undefined;
      this.saveMeta();
    });
    this.running = { turnId, origin, controller, done };
    return { turnId, done };
  }

  cancel(): boolean {
    if (!this.running) return false;
    this.running.controller.abort();
    return true;
  }

  /** Waits for the running turn, if any, to end. */
  async settled(): Promise<void> {
    await this.running?.done.catch(() => undefined);
  }

  /** Waits for any client's answer; with a permission timeout, nobody answering in time means deny. */
  askPermission(requestId: string, signal: AbortSignal) {
    const waiting = this.permissions.wait(requestId, signal);
    const ms = this.deps.permissionTimeoutMs;
    if (ms === undefined) return waiting;
    const timer = setTimeout(() => {
      if (!this.permissions.ids().includes(requestId)) return;
      const s = Math.round(ms / 100) / 10;
      this.emit({ type: 'notice', data: { level: 'warning', text: `nobody answered permission request ${requestId} within ${s} s, so it was denied (permission timeout)` } });
      this.permissions.respond(requestId, 'deny', 'timeout');
    }, ms);
    return waiting.finally(() => clearTimeout(timer));
  }

  respondPermission(requestId: string, decision: Decision, by: string): void {
    this.permissions.respond(requestId, decision, by);
  }

  /** Permission requests still waiting for an answer. */
  pendingPermissions(): string[] {
    return this.permissions.ids();
  }

  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    const old = this.st.approval;
    this.emit({ type: 'approval_changed', data: { old, new: preset } });
    return { old, new: preset };
  }

  setMode(mode: AgentMode): AgentMode {
    const old = this.st.mode;
    if (old !== mode) this.emit({ type: 'mode_changed', data: { old, new: mode } });
    this.saveMeta();
    return mode;
  }

  /** Refuses a model that cannot run (unknown id, bad scripted file, no key) before it is set. */
  setModel(model: string): string {
    checkModel(this.deps.resolver, model, this.st.cwd);
    const old = this.st.model;
    if (old !== model) this.emit({ type: 'model_changed', data: { old, new: model } });
    this.saveMeta();
    return model;
  }

  meta(): SessionMeta {
    const s = this.st;
    return {
      sessionId: this.id,
      cwd: s.cwd,
      ...(s.title !== undefined ? { title: s.title } : {}),
      model: s.model,
      mode: s.mode,
      createdAt: new Date(s.createdAt).toISOString(),
      updatedAt: new Date(s.updatedAt).toISOString(),
      costUsd: s.costUsd,
    };
  }

  summary(): SessionSummary {
    return { ...this.meta(), status: this.status, live: true };
  }

  saveMeta(): void {
    try {
      writeMeta(this.deps.home, this.meta());
    } catch (err) {
      this.deps.logger.error({ err, sessionId: this.id }, 'session meta write failed');
    }
  }

  close(): void {
    this.closed = true;
    this.cancel();
    for (const id of [...this.attached.keys()]) this.detach(id);
    this.writer.close();
    this.releaseLock();
  }
}
