import { checkImages, errorText, FerretError, SessionTitleSchema, type AgentMode, type ReasoningEffort, type ApprovalPreset, type Decision, type EventDraft, type EventOf, type FileAccess, type SessionEvent, type TurnResult } from '../../protocol/index.js';
import type { LogMark, SessionLog } from '../../store/session-store.js';
import type { Tool, ToolOutcome } from '../../tools/define.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { QueuedTurnOptions, StartedTurn, TurnOptions } from '../api.js';
import { PendingPermissions } from '../approvals.js';
import { interruptedTurnEvents } from '../interrupted-turn.js';
import { checkModel } from '../model-check.js';
import { applyEvent } from '../session-state.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { LoadedSession } from '../sessions/session-load.js';
import type { PromptMemo } from '../prompt/system-prompt.js';
import type { SessionDeps, TurnHost } from '../turn-host.js';
import { runTurn } from '../turn.js';
import { SessionReadLedger } from '../tool-call/read-ledger.js';
import { ProcessTable } from '../../tools/processes/process-table.js';
import { Persistence } from './persistence.js';
import { freshLoad, SessionBase, SessionBody } from './session-body.js';
import { TurnQueue } from './turn-queue.js';
import { scanAgents, type AgentDefinition } from '../subagent/agents.js';
import { runSubagent, type SubagentRun } from '../subagent/run-subagent.js';
import { taskTool } from '../../tools/task.js';

interface RunningTurn {
  turnId: string;
  origin: string | undefined;
  controller: AbortController;
  done: Promise<TurnResult>;
}

/** How long a turn's answer waits for its events to be written (a store that is away answers anyway, and writes them later). */
const DRAIN_WAIT_MS = 2000;

/**
 * A session this server writes: commands become events (number → fold → log → bus) and turns
 * run here. Its state is a fold of its event log; transports send it commands and read its
 * events, never its fields.
 */
export class LocalSession extends SessionBase implements TurnHost, LiveSession {
  private readonly permissions = new PendingPermissions();
  /** Tools of config.json's MCP servers, loaded at the start of a turn. */
  private configTools: Tool[] = [];
  /** The workspace's named subagents (.ferret/agents/*.md), read at the start of each turn. */
  private agents: AgentDefinition[] = [];
  /** The task tool whose description lists `agents` (one object per list, so its JSON schema is built once). */
  private task: Tool | undefined;
  private running: RunningTurn | undefined;
  private readonly persistence: Persistence;
  private readonly queue: TurnQueue;
  readonly promptMemo: PromptMemo = {};
  readonly readLedger = new SessionReadLedger();
  /** Background processes: they run past their call and end with the session (close, release, delete, server stop). */
  readonly processes = new ProcessTable({
    started: (p) => void this.emit({ type: 'process_started', data: p }),
    output: (processId, stream, text) => void this.emit({ type: 'process_output', data: { processId, stream, text } }),
    exited: (p) => void this.emit({ type: 'process_exited', data: p }),
  });

  /** Over a body already folded (a load, or a followed session this server takes over), at the log's marks. */
  constructor(body: SessionBody, marks: { checkpoint: LogMark; snapshotSeq: number }) {
    super(body);
    body.emitter = (d) => void this.emit(d);
    this.persistence = new Persistence(body, marks);
    this.queue = new TurnQueue(this);
  }

  /** A new session (nothing loaded), or one loaded from its log. */
  static over(id: string, deps: SessionDeps, log: SessionLog, loaded: LoadedSession = freshLoad(deps), sandbox?: SessionBody['st']['sandbox']): LocalSession {
    return new LocalSession(new SessionBody(id, deps, log, loaded, sandbox), { checkpoint: loaded.checkpoint, snapshotSeq: loaded.snapshotSeq });
  }

  get deps(): SessionDeps {
    return this.body.deps;
  }

  private get log(): SessionLog {
    return this.body.log;
  }

  get status(): 'idle' | 'running' {
    return this.running ? 'running' : 'idle';
  }

  get runningTurnId(): string | undefined {
    return this.running?.turnId;
  }

  /** Its turn waits on a person: a permission question, or a write held for review in a client. */
  get waitingOnPerson(): boolean {
    return this.running !== undefined && (this.permissions.ids().length > 0 || this.body.attachments.writeAwaitsPerson);
  }

  /** A turn the log says runs, though no process runs it: ended as interrupted (a crash, a dead fleet server). */
  endInterruptedTurn(reason: string): void {
    if (this.running) return;
    for (const d of interruptedTurnEvents(this.body.st, reason)) this.emit(d);
  }

