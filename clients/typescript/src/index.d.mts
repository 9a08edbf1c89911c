import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';
import type { EventStreamOptions, FerretEventStream, FetchLike } from './sse.mjs';

export type { components, operations, paths } from './schema.js';
export { FerretHttpError, isFerretError, type ErrorBody, type ErrorCode } from './errors.mjs';
export {
  FerretEventStream,
  SseParser,
  SseProtocolError,
  compareFrameIds,
  parseFrameId,
  type EventStreamOptions,
  type FetchLike,
  type FrameOf,
  type RawSseEvent,
  type SseEventName,
  type SseFrame,
} from './sse.mjs';

type Schemas = components['schemas'];
/** An operation's JSON body for one status (never when it has none). */
export type ResponseOf<O extends keyof operations, S extends keyof operations[O]['responses']> = operations[O]['responses'][S] extends { content: { 'application/json': infer T } } ? T : never;
/** An operation's JSON request body. */
export type BodyOf<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer T } } ? T : never;

export type Health = Schemas['Health'];
export type NewSession = Schemas['NewSessionInput'];
export type SessionDescription = Schemas['SessionDescription'];
export type SessionSummary = Schemas['SessionSummary'];
export type SessionList = Schemas['SessionList'];
export type SessionDetail = Schemas['SessionDetail'];
export type TurnResult = Schemas['TurnResult'];
export type TurnAccepted = Schemas['TurnAccepted'];
export type Ok = Schemas['Ok'];
export type ApprovalChange = Schemas['ApprovalChange'];
export type Mode = BodyOf<'setMode'>['mode'];
/** A reasoning effort: minimal, low, medium or high. */
export type ReasoningEffort = BodyOf<'setReasoning'>['effort'];
export type ApprovalPreset = BodyOf<'setApproval'>['preset'];
export type Decision = BodyOf<'answerPermission'>['decision'];
/** The `data` of a `loop_event` frame: one core session event, discriminated by `kind`. */
export type FerretUpdate = Schemas['FerretUpdate'];
export type LoopEventKind = FerretUpdate['kind'];
export type LoopEventOf<K extends LoopEventKind> = Extract<FerretUpdate, { kind: K }>;
export type PermissionRequest = LoopEventOf<'permission_request'>;
export type PermissionResolved = LoopEventOf<'permission_resolved'>;

/** Per-call options: an abort signal, extra headers. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface ClientOptions {
  /** The server, e.g. http://127.0.0.1:5173 (the `url` of its `listening` log line). */
  baseUrl: string;
  /** FERRET_SERVER_TOKEN, sent as `Authorization: Bearer`; omit for a loopback server without one. */
  token?: string | undefined;
  /** The fetch to call (default: Node 20's global fetch). */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * Typed calls for every operation of the document (named by operationId). Each resolves with
 * the 2xx body and throws a FerretHttpError (status + ErrorCode) on any other answer.
 */
