import { promises as fsp } from 'node:fs';
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
import type { Checkpoint, FleetCall, FollowerLog, LogMark, SessionLog } from '../store/session-store.js';
import type { Tool } from '../tools/define.js';
import { createMcpPool, type McpPool } from '../tools/mcp-pool.js';
import { nodeFiles } from '../tools/node-files.js';
import type { ToolRegistry } from '../tools/registry.js';
import { PendingPermissions } from './approvals.js';
import { EventBus, type Listener, type SubscribeOptions, type Subscription } from './bus.js';
import { FoldSet } from './folds.js';
import { interruptedTurnEvents } from './interrupted-turn.js';
import { CHECKPOINT_BYTES, CHECKPOINT_EVENTS, type LoadedSession } from './session-load.js';
import { checkModel } from './model-check.js';
import { applyEvent, emptyState, saveState, type SessionState } from './session-state.js';
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
    await fsp.stat(path);
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
  private readonly st: SessionState;
  private readonly permissions = new PendingPermissions();
  private readonly bus: EventBus;
  private readonly folds: FoldSet;
  /** Attached clients, oldest first: the newest with an editor seam serves turns started elsewhere. */
  private readonly attached = new Map<string, Attached>();
  /** Tools of config.json's MCP servers, loaded at the start of a turn. */
  private configTools: Tool[] = [];
  private seq: number;
  private running: RunningTurn | undefined;
  private closed = false;
  /** The last checkpoint and snapshot marks: one more is written every so many events. */
  private cp: LogMark;
  private snapSeq: number;
  private snapping: Promise<void> | undefined;
  /** When a client last used the session (ms since epoch): idle sessions are let go first. */
  lastActive = Date.now();

  constructor(
    readonly id: string,
    readonly deps: SessionDeps,
    private log: SessionLog,
    loaded: LoadedSession = { state: emptyState(), folds: new FoldSet(deps.folds ?? []), recent: [], lastSeq: 0, checkpoint: { seq: 0, at: 0 }, snapshotSeq: 0 },
    /** The server's sandbox, which a loaded session runs under whatever it was created with. */
    sandbox?: SandboxMode,
  ) {
    this.st = loaded.state;
    this.folds = loaded.folds;
    this.seq = loaded.lastSeq;
    this.cp = loaded.checkpoint;
    this.snapSeq = loaded.snapshotSeq;
    log.onWritten = (end) => this.written(end);
    this.bus = new EventBus(
      // Replays hand each chunk's events to listeners in one go (a reader formats and writes them): keep chunks small.
      // A history replay leaves most lines unparsed (bigger chunks are cheap); others map every event.
      (after, opts) => this.log.read(after, { ...opts, chunkBytes: opts?.omitRepeatedChunksUpTo ? HISTORY_CHUNK_BYTES : REPLAY_CHUNK_BYTES }),
      4096,
      (err) => deps.logger.warn({ err, sessionId: id }, 'event listener threw'),
      loaded.lastSeq,
    );
    this.bus.seed(loaded.recent.slice(-4096));
    if (sandbox) this.st.sandbox = sandbox;
    if (isFollowerLog(log)) {
      this.following = log;
      void this.followWriter(log);
    }
    if (loaded.history) {
      // The history is read in the background; only a turn needs it (it waits in ready()).
      const read = loaded.history;
      this.historyReady = read().then(
        (h) => {
          this.st.history = h.concat(this.st.history);
          this.historyReady = undefined;
        },
        (err: unknown) => {
          this.historyReady = undefined;
          this.loadError = err;
          deps.logger.error({ err, sessionId: id }, 'reading the session snapshot history failed');
        },
      );
    }
  }

  /** Set while another server of the fleet writes this session: its events come here, commands go there. */
  private following: FollowerLog | undefined;

  /** The fleet server that writes this session, when it is not this one (commands are sent there). */
  get writtenBy(): string | undefined {
    return this.following?.owner;
  }

  /** Another server took the session over from the one this follower knew. */
  set writtenBy(owner: string | undefined) {
    if (this.following && owner) this.following.owner = owner;
  }

  private notHere(): FerretError {
    const owner = this.following?.owner ?? 'another server';
    return new FerretError('session_busy', `session ${this.id} runs on ferret instance ${owner}: its commands are served there`, { owner });
  }

  /** A follower's life: the writer's events, applied and published here as they are written. */
  private async followWriter(log: FollowerLog): Promise<void> {
    try {
      for await (const events of log.follow(this.seq)) {
        if (this.following !== log) return;
        for (const e of events) this.applyFollowed(e);
      }
    } catch (err) {
      if (this.following === log) this.deps.logger.warn({ err, sessionId: this.id }, 'following the session writer failed');
    }
  }

  /**
   * A follower's command goes to the writer (over the fleet's command channel); its effect comes
   * back as the writer's events. A failure is logged: the caller's client sees the state it gets.
   */
  private remote(call: FleetCall): Promise<unknown> {
    const fleet = this.deps.store.fleet;
    const owner = this.following?.owner;
    const p = !fleet || owner === undefined ? Promise.reject(this.notHere()) : fleet.call(owner, call, call.op === 'startTurn' ? undefined : REMOTE_WAIT_MS);
    if (call.op !== 'startTurn') p.catch((err: unknown) => this.deps.logger.warn({ err, sessionId: this.id, op: call.op, owner }, 'a command sent to the session writer failed'));
    return p;
  }

  /**
   * A turn started through a follower runs on the writer: its answer is the writer's, or (the
   * writer died meanwhile) the turn_end that ends it in the log, whichever comes first.
   */
  private remoteTurn(text: string, origin: string | undefined): { turnId: string; done: Promise<TurnResult> } {
    const turnId = `turn_${crypto.randomUUID().slice(0, 8)}`;
    let off: (() => void) | undefined;
    const ended = new Promise<TurnResult>((resolve) => {
      off = this.bus.subscribe((e) => {
        if (e.type !== 'turn_end' || e.data.turnId !== turnId) return;
        const { stopReason, text: said, error, errorCode } = e.data;
        resolve({ turnId, stopReason, message: { role: 'assistant', text: said }, ...(error !== undefined ? { error } : {}), ...(errorCode !== undefined ? { errorCode } : {}) });
      });
    });
    const answered = this.remote({ sessionId: this.id, op: 'startTurn', text, origin, turnId }) as Promise<TurnResult>;
    const done = Promise.race([answered, ended]).finally(() => off?.());
    return { turnId, done };
  }

  /** Events the tail and a catch-up read handed over ahead of their turn, until the gap before them is filled. */
  private ahead = new Map<number, SessionEvent>();

  /**
   * One of the writer's events: the state, the folds and the readers move as if it were emitted
   * here, in seq order (the tail and a catch-up read may overlap: each event counts once).
   */
  private applyFollowed(e: SessionEvent): void {
    if (e.seq <= this.seq) return;
    if (e.seq > this.seq + 1) {
      this.ahead.set(e.seq, e);
      return;
    }
    for (let next: SessionEvent | undefined = e; next; next = this.ahead.get(this.seq + 1)) {
      this.ahead.delete(next.seq);
      this.seq = next.seq;
      applyEvent(this.st, next);
      this.folds.apply(next);
      this.following?.moved(next.seq);
      this.bus.publish(next);
    }
  }

  /**
   * A follower reads what its writer wrote since the tail last delivered: a read that comes
   * right after a command sent on to the writer sees that command's events.
   */
  async catchUp(): Promise<void> {
    const log = this.following;
    if (!log) return;
    for await (const chunk of log.read(this.seq)) for (const e of chunk.events) this.applyFollowed(e);
  }

  /**
   * This server writes the session from now on (the writer's lease ran out: it died): what the
   * follower had not seen yet is read from the new log, then the turn the old writer left
   * unfinished is ended in the log as interrupted, so every reader sees why it stopped.
   */
  async takeOver(log: SessionLog, reason: string): Promise<void> {
    const old = this.following;
    if (!old) return;
    old.close(); // the tail stops; what it had not delivered is read from the new log
    const reader = log.read(this.seq);
    for await (const chunk of reader) for (const e of chunk.events) this.applyFollowed(e);
    log.repairTail(reader.damage);
    // Only now a writer: until here a command still finds a follower (and is refused or sent on).
    this.following = undefined;
    this.ahead.clear();
    this.log = log;
    log.onWritten = (end) => this.written(end);
    this.cp = log.checkpointAtOrBefore(this.seq) ?? { seq: 0, at: 0 };
    this.snapSeq = this.seq;
    this.endInterruptedTurn(reason);
  }

  /** A turn the log says runs, though no process runs it: ended as interrupted (a crash, a dead fleet server). */
  endInterruptedTurn(reason: string): void {
    if (this.running || this.following) return;
    for (const d of interruptedTurnEvents(this.st, reason)) this.emit(d);
  }

  /** Set while the snapshot's history is still being read. */
  private historyReady: Promise<void> | undefined;
  private loadError: unknown;

  /** Resolves when the session's whole state is in memory (a loaded session reads its history after it opens). */
  async ready(): Promise<void> {
    await this.historyReady;
    if (this.loadError) throw new FerretError('storage', `session ${this.id}: its history could not be read (${errorText(this.loadError)})`);
  }

  /** A checkpoint's fold states kept when its event was emitted, until the store acknowledges it (marksKnown: appended). */
  private pendingCp: Checkpoint | undefined;

  /** After each batch of the log is written: a checkpoint every so often, a snapshot less often. */
  private written(end: LogMark): void {
    if (this.pendingCp && end.seq >= this.pendingCp.seq) {
      const cp = this.pendingCp;
      this.pendingCp = undefined;
      this.cp = { seq: cp.seq, at: cp.at };
      this.log.checkpoint(cp);
    }
    if (end.seq !== this.seq) return; // fold states are those after this.seq only
    if (end.seq - this.cp.seq >= CHECKPOINT_EVENTS || end.at - this.cp.at >= CHECKPOINT_BYTES) {
      this.cp = end;
      this.log.checkpoint({ ...end, folds: this.folds.save() });
    }
    if (end.seq - this.snapSeq >= SNAPSHOT_EVENTS) void this.snapshot();
  }

  /** Keeps the whole state at the log's end, so a load folds only what comes after. */
  snapshot(): Promise<void> {
    // One in flight holds an older state: this one follows it (a session let go mid-write keeps its end).
    if (this.snapping) return this.snapping.then(() => this.snapshot());
    if (this.following) return Promise.resolve(); // the writer keeps the snapshots
    // A short log folds faster than a snapshot is read: only longer ones get one.
    if (this.closed || this.seq === this.snapSeq || this.seq < SNAPSHOT_MIN_EVENTS) return Promise.resolve();
    if (this.log.unavailable()) return Promise.resolve(); // its store away (Redis): the next load folds the log instead
    this.log.flush();
    const end = this.log.written;
    if (end.seq !== this.seq) {
      // The file store writes in flush(): behind means a write is failing, nothing whole to keep.
      // A store whose writes are acknowledged later (Redis) is drained first.
      if (this.log.marksKnown === 'flushed') return Promise.resolve();
      const seq = this.seq;
      return this.log.drain().then((mark) => (mark.seq === seq && this.seq === seq ? this.snapshot() : undefined));
    }
    if (this.historyReady) return this.historyReady.then(() => this.snapshot()); // never a snapshot with half a history
    if (this.loadError) return Promise.resolve();
    this.snapSeq = end.seq;
    // A copy of the list (messages themselves never change): the snapshot is written in chunks while the session goes on.
    this.snapping = this.log
      .snapshot({ ...end, folds: this.folds.save(), state: saveState(this.st), items: this.st.history.slice() })
      .catch((err: unknown) => this.deps.logger.warn({ err, sessionId: this.id }, 'session snapshot write failed'))
      .finally(() => (this.snapping = undefined));
    return this.snapping;
  }

  /** Everything the log determines (read only: it changes by events alone). */
  get state(): Readonly<SessionState> {
    return this.st;
  }

  get status(): 'idle' | 'running' {
    // A follower's turn runs on its writer: the log says whether one is running.
    if (this.following) return this.st.openTurn ? 'running' : 'idle';
    return this.running ? 'running' : 'idle';
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** The running turn's id, so a client can tell its own turn from another client's. */
  get runningTurnId(): string | undefined {
    if (this.following) return this.st.openTurn?.turnId;
    return this.running?.turnId;
  }

  /** Number, apply, log, then publish: the log is handed every event before any client sees it. */
  emit<E extends EventDraft>(draft: E): EventOf<E['type']> {
    if (this.following) throw this.notHere();
    if (this.closed) {
      // A turn that ends after the session closed (a shutdown deadline): nothing is written any more.
      this.deps.logger.debug({ sessionId: this.id, type: draft.type }, 'event after close dropped');
      return { seq: this.seq, sessionId: this.id, ts: Date.now(), type: draft.type, data: draft.data } as EventOf<E['type']>;
    }
    // Field by field (no spread): the same key order, a fraction of the cost per event.
    const event = { seq: ++this.seq, sessionId: this.id, ts: Date.now(), type: draft.type, data: draft.data } as SessionEvent;
    applyEvent(this.st, event);
    this.folds.apply(event);
    // A store whose writes trail the session (Redis) is rarely written up to this.seq mid-turn: keep the states now.
    if (this.log.marksKnown === 'appended' && !this.pendingCp && event.seq - this.cp.seq >= CHECKPOINT_EVENTS) {
      this.pendingCp = { seq: event.seq, at: event.seq, folds: this.folds.save() };
    }
    // After the folds: a write this append triggers checkpoints their state after this event.
    this.log.append(event);
    this.lastActive = event.ts;
    this.bus.publish(event);
    return event as EventOf<E['type']>;
  }

  /**
   * Listens to the session's events; with afterSeq, everything after it first (from memory, or
   * read from the log in chunks: wait for `caughtUp` before relying on having seen it all).
   */
  subscribe(listener: Listener, afterSeq?: number, opts?: SubscribeOptions): Subscription {
    this.lastActive = Date.now();
    return this.bus.subscribe(listener, afterSeq, opts);
  }

  /** A registered fold's state after the last event (JSON), so a reader can start here. */
  foldState(name: string): unknown {
    return this.folds.saved(name);
  }

  /**
   * Where a reader that must start at `seq` can begin: the latest checkpoint at or before it and
   * the folds' states there (seq 0 and fresh states when there is none).
   */
  checkpointAtOrBefore(seq: number): { seq: number; folds: Record<string, unknown> } {
    const cp = this.log.checkpointAtOrBefore(seq);
    return cp ? { seq: cp.seq, folds: cp.folds } : { seq: 0, folds: new FoldSet(this.folds.defs).save() };
  }

  /**
   * Nothing holds this session in memory: no turn runs, no permission waits, no client is
   * attached or listening. Only such a session may be let go (and loaded again on demand).
   */
  get idle(): boolean {
    return !this.closed && !this.running && this.permissions.ids().length === 0 && this.attached.size === 0 && !this.bus.busy;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Its log can never write again while its store is fine (Redis: the lease lost to another
   * instance, or the stream lost data): the manager lets it go and loads it afresh when asked.
   */
  get defunct(): boolean {
    return !this.closed && !this.following && this.log.unavailable() !== undefined && this.deps.store.unavailable() === undefined;
  }

  /**
   * Attaches a client: its editor seam serves its turns (and turns started elsewhere while it is
   * the newest editor attached); its MCP servers connect in the background through the one pool path.
   */
  attach(opts: AttachOptions): ClientAttachment {
    this.lastActive = Date.now();
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
    this.lastActive = Date.now();
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
  startTurn(text: string, origin?: string, givenTurnId?: string): { turnId: string; done: Promise<TurnResult> } {
    if (this.closed) throw new FerretError('session_not_found', `session ${this.id} is closed`);
    if (this.following) return this.remoteTurn(text, origin);
    // Its store cannot write now (Redis away, the lease lost): a turn whose events only memory holds is refused.
    const down = this.log.unavailable();
    if (down) throw new FerretError('storage', `cannot start a turn: ${down.message}`, down.data);
    if (this.running) {
      throw new FerretError(
        'session_busy',
        `session ${this.id} is running turn ${this.running.turnId}; wait for it to end or cancel it`,
        { turnId: this.running.turnId },
      );
    }
    const turnId = givenTurnId ?? `turn_${crypto.randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    const done = runTurn(this, { turnId, text, origin, signal: controller.signal })
      // The answer goes out once the turn's events are in the store (Redis acknowledges writes
      // later): a read through another fleet server right after it sees the whole turn.
      .then(async (r) => {
        await drained(this.log, DRAIN_WAIT_MS);
        return r;
      })
      .finally(() => {
        this.running = undefined;
        this.lastActive = Date.now();
        this.saveMeta();
      });
    this.running = { turnId, origin, controller, done };
    return { turnId, done };
  }

  /** Stops the running turn (a follower's: on its writer); false when none runs. */
  cancel(): boolean {
    if (this.following) {
      if (!this.st.openTurn) return false;
      void this.remote({ sessionId: this.id, op: 'cancel' });
      return true;
    }
    if (!this.running) return false;
    this.running.controller.abort();
    return true;
  }

  /** Waits for the running turn, if any, to end. */
  async settled(): Promise<void> {
    await this.running?.done.catch(() => undefined);
    // A follower: the writer's turn ends when its turn_end arrives (or this server takes the session over).
    if (this.following && this.st.openTurn) {
      await new Promise<void>((resolve) => {
        const off = this.bus.subscribe((e) => {
          if (e.type !== 'turn_end' && this.following) return;
          off();
          resolve();
        });
      });
    }
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
    if (this.following) return void this.remote({ sessionId: this.id, op: 'respondPermission', requestId, decision, by });
    this.permissions.respond(requestId, decision, by);
  }

  /** Permission requests still waiting for an answer. */
  pendingPermissions(): string[] {
    return this.permissions.ids();
  }

  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    if (this.following) {
      void this.remote({ sessionId: this.id, op: 'setApproval', preset });
      return { old: this.st.approval, new: preset };
    }
    const old = this.st.approval;
    this.emit({ type: 'approval_changed', data: { old, new: preset } });
    return { old, new: preset };
  }

  setMode(mode: AgentMode): AgentMode {
    if (this.following) {
      void this.remote({ sessionId: this.id, op: 'setMode', mode });
      return mode;
    }
    const old = this.st.mode;
    if (old !== mode) this.emit({ type: 'mode_changed', data: { old, new: mode } });
    this.saveMeta();
    return mode;
  }

  /** Refuses a model that cannot run (unknown id, bad scripted file, no key) before it is set. */
  setModel(model: string): string {
    if (this.following) {
      checkModel(this.deps.resolver, model, this.st.cwd);
      void this.remote({ sessionId: this.id, op: 'setModel', model });
      return model;
    }
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

  /** The summary session/list shows, into the store's index (written in the background). */
  saveMeta(final = false): void {
    if (this.closed || this.following) return; // a follower's writer keeps the meta
    this.deps.store.putMeta(this.meta(), final);
  }

  /** Stops at once: cancels the turn, detaches every client, flushes and closes the log, gives back the lock. */
  close(): void {
    if (this.closed) return;
    this.saveMeta(true); // leaving memory: meta.json beside the log too (the index is a cache)
    if (!this.following) this.cancel();
    for (const id of [...this.attached.keys()]) this.detach(id);
    this.closed = true;
    this.log.close();
  }

  /** Keeps a snapshot of what changed, then closes: a session let go, or a server shutting down. */
  async release(): Promise<void> {
    if (this.closed) return;
    await this.snapshot();
    this.close();
  }
}

/** Bytes of log per replay chunk: ~400 events, each mapped, formatted and written to a client in the same turn of the loop. */
const REPLAY_CHUNK_BYTES = 48 * 1024;
const HISTORY_CHUNK_BYTES = 256 * 1024;
/** Logs shorter than this are folded from seq 1 on load: no snapshot. */
const SNAPSHOT_MIN_EVENTS = 2000;
/** A snapshot of the whole state every so many events (and when a session is let go). */
const SNAPSHOT_EVENTS = 20_000;

function isFollowerLog(log: SessionLog): log is FollowerLog {
  return typeof (log as Partial<FollowerLog>).follow === 'function';
}

/** How long a turn's answer waits for its events to be written (a store that is away answers anyway, and writes them later). */
const DRAIN_WAIT_MS = 2000;

async function drained(log: SessionLog, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([log.drain().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** How long a follower waits for the writer to take a command other than a turn. */
const REMOTE_WAIT_MS = 30_000;