  /** Keeps the whole state at the log's end, so a load folds only what comes after. */
  snapshot(): Promise<void> {
    return this.persistence.snapshot();
  }

  /** Number, apply, log, then publish: the log is handed every event before any client sees it. */
  emit<E extends EventDraft>(draft: E): EventOf<E['type']> {
    const b = this.body;
    if (b.closed) {
      // A turn that ends after the session closed (a shutdown deadline): nothing is written any more.
      b.deps.logger.debug({ sessionId: b.id, type: draft.type }, 'event after close dropped');
      return { seq: b.seq, sessionId: b.id, ts: Date.now(), type: draft.type, data: draft.data } as EventOf<E['type']>;
    }
    // Field by field (no spread): the same key order, a fraction of the cost per event.
    const event = { seq: ++b.seq, sessionId: b.id, ts: Date.now(), type: draft.type, data: draft.data } as SessionEvent;
    applyEvent(b.st, event);
    b.folds.apply(event);
    this.persistence.emitted(event);
    // After the folds: a write this append triggers checkpoints their state after this event.
    this.log.append(event);
    b.lastActive = event.ts;
    b.bus.publish(event);
    if (b.deps.observers) for (const o of b.deps.observers) observe(o, event, b.deps.logger);
    return event as EventOf<E['type']>;
  }

  /**
   * Nothing holds this session in memory: no turn runs, no permission waits, no client is
   * attached or listening, no background process runs (those are bounded by their lifetime).
   * Only such a session may be let go (and loaded again on demand).
   */
  get idle(): boolean {
    const b = this.body;
    return !b.closed && !this.running && this.permissions.ids().length === 0 && b.attachments.size === 0 && !b.bus.busy && !this.processes.anyRunning();
  }

  /**
   * Its log can never write again while its store is fine (Redis: the lease lost to another
   * instance, or the stream lost data): the manager lets it go and loads it afresh when asked.
   */
  get defunct(): boolean {
    return !this.body.closed && this.log.unavailable() !== undefined && this.deps.store.unavailable() === undefined;
  }

  tools(): ToolRegistry {
    const extra = this.body.attachments.tools(this.configTools);
    // The task tool as this workspace has it (its named agents listed); the registry drops it where --allowed-tools did.
    if (this.task && this.deps.tools.get('task')) extra.push(this.task);
    return extra.length ? this.deps.tools.with(extra) : this.deps.tools;
  }

  runSubagent(run: SubagentRun): Promise<ToolOutcome> {
    return runSubagent(this, run, this.agents);
  }

  /** Reads the workspace's agents again; a new task tool only when the list changed. */
  private loadAgents(): void {
    const agents = scanAgents(this.state.cwd, this.deps.home);
    const key = (list: AgentDefinition[]) => JSON.stringify(list.map((a) => [a.name, a.description]));
    if (this.task && key(agents) === key(this.agents)) {
      this.agents = agents;
      return;
    }
    this.agents = agents;
    this.task = agents.length ? taskTool(agents) : undefined;
  }

  filesFor(origin: string | undefined): FileAccess {
    return this.body.attachments.filesFor(origin);
  }

  async loadConfigTools(): Promise<void> {
    try {
      this.loadAgents();
    } catch (err) {
      this.deps.logger.warn({ err }, 'cannot read the agent definitions');
    }
    if (!this.deps.mcp) return;
    try {
      const { tools, failures } = await this.deps.mcp.tools();
      this.configTools = tools;
      for (const text of failures) this.emit({ type: 'notice', data: { level: 'warning', text } });
    } catch (err) {
      this.emit({ type: 'notice', data: { level: 'warning', text: `MCP servers from config.json are unavailable: ${errorText(err)}` } });
    }
  }