export interface FerretApiClient {
  readonly baseUrl: string;
  /** The underlying openapi-fetch client (typed by the same document), for anything not wrapped. */
  readonly raw: Client<paths>;
  /** GET /health: liveness (no token needed). */
  health(opts?: CallOptions): Promise<Health>;
  /** GET /openapi.json: the document itself. */
  openapi(opts?: CallOptions): Promise<ResponseOf<'openapi', 200>>;
  /** POST /session: 201 with the new session; no body at all means every default. */
  createSession(body?: NewSession | null, opts?: CallOptions): Promise<SessionDescription>;
  /** GET /session. */
  listSessions(opts?: CallOptions & { limit?: number; cursor?: string }): Promise<SessionList>;
  /** GET /session/:id. */
  getSession(sessionId: string, opts?: CallOptions): Promise<SessionDetail>;
  /** GET /session/:id/prompts: what the user said at each turn's start (after a seq, when given). */
  listPrompts(sessionId: string, opts?: CallOptions & { after?: number }): Promise<ResponseOf<'listPrompts', 200>>;
  /** GET /models: every model that can run now, the default first. */
  listModels(opts?: CallOptions): Promise<ResponseOf<'listModels', 200>>;
  /** The slash commands the session offers: the built-ins and the team's own command files. */
  listCommands(sessionId: string, opts?: CallOptions): Promise<ResponseOf<'listCommands', 200>>;
  /** GET /auth/session: whether this client may use the API (no token needed). */
  authState(opts?: CallOptions): Promise<ResponseOf<'authState', 200>>;
  /** POST /auth/login: the web console's login (a cookie); a bot sends the bearer token instead. */
  login(token: string, opts?: CallOptions): Promise<ResponseOf<'login', 200>>;
  /** POST /auth/logout. */
  logout(opts?: CallOptions): Promise<Ok>;
  /** POST /session/:id/message?wait=false: 202 with the turn id at once; follow the turn on events(). */
  sendMessage(sessionId: string, text: string | BodyOf<'sendMessage'>, opts: CallOptions & { wait: false }): Promise<TurnAccepted>;
  /** POST /session/:id/message: answers when the turn ends (409 session_busy while one runs). */
  sendMessage(sessionId: string, text: string | BodyOf<'sendMessage'>, opts?: CallOptions & { wait?: true }): Promise<TurnResult>;
  /** POST /session/:id/cancel: cancels the running turn (a no-op when none runs). */
  cancelTurn(sessionId: string, opts?: CallOptions): Promise<Ok>;
  /** POST /session/:id/close: done with it; it leaves memory unless a turn runs or another client uses it. */
  closeSession(sessionId: string, opts?: CallOptions): Promise<Ok>;
  /** A new session with this one's history (201). */
  forkSession(sessionId: string, opts?: CallOptions): Promise<ResponseOf<'forkSession', 201>>;
  /** Deletes the session for good (409 session_busy while it runs a turn). */
  deleteSession(sessionId: string, opts?: CallOptions): Promise<Ok>;
  /** A new title (one line, 1–200 characters); every client's list shows it. */
  renameSession(sessionId: string, title: string, opts?: CallOptions): Promise<ResponseOf<'renameSession', 200>>;
  /** POST /session/:id/mode. */
  setMode(sessionId: string, mode: Mode, opts?: CallOptions): Promise<ResponseOf<'setMode', 200>>;
  /** POST /session/:id/model: 422 model_unavailable / auth_required when it cannot run here. */
  setModel(sessionId: string, model: string, opts?: CallOptions): Promise<ResponseOf<'setModel', 200>>;
  /** The session's reasoning effort from its next model call. */
  setReasoning(sessionId: string, effort: ReasoningEffort, opts?: CallOptions): Promise<ResponseOf<'setReasoning', 200>>;
  /** POST /session/:id/approval. */
  setApproval(sessionId: string, preset: ApprovalPreset, opts?: CallOptions): Promise<ApprovalChange>;
  /** GET /session/:id/sandbox. */
  getSandbox(sessionId: string, opts?: CallOptions): Promise<ResponseOf<'getSandbox', 200>>;
  /** POST /session/:id/permission: 409 already_decided when another client answered first. */
  answerPermission(sessionId: string, permissionId: string, decision: Decision, opts?: CallOptions): Promise<Ok>;
  /** POST /session/:id/undo: the last turn's files and conversation put back (stopReason error, with why, when refused). */
  undoTurn(sessionId: string, body?: BodyOf<'undoTurn'>, opts?: CallOptions): Promise<ResponseOf<'undoTurn', 200>>;
  /** POST /session/:id/redo: what the last undo or rewind took, put back. */
  redoTurn(sessionId: string, body?: BodyOf<'redoTurn'>, opts?: CallOptions): Promise<ResponseOf<'redoTurn', 200>>;
  /** POST /session/:id/rewind: back to before turn N (`{turn, mode, force}`); without a turn, the answer lists them. */
  rewindTurns(sessionId: string, body?: BodyOf<'rewindTurns'>, opts?: CallOptions): Promise<ResponseOf<'rewindTurns', 200>>;
  /** GET /session/:id/bridge. */
  getBridge(sessionId: string, opts?: CallOptions): Promise<ResponseOf<'getBridge', 200>>;
  /** GET /session/:id/events (streamEvents): typed frames, resumed and deduplicated across cuts. */
  events(sessionId: string, opts?: EventStreamOptions): FerretEventStream;
}

/** A client for one ferret server. */
export declare function createFerretClient(opts: ClientOptions): FerretApiClient;
export { BridgeTunnel, parsePairingLink, type BridgeDevice, type BridgeTunnelOptions } from './bridge.mjs';
