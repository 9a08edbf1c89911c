import { checkImages, FerretError, SessionTitleSchema, type AgentMode, type ReasoningEffort, type ApprovalPreset, type Decision, type EventDraft, type EventOf, type SessionEvent, type TurnResult } from '../../protocol/index.js';
import type { FleetCall, FleetSeam, FollowerLog } from '../../store/session-store.js';
import type { QueuedTurnOptions, StartedTurn, TurnOptions } from '../api.js';
import { checkModel } from '../model-check.js';
import { applyEvent } from '../session-state.js';
import { SessionBase, type SessionBody } from '../session/session-body.js';
import { TurnQueue } from '../session/turn-queue.js';
import type { LiveSession } from '../sessions/live-session.js';

/** How long a follower waits for the writer to take a command other than a turn. */
const REMOTE_WAIT_MS = 30_000;

/**
 * A session another fleet server writes, as this one follows it: its log is read as it grows
 * (the store's follower log) and applied here as if emitted here, so reads, replays and SSE are
 * served from this server; its commands are sent to the writer over the fleet's command bus,
 * and their effect comes back as the writer's events. It never writes the log itself.
 */
export class RemoteSession extends SessionBase implements LiveSession {
  /** Events the tail and a catch-up read handed over ahead of their turn, until the gap before them is filled. */
  private readonly ahead = new Map<number, SessionEvent>();
  /** Set once this server took the session over: the tail stops, nothing more is applied here. */
  private stopped = false;
  private readonly queue = new TurnQueue(this);

  constructor(
    body: SessionBody,
    private readonly follower: FollowerLog,
    private readonly fleet: FleetSeam,
  ) {
    super(body);
    // A client's MCP failure is a notice only the writer can write: refused, naming it.
    body.emitter = (d) => void this.emit(d);
    void this.followWriter();
  }

  /** The fleet server that writes this session (commands are sent there). */
  get owner(): string {
    return this.follower.owner;
  }

  /** Another server took the session over from the one this follower knew. */
  set owner(owner: string) {
    this.follower.owner = owner;
  }

  private notHere(): FerretError {
    const owner = this.follower.owner;
    return new FerretError('session_elsewhere', `session ${this.id} runs on ferret instance ${owner}: its commands are served there`, { owner });
  }

  /** The writer's events, applied and published here as they are written. */
  private async followWriter(): Promise<void> {
    try {
      for await (const events of this.follower.follow(this.body.seq)) {
        if (this.stopped) return;
        for (const e of events) this.apply(e);
      }
    } catch (err) {
      if (!this.stopped) this.body.deps.logger.warn({ err, sessionId: this.id }, 'following the session writer failed');
    }
  }

  /**
   * One of the writer's events: the state, the folds and the readers move as if it were emitted
   * here, in seq order (the tail and a catch-up read may overlap: each event counts once).
   */
  apply(e: SessionEvent): void {
    const b = this.body;
    if (e.seq <= b.seq) return;
    if (e.seq > b.seq + 1) {
      this.ahead.set(e.seq, e);
      return;
    }
    for (let next: SessionEvent | undefined = e; next; next = this.ahead.get(b.seq + 1)) {
      this.ahead.delete(next.seq);
      b.seq = next.seq;
      applyEvent(b.st, next);
      b.folds.apply(next);
      this.follower.moved(next.seq);
      b.bus.publish(next);
    }
  }

  /**
   * Reads what the writer wrote since the tail last delivered: a read that comes right after a
   * command sent on to the writer sees that command's events.
   */
  async catchUp(): Promise<void> {
    for await (const chunk of this.follower.read(this.body.seq)) for (const e of chunk.events) this.apply(e);
  }

  /** This server takes the session over: the tail stops (what it had not delivered is read from the new log). */
  stop(): void {
    this.stopped = true;
    this.ahead.clear();
    this.follower.close();
  }

  /**
   * A command goes to the writer (over the fleet's command channel); its effect comes back as
   * the writer's events. A failure is logged: the caller's client sees the state it gets.
   */
  private remote(call: FleetCall): Promise<unknown> {
    const owner = this.follower.owner;
    const p = this.fleet.call(owner, call, call.op === 'startTurn' ? undefined : REMOTE_WAIT_MS);
    if (call.op !== 'startTurn') p.catch((err: unknown) => this.body.deps.logger.warn({ err, sessionId: this.id, op: call.op, owner }, 'a command sent to the session writer failed'));
    return p;
  }

  emit<E extends EventDraft>(_draft: E): EventOf<E['type']> {
    throw this.notHere();
  }

  /** The writer's turn runs there: the log says whether one is running. */
  get status(): 'idle' | 'running' {
    return this.body.st.openTurn ? 'running' : 'idle';
  }

