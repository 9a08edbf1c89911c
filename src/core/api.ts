import type { BridgeStatus, ImageInput, AgentMode, ReasoningEffort, ApprovalPreset, Decision, FileAccess, McpServerSpec, SandboxMode, SessionEvent, SessionMeta, SessionSummary, SlashCommand, TurnResult } from '../protocol/index.js';
import type { Credential, ModelChoice } from '../providers/catalog.js';
import type { StoreStatus } from '../store/session-store.js';
import type { FleetCall } from '../store/session-store.js';
import type { Listener, SubscribeOptions, Subscription } from './bus.js';
import type { SessionFold } from './folds.js';
import type { SessionState } from './session-state.js';

// What a transport may do with the core: the interfaces it holds. They name no class, so a
// session written here (core/session/) and one followed from another fleet server (core/fleet/)
// are the same thing to a transport, and nothing internal (emit, persistence, takeover) leaks out.

/** What a client brings when it attaches: its editor's file seam and the MCP servers it asked for. */
export interface AttachOptions {
  /** Who this is; turns it starts carry it as their origin. Unique per client. */
  clientId: string;
  /** The editor's buffers; what it leaves out is served from disk. */
  files?: Partial<FileAccess>;
  /**
   * The client holds each write until a person accepts or rejects it (the VS Code extension's
   * review): while one is held, the turn counts as waiting on a person, not working.
   */
  reviewsWrites?: boolean;
  mcpServers?: McpServerSpec[];
}

/** One client's attachment to a session; `detach` gives back what it brought. */
export interface ClientAttachment {
  readonly clientId: string;
  /** Settles when the client's MCP servers are connected (or failed, said in a notice). */
  readonly ready: Promise<void>;
  detach(): void;
}

/** A turn that started: its id at once, its result when it ends. */
export interface StartedTurn {
  turnId: string;
  done: Promise<TurnResult>;
}

export interface TurnOptions {
  /** The client that starts it (`turn_start.origin`): its editor seam serves the turn. */
  origin?: string | undefined;
  /** Files (or folders) the person @-mentioned: read under the sandbox's read rules and given to the model with the text. */
  mentions?: readonly Mention[] | undefined;
  /** Images the person attached, as sent: checked (bytes, size, count) when the turn starts (protocol/images.ts). */
  images?: readonly ImageInput[] | undefined;
}

/** An @-mention: a file URI (`file:///…`) or a path, and the name the client showed. */
export interface Mention {
  uri: string;
  name?: string | undefined;
}

export interface QueuedTurnOptions extends TurnOptions {
  /**
   * Wait for the running turn (and the origin's MCP servers) instead of refusing with
   * `session_busy`, then start (ACP v1, which has no busy answer). `withdrawQueued(origin)`
   * while it waits answers 'cancelled' without running it.
   */
  queue: true;
}

/** One session, as a transport holds it: commands in, events out, read-only facts. */
export interface SessionHandle {
  readonly id: string;
  /** Everything the log determines (read only: it changes by events alone). */
  readonly state: Readonly<SessionState>;
  readonly status: 'idle' | 'running';
  /** The seq of the last event. */
  readonly lastSeq: number;
  /** The running turn's id, so a client can tell its own turn from another client's. */
  readonly runningTurnId: string | undefined;
  meta(): SessionMeta;
  summary(): SessionSummary;
  /** Permission requests still waiting for an answer. */
  pendingPermissions(): string[];

  /**
   * Listens to the session's events; with afterSeq, everything after it first (from memory, or
   * read from the log in chunks: wait for `caughtUp` before relying on having seen it all).
   */
  subscribe(listener: Listener, afterSeq?: number, opts?: SubscribeOptions): Subscription;
  /** A registered fold's state after the last event (JSON), so a reader can start here. */
  foldState(name: string): unknown;
  /** Where a reader that must start at `seq` can begin, and the folds' states there. */
  checkpointAtOrBefore(seq: number): { seq: number; folds: Record<string, unknown> };

  /** Attaches a client: its editor seam serves its turns; its MCP servers connect in the background. */
  attach(opts: AttachOptions): ClientAttachment;
  /** Starts a turn and returns at once (`session_busy` while one runs); `done` settles when it ends. */
  startTurn(text: string, opts?: TurnOptions): StartedTurn;
  /** Queues the turn behind the running one; 'cancelled' when withdrawn before it started. */
  startTurn(text: string, opts: QueuedTurnOptions): Promise<StartedTurn | 'cancelled'>;
  /** Withdraws the origin's queued prompts (they answer 'cancelled'); false when none waited. */
  withdrawQueued(origin: string): boolean;
  /**
   * Settles when what its log holds so far is in the store (a fleet's Redis acknowledges writes
   * later): a transport answers a new session with this done, so a client may drive it through
   * any server of the fleet at once.
   */
  stored(): Promise<void>;
  /** Stops the running turn; false when none runs. */
  cancel(): boolean;
  respondPermission(requestId: string, decision: Decision, by: string): void;
  setApproval(preset: ApprovalPreset): { old: ApprovalPreset; new: ApprovalPreset };
  /** A person's title for the session (emits `session_info`); answers the title as kept (one line, trimmed). */
  rename(title: string): string;
  setMode(mode: AgentMode): AgentMode;
  /** Refuses a model that cannot run (unknown id, bad scripted file, no key) before it is set. */
  setModel(model: string): string;
  /** The reasoning effort of the session's next model calls (sent only to models that take one). */
  setReasoning(effort: ReasoningEffort): ReasoningEffort;
}