  /** Starts a turn and returns at once; `done` settles when it ends. `turnId`: one a fleet server chose for it. */
  startTurn(text: string, opts?: TurnOptions & { turnId?: string }): StartedTurn;
  startTurn(text: string, opts: QueuedTurnOptions): Promise<StartedTurn | 'cancelled'>;
  startTurn(text: string, opts: TurnOptions & { turnId?: string; queue?: true } = {}): StartedTurn | Promise<StartedTurn | 'cancelled'> {
    if (opts.queue) return this.queue.start(text, opts.origin, opts);
    if (this.body.closed) throw new FerretError('session_not_found', `session ${this.id} is closed`);
    // Its store cannot write now (Redis away, the lease lost): a turn whose events only memory holds is refused.
    const down = this.log.unavailable();
    if (down) throw new FerretError('storage_unavailable', `cannot start a turn: ${down.message}`, down.data);
    if (this.running) {
      throw new FerretError(
        'session_busy',
        `session ${this.id} is running turn ${this.running.turnId}; wait for it to end or cancel it`,
        { turnId: this.running.turnId },
      );
    }
    const turnId = opts.turnId ?? `turn_${crypto.randomUUID().slice(0, 8)}`;
    const origin = opts.origin;
    const controller = new AbortController();
    // A bad image is the sender's error, said before anything starts (naming which one).
    const images = checkImages(opts.images);
    const done = runTurn(this, { turnId, text, origin, signal: controller.signal, ...(opts.mentions?.length ? { mentions: opts.mentions } : {}), ...(images.length ? { images } : {}) })
      // The answer goes out once the turn's events are in the store (Redis acknowledges writes
      // later): a read through another fleet server right after it sees the whole turn.
      .then(async (r) => {
        await drained(this.log, DRAIN_WAIT_MS);
        return r;
      })
      .finally(() => {
        this.running = undefined;
        this.body.lastActive = Date.now();
        this.saveMeta();
      });
    this.running = { turnId, origin, controller, done };
    return { turnId, done };
  }

  /** Settles when the client's MCP servers are connected: a queued prompt starts with its tools. */
  clientReady(origin: string | undefined): Promise<void> {
    return this.body.attachments.ready(origin);
  }

  withdrawQueued(origin: string): boolean {
    return this.queue.withdraw(origin);
  }

  /** Stops the running turn; false when none runs. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.controller.abort();
    return true;
  }

  stored(): Promise<void> {
    return drained(this.log, DRAIN_WAIT_MS);
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

  pendingPermissions(): string[] {
    return this.permissions.ids();
  }

  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    const old = this.body.st.approval;
    this.emit({ type: 'approval_changed', data: { old, new: preset } });
    return { old, new: preset };
  }

  rename(title: string): string {
    const parsed = SessionTitleSchema.safeParse(title);
    if (!parsed.success) throw new FerretError('invalid_params', `title: ${parsed.error.issues[0]?.message ?? 'not a title'}`, { field: 'title' });
    const kept = parsed.data;
    if (kept !== this.body.st.title) this.emit({ type: 'session_info', data: { title: kept } });
    this.saveMeta(); // the session list shows the new title at once
    return kept;
  }

  setMode(mode: AgentMode): AgentMode {
    const old = this.body.st.mode;
    if (old !== mode) this.emit({ type: 'mode_changed', data: { old, new: mode } });
    this.saveMeta();
    return mode;
  }

  setReasoning(effort: ReasoningEffort): ReasoningEffort {
    const old = this.body.st.reasoning;
    if (old !== effort) this.emit({ type: 'reasoning_changed', data: { old, new: effort } });
    return effort;
  }

  setModel(model: string): string {
    checkModel(this.deps.resolver, model, this.body.st.cwd);
    const old = this.body.st.model;
    if (old !== model) this.emit({ type: 'model_changed', data: { old, new: model } });
    this.saveMeta();
    return model;
  }

  /** The summary session/list shows, into the store's index (written in the background). */
  saveMeta(final = false): void {
    if (this.body.closed) return;
    this.deps.store.putMeta(this.meta(), final);
  }

  /** Stops at once: cancels the turn, detaches every client, flushes and closes the log, gives back the lock. */
  close(): void {
    if (this.body.closed) return;
    this.saveMeta(true); // leaving memory: meta.json beside the log too (the index is a cache)
    this.cancel();
    this.processes.closeAll(); // their ends are written while the log is open
    this.body.attachments.detachAll();
    this.body.closed = true;
    this.log.close();
  }

  endProcesses(): void {
    this.processes.closeAll();
  }

  /** Keeps a snapshot of what changed, then closes: a session let go, or a server shutting down. */
  async release(): Promise<void> {
    if (this.body.closed) return;
    await this.snapshot();
    this.close();
  }
}

async function drained(log: SessionLog, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([log.drain().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** An observer's failure is its own: logged, never the session's. */
function observe(o: (event: SessionEvent) => void, event: SessionEvent, logger: { error(obj: object, msg: string): void }): void {
  try {
    o(event);
  } catch (err) {
    logger.error({ err, type: event.type }, 'an event observer failed');
  }
}