  get runningTurnId(): string | undefined {
    return this.body.st.openTurn?.turnId;
  }

  get idle(): boolean {
    const b = this.body;
    return !b.closed && b.attachments.size === 0 && !b.bus.busy;
  }

  /** A follower writes nothing: there is no lease of its own to lose. */
  get defunct(): boolean {
    return false;
  }

  clientReady(origin: string | undefined): Promise<void> {
    return this.body.attachments.ready(origin);
  }

  /**
   * A turn started through a follower runs on the writer: its answer is the writer's, or (the
   * writer died meanwhile) the turn_end that ends it in the log, whichever comes first.
   */
  startTurn(text: string, opts?: TurnOptions): StartedTurn;
  startTurn(text: string, opts: QueuedTurnOptions): Promise<StartedTurn | 'cancelled'>;
  startTurn(text: string, opts: TurnOptions & { queue?: true } = {}): StartedTurn | Promise<StartedTurn | 'cancelled'> {
    if (opts.queue) return this.queue.start(text, opts.origin, opts);
    if (this.body.closed) throw new FerretError('session_not_found', `session ${this.id} is closed`);
    checkImages(opts.images); // the writer checks too; a bad image is refused here without a round trip
    const turnId = `turn_${crypto.randomUUID().slice(0, 8)}`;
    let off: (() => void) | undefined;
    const ended = new Promise<TurnResult>((resolve) => {
      off = this.body.bus.subscribe((e) => {
        if (e.type !== 'turn_end' || e.data.turnId !== turnId) return;
        const { stopReason, text: said, error, errorCode } = e.data;
        resolve({ turnId, stopReason, message: { role: 'assistant', text: said }, ...(error !== undefined ? { error } : {}), ...(errorCode !== undefined ? { errorCode } : {}) });
      });
    });
    const answered = this.remote({ sessionId: this.id, op: 'startTurn', text, origin: opts.origin, turnId, ...(opts.mentions?.length ? { mentions: [...opts.mentions] } : {}), ...(opts.images?.length ? { images: [...opts.images] } : {}) }) as Promise<TurnResult>;
    const done = Promise.race([answered, ended]).finally(() => off?.());
    return { turnId, done };
  }

  withdrawQueued(origin: string): boolean {
    return this.queue.withdraw(origin);
  }

  /** Stops the writer's running turn, there. */
  cancel(): boolean {
    if (!this.body.st.openTurn) return false;
    void this.remote({ sessionId: this.id, op: 'cancel' });
    return true;
  }

  /** Its writer stores it; what this server saw is what the store held. */
  stored(): Promise<void> {
    return Promise.resolve();
  }

  /** The writer's turn ends when its turn_end arrives (or this server takes the session over). */
  async settled(): Promise<void> {
    if (!this.body.st.openTurn) return;
    await new Promise<void>((resolve) => {
      const off = this.body.bus.subscribe((e) => {
        if (e.type !== 'turn_end' && !this.stopped) return;
        off();
        resolve();
      });
    });
  }

  respondPermission(requestId: string, decision: Decision, by: string): void {
    void this.remote({ sessionId: this.id, op: 'respondPermission', requestId, decision, by });
  }

  /** Questions wait on the writer, which answers them. */
  pendingPermissions(): string[] {
    return [];
  }

  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    void this.remote({ sessionId: this.id, op: 'setApproval', preset });
    return { old: this.body.st.approval, new: preset };
  }

  rename(title: string): string {
    // Checked here too, so a bad title is refused before it crosses the fleet.
    const parsed = SessionTitleSchema.safeParse(title);
    if (!parsed.success) throw new FerretError('invalid_params', `title: ${parsed.error.issues[0]?.message ?? 'not a title'}`, { field: 'title' });
    void this.remote({ sessionId: this.id, op: 'rename', title: parsed.data });
    return parsed.data;
  }

  setMode(mode: AgentMode): AgentMode {
    void this.remote({ sessionId: this.id, op: 'setMode', mode });
    return mode;
  }

  setReasoning(effort: ReasoningEffort): ReasoningEffort {
    void this.remote({ sessionId: this.id, op: 'setReasoning', effort });
    return effort;
  }

  setModel(model: string): string {
    checkModel(this.body.deps.resolver, model, this.body.st.cwd);
    void this.remote({ sessionId: this.id, op: 'setModel', model });
    return model;
  }

  /** The writer keeps the snapshots. */
  snapshot(): Promise<void> {
    return Promise.resolve();
  }

  /** The writer keeps the meta. */
  saveMeta(): void {}

  close(): void {
    if (this.body.closed) return;
    this.body.attachments.detachAll();
    this.body.closed = true;
    this.stopped = true;
    this.body.log.close();
  }

  async release(): Promise<void> {
    this.close();
  }
}