export interface SessionDefaults {
  cwd: string;
  model: string;
  mode: AgentMode;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
  /** config.json's `reasoning`; a session without one starts at medium. */
  reasoning?: ReasoningEffort | undefined;
}

export interface NewSessionOptions {
  cwd?: string | undefined;
  /** Extra workspace roots (absolute folders that exist); the file tools reach them as they reach cwd. */
  additionalDirectories?: readonly string[] | undefined;
  model?: string | undefined;
  mode?: AgentMode | undefined;
  approval?: ApprovalPreset | undefined;
}

export interface ListPage {
  sessions: SessionSummary[];
  /** Pass back as `cursor` for the next page; absent on the last. */
  nextCursor?: string;
}

export interface ListQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Only sessions of this workspace. */
  cwd?: string | undefined;
}

type WithoutSession<T> = T extends unknown ? Omit<T, 'sessionId'> : never;

/** A command for a session, as a transport sends it (the session named apart). */
export type SessionCommand = WithoutSession<FleetCall>;

/** What each command answers with. */
export interface CommandAnswers {
  startTurn: TurnResult;
  beginTurn: { turnId: string };
  cancel: boolean;
  respondPermission: null;
  setMode: AgentMode;
  setModel: string;
  setReasoning: ReasoningEffort;
  setApproval: { old: ApprovalPreset; new: ApprovalPreset };
  rename: string;
  close: null;
}

export type CommandAnswer<C extends SessionCommand> = CommandAnswers[C['op']];

/** The server's sessions, as a transport reaches them. Sessions belong to the server, not to a connection. */
export interface Sessions {
  readonly defaults: SessionDefaults;
  create(opts?: NewSessionOptions): SessionHandle;
  /**
   * A session in memory, or loaded synchronously (file store). A store that reads only
   * asynchronously serves only sessions `open` loaded: transports open a session a request names first.
   */
  get(id: string): SessionHandle;
  /** A session in memory, or loaded in chunks; `write: false` (a read) never takes a fleet session over. */
  open(id: string, opts?: { write?: boolean }): Promise<SessionHandle>;
  /** The session if it is in memory, without counting as a use. */
  peek(id: string): SessionHandle | undefined;
  /** Whether the session is in memory or in the store. */
  has(id: string): Promise<boolean>;
  /** A client is done with it: let go now if nobody else uses it, else once its turn ends. */
  close(id: string): Promise<void>;
  /** A new session with the history of `id` (its whole turns), the same model and settings (ACP session/fork). */
  fork(id: string, opts?: { cwd?: string | undefined; additionalDirectories?: readonly string[] | undefined }): Promise<SessionHandle>;
  /**
   * Deletes a session for good (its log and its list entry). Refused while it runs a turn
   * (`session_busy`) or while another process or fleet server writes it (`session_elsewhere`).
   */
  delete(id: string): Promise<void>;
  /** Sessions newest first, a page at a time. */
  list(q?: ListQuery): Promise<ListPage>;
  /** The slash commands a session in `cwd` offers: the built-ins, then the team's own from command files. */
  slashCommands(cwd: string): SlashCommand[];
  /** Every model a person can pick now, with the default and `current` first. */
  models(current?: string): ModelChoice[];
  /** Where the built-in providers read their keys, and whether each is set. */
  credentials(): Credential[];
  /** Why the default model (or `model`) cannot run now (no key, unknown provider), or undefined when it can. */
  modelProblem(model?: string): string | undefined;
  /** What GET /health says of the store. */
  storeStatus(): StoreStatus;
  /** The cloud bridge's state, as the CLI's bridge reports it (NO_BRIDGE when none runs). */
  bridgeStatus(): BridgeStatus;
  /** Listens to every live event of the sessions this server writes (no replay); unsubscribes when called. */
  observe(listener: (event: SessionEvent) => void): () => void;
  /** Keeps a fold for sessions created or loaded from now on. */
  useFold(fold: SessionFold): void;
  /** This server's name in its fleet (undefined: a single server). */
  readonly fleetInstance: string | undefined;
  /**
   * A command whose caller waits for its answer (the HTTP API): run here when this server writes
   * the session, else sent to the fleet server that does and answered with its answer or error
   * (a writer that goes away meanwhile: FerretError('writer_unreachable')). Open the session first (`open`).
   */
  command<C extends SessionCommand>(id: string, cmd: C): Promise<CommandAnswer<C>>;
}
