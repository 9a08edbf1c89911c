import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { EventLogWriter, readEventLog } from '../store/event-log.js';
import { eventsFile, sessionDir } from '../store/paths.js';
import { lockSession } from '../store/session-lock.js';
import { writeMeta, type SessionMeta, type SessionSummary } from '../store/session-meta.js';
import type { FileAccess, Tool } from '../tools/define.js';
import { nodeFiles } from '../tools/node-files.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { McpPool } from '../tools/mcp-pool.js';
import type { AuditLog } from '../store/audit-log.js';
import type { RuleSet } from '../sandbox/rules.js';
import type { ModelResolver } from '../providers/resolve.js';
import { PendingPermissions } from './approvals.js';
import { EventBus, type Listener } from './bus.js';
import { FerretError } from './errors.js';
import type { EventDraft, EventOf, SessionEvent } from './events.js';
import { applyEvent, emptyState, type SessionState } from './session-state.js';
import type { AgentMode, ApprovalPreset, Decision, StopReason } from './types.js';
import { runTurn } from './turn.js';

/** What every session shares: the server's wiring, built once by the composition root. */
export interface SessionDeps {
  home: string;
  resolver: ModelResolver;
  tools: ToolRegistry;
  rules: RuleSet;
  audit: AuditLog;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  maxSteps: number;
  /** MCP servers from config.json, shared by all sessions; connected on first use. */
  mcp?: McpPool;
}

export interface TurnResult {
  turnId: string;
  stopReason: StopReason;
  message: { role: 'assistant'; text: string };
}

interface RunningTurn {
  turnId: string;
  controller: AbortController;
  done: Promise<TurnResult>;
}

export class Session {
  readonly state: SessionState = emptyState();
  readonly permissions = new PendingPermissions();
  readonly bus: EventBus;
  /** File access for tools; an ACP v1 client with fs capabilities swaps in its editor buffers. */
  files: FileAccess = nodeFiles;
  /** Tools contributed by MCP servers attached to this session (ACP v1 mcpServers). */
  extraTools: Tool[] = [];
  /** Tools of config.json's MCP servers, filled in at the start of a turn. */
  configTools: Tool[] = [];
  private seq = 0;
  private writer: EventLogWriter;
  private readonly releaseLock: () => void;
  private running: RunningTurn | undefined;
  private closed = false;

  constructor(
    readonly id: string,
    readonly deps: SessionDeps,
    history: SessionEvent[] = [],
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
      applyEvent(this.state, e);
      this.seq = e.seq;
    }
    this.bus.seed(history.slice(-4096));
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
    applyEvent(this.state, event);
    this.bus.publish(event);
    return event as EventOf<E['type']>;
  }

  subscribe(listener: Listener, afterSeq?: number): () => void {
    return this.bus.subscribe(listener, afterSeq);
  }

  /** Starts a turn and returns at once; `done` settles when it ends. */
  startTurn(text: string): { turnId: string; done: Promise<TurnResult> } {
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
    const done = runTurn(this, turnId, text, controller.signal).finally(() => {
      this.running = undefined;
      this.saveMeta();
    });
    this.running = { turnId, controller, done };
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

  respondPermission(requestId: string, decision: Decision, by: string): void {
    this.permissions.respond(requestId, decision, by);
  }

  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    const old = this.state.approval;
    this.emit({ type: 'approval_changed', data: { old, new: preset } });
    return { old, new: preset };
  }

  setMode(mode: AgentMode): AgentMode {
    const old = this.state.mode;
    if (old !== mode) this.emit({ type: 'mode_changed', data: { old, new: mode } });
    this.saveMeta();
    return mode;
  }

  setModel(model: string): string {
    if (model.startsWith('scripted:')) this.deps.resolver.resolve(model, this.state.cwd); // reject a bad file now
    const old = this.state.model;
    if (old !== model) this.emit({ type: 'model_changed', data: { old, new: model } });
    this.saveMeta();
    return model;
  }

  meta(): SessionMeta {
    const s = this.state;
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
    this.writer.close();
    this.releaseLock();
  }
}
