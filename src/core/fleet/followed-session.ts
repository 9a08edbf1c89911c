import type { AgentMode, ReasoningEffort, ApprovalPreset, Decision, EventDraft, EventOf, SessionMeta, SessionSummary } from '../../protocol/index.js';
import type { SessionLog } from '../../store/session-store.js';
import type { AttachOptions, ClientAttachment, QueuedTurnOptions, StartedTurn, TurnOptions } from '../api.js';
import type { Listener, SubscribeOptions, Subscription } from '../bus.js';
import { LocalSession } from '../session/local-session.js';
import { promptExtras, TurnQueue } from '../session/turn-queue.js';
import type { SessionState } from '../session-state.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { RemoteSession } from './remote-session.js';

/**
 * The handle of a session this server first followed: its RemoteSession while another server
 * writes it, then (its writer's lease gone, and a command here) the LocalSession this server
 * writes it with. Transports keep the one handle throughout; the body (state, readers, clients)
 * passes from the one to the other, so nobody sees the switch but in the log.
 */
export class FollowedSession implements LiveSession {
  private current: RemoteSession | LocalSession;
  /** Queued prompts wait here, not in either session: one queued before a takeover starts after it, here. */
  private readonly queue = new TurnQueue(this);

  constructor(remote: RemoteSession) {
    this.current = remote;
  }

  /** The session as followed, until this server writes it. */
  private get remote(): RemoteSession | undefined {
    return this.current instanceof LocalSession ? undefined : this.current;
  }

  /** The session as this server writes it, once it took it over. */
  get local(): LocalSession | undefined {
    return this.current instanceof LocalSession ? this.current : undefined;
  }

  /** The fleet server that writes this session, when it is not this one (commands are sent there). */
  get writtenBy(): string | undefined {
    return this.remote?.owner;
  }

  /** Another server took the session over from the one this follower knew. */
  set writtenBy(owner: string | undefined) {
    const r = this.remote;
    if (r && owner) r.owner = owner;
  }

  /** A read right after a command sent to the writer sees that command's events. */
  async catchUp(): Promise<void> {
    await this.remote?.catchUp();
  }

  /**
   * This server writes the session from now on (the writer's lease ran out: it died): what the
   * follower had not seen yet is read from the new log, then the turn the old writer left
   * unfinished is ended in the log as interrupted, so every reader sees why it stopped.
   */
  async takeOver(log: SessionLog, reason: string): Promise<void> {
    const remote = this.remote;
    if (!remote) return;
    remote.stop(); // the tail stops; what it had not delivered is read from the new log
    const body = remote.body;
    const reader = log.read(body.seq);
    for await (const chunk of reader) for (const e of chunk.events) remote.apply(e);
    log.repairTail(reader.damage);
    // Only now a writer: until here a command still finds a follower (and is refused or sent on).
    body.log = log;
    const local = new LocalSession(body, { checkpoint: log.checkpointAtOrBefore(body.seq) ?? { seq: 0, at: 0 }, snapshotSeq: body.seq });
    this.current = local;
    local.endInterruptedTurn(reason);
  }

  get id(): string {
    return this.current.id;
  }
  get state(): Readonly<SessionState> {
    return this.current.state;
  }
  get status(): 'idle' | 'running' {
    return this.current.status;
  }
  get lastSeq(): number {
    return this.current.lastSeq;
  }
  get runningTurnId(): string | undefined {
    return this.current.runningTurnId;
  }
  get lastActive(): number {
    return this.current.lastActive;
  }
  set lastActive(ms: number) {
    this.current.lastActive = ms;
  }
  get idle(): boolean {
    return this.current.idle;
  }
  endProcesses(): void {
    if ('endProcesses' in this.current) this.current.endProcesses();
  }
  get isClosed(): boolean {
    return this.current.isClosed;
  }
  get defunct(): boolean {
    return this.current.defunct;
  }
  meta(): SessionMeta {
    return this.current.meta();
  }
  summary(): SessionSummary {
    return this.current.summary();
  }
  pendingPermissions(): string[] {
    return this.current.pendingPermissions();
  }
  subscribe(listener: Listener, afterSeq?: number, opts?: SubscribeOptions): Subscription {
    return this.current.subscribe(listener, afterSeq, opts);
  }
  foldState(name: string): unknown {
    return this.current.foldState(name);
  }
  checkpointAtOrBefore(seq: number): { seq: number; folds: Record<string, unknown> } {
    return this.current.checkpointAtOrBefore(seq);
  }
  attach(opts: AttachOptions): ClientAttachment {
    return this.current.attach(opts);
  }
  clientReady(origin: string | undefined): Promise<void> {
    return this.current.clientReady(origin);
  }
  startTurn(text: string, opts?: TurnOptions): StartedTurn;
  startTurn(text: string, opts: QueuedTurnOptions): Promise<StartedTurn | 'cancelled'>;
  startTurn(text: string, opts: TurnOptions & { queue?: true } = {}): StartedTurn | Promise<StartedTurn | 'cancelled'> {
    if (opts.queue) return this.queue.start(text, opts.origin, opts);
    return this.current.startTurn(text, { origin: opts.origin, ...promptExtras(opts) });
  }
  withdrawQueued(origin: string): boolean {
    return this.queue.withdraw(origin);
  }
  cancel(): boolean {
    return this.current.cancel();
  }
  ready(): Promise<void> {
    return this.current.ready();
  }
  settled(): Promise<void> {
    return this.current.settled();
  }
  stored(): Promise<void> {
    return this.current.stored();
  }
  respondPermission(requestId: string, decision: Decision, by: string): void {
    this.current.respondPermission(requestId, decision, by);
  }
  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset } {
    return this.current.setApproval(preset);
  }
  rename(title: string): string {
    return this.current.rename(title);
  }
  setMode(mode: AgentMode): AgentMode {
    return this.current.setMode(mode);
  }
  setModel(model: string): string {
    return this.current.setModel(model);
  }
  setReasoning(effort: ReasoningEffort): ReasoningEffort {
    return this.current.setReasoning(effort);
  }
  snapshot(): Promise<void> {
    return this.current.snapshot();
  }
  saveMeta(final?: boolean): void {
    this.current.saveMeta(final);
  }
  close(): void {
    this.current.close();
  }
  release(): Promise<void> {
    return this.current.release();
  }
  emit<E extends EventDraft>(draft: E): EventOf<E['type']> {
    return this.current.emit(draft);
  }
}
