import { ZERO_USAGE, type ClientAttachment, type EventData, type TurnOptions, type SessionHandle, type SessionEvent, type Sessions, type StartedTurn } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';
import { clientFiles, seconds, type FsCaps } from './client-files.js';
import { toSpec } from './mcp-servers.js';
import type { McpServerParam } from './params.js';
import { askPermission } from './permission.js';
import { configOptions } from './session-config.js';
import { TerminalMirror } from './terminal-mirror.js';
import { UpdateMapper } from './updates.js';

/** Session updates ACP added after 0.4: an editor on the 0.4 library cannot parse them and logs an error for each. */
const NEWER_THAN_0_4 = new Set(['usage_update', 'config_option_update', 'session_info_update']);

export interface LinkCaps {
  fs: FsCaps;
  notices: boolean;
  /** The client advertised `session.compaction`. */
  compaction: boolean;
  extensions: ReadonlySet<string>;
  /** The client advertised `terminal`: a running command shows in its terminal (terminal-mirror.ts). */
  terminal?: boolean;
  /** The client's id in the core (default `acp:<connection>`; one connection may continue another's). */
  clientId?: string;
}

/**
 * One v1 client attached to one session: streams its events as `session/update`s and forwards
 * permission requests; the core's attachment holds its editor file seam and its MCP servers.
 */
export class SessionLink {
  private off: (() => void) | undefined;
  private attachment: ClientAttachment | undefined;
  /** The turn this client started, so Stop and close touch only that one. */
  private myTurnId: string | undefined;
  /** The turn whose turn_start came last, when this client started it: its user message is not echoed either. */
  private lastTurnOwn: string | undefined;
  /** Permission prompts shown to this client, withdrawn when settled elsewhere or the turn ends. */
  private readonly questions = new Map<string, AbortController>();
  /** This client's id in the core: the origin of the turns it starts. */
  private readonly clientId: string;
  /** With a client that has terminals: live commands shown in them. */
  private terminals: TerminalMirror | undefined;
  /** The mapper of the current subscription: it knows each call's card (title, kind, proposed diff). */
  private mapper: UpdateMapper | undefined;

  constructor(
    private readonly ctx: DialectContext,
    readonly session: SessionHandle,
    private readonly manager: Sessions,
    private readonly caps: LinkCaps,
  ) {
    this.clientId = caps.clientId ?? `acp:${ctx.connectionId}`;
  }

  /** Settles when the history (session/load) has gone out: the load answers after it. */
  replayed: Promise<void> = Promise.resolve();

  /** Subscribes; with `replay` the whole history goes out first (session/load), with final statuses. */
  attach(replay: boolean, mcpServers: McpServerParam[]): void {
    this.off?.();
    const s = this.session;
    const liveFrom = replay ? s.lastSeq : -1;
    this.terminals?.close();
    this.terminals = this.caps.terminal
      ? new TerminalMirror(
          this.ctx,
          s.id,
          (callId, terminalId) => this.ctx.notify('session/update', { sessionId: s.id, update: { sessionUpdate: 'tool_call_update', toolCallId: callId, content: [{ type: 'terminal', terminalId }] } }),
          (msg, err) => this.ctx.logger.warn({ err, sessionId: s.id }, msg),
        )
      : undefined;
    const terminals = this.terminals;
    const mapper = new UpdateMapper({
      ...(terminals ? { terminalOf: (callId: string) => terminals.terminalOf(callId) } : {}),
      config: () => configOptions(s, this.manager),
      notices: this.caps.notices,
      compaction: this.caps.compaction,
      extensions: this.caps.extensions,
      usageBase: replay ? ZERO_USAGE : s.state.usage,
    });
    this.mapper = mapper;
    const asked = new Map<string, EventData<'permission_requested'>>();
    let chunksSinceMessage = false;
    const sub = s.subscribe(
      (e) => {
        const isReplay = e.seq <= liveFrom;
        if (isReplay && replay) {
          // The history shows each finished reply once: its chunks were left out of the replay (never read).
          if (e.type === 'message_chunk') chunksSinceMessage = true;
          else if (e.type === 'message' || e.type === 'turn_start') {
            const m = e.type === 'message' ? e.data.message : undefined;
            if (m?.role === 'assistant' && m.text && !chunksSinceMessage) {
              this.send(mapper, { seq: e.seq, sessionId: e.sessionId, ts: e.ts, type: 'message_chunk', data: { turnId: e.data.turnId, text: m.text } }, true);
            }
            chunksSinceMessage = false;
          }
        }
        this.send(mapper, e, isReplay);
        if (terminals && !isReplay) mirror(terminals, e);
        if (e.type === 'permission_requested') {
          if (isReplay) asked.set(e.data.requestId, e.data);
          else this.ask(e.data);
        } else if (e.type === 'permission_resolved' && !isReplay) {
          this.questions.get(e.data.requestId)?.abort(); // settled elsewhere: withdraw our prompt
          this.questions.delete(e.data.requestId);
        } else if (e.type === 'turn_end' && !isReplay) {
          for (const q of this.questions.values()) q.abort();
          this.questions.clear();
        }
      },
      replay ? 0 : undefined,
      { ...(this.ctx.backpressure ? { pace: this.ctx.backpressure } : {}), ...(replay ? { omitRepeatedChunks: true } : {}) },
    );
    this.off = sub;
    // A permission still pending from before this client came: ask it too, once it knows the session.
    this.replayed = sub.caughtUp.then(() => {
      const pending = s.pendingPermissions().flatMap((id) => asked.get(id) ?? []);
      if (pending.length) setImmediate(() => pending.forEach((d) => this.ask(d)));
    });
    this.attachment?.detach();
    const fs = this.caps.fs;
    this.attachment = s.attach({
      clientId: this.clientId,
      ...(fs.read || fs.write ? { files: clientFiles(this.ctx, s.id, fs, (method) => this.sayDiskFallback(method)) } : {}),
      ...(fs.write && fs.reviewsWrites ? { reviewsWrites: true } : {}),
      mcpServers: mcpServers.map((p) => toSpec(p, s.state.cwd)),
    });
  }

  /**
   * Starts this client's prompt as the session's next turn: the core queues it behind a running
   * one (ACP v1 has no busy answer), or answers 'cancelled' when Stop withdrew it while it waited.
   */
  async startTurn(text: string, extras: Pick<TurnOptions, 'mentions' | 'images'> = {}): Promise<StartedTurn | 'cancelled'> {
    const started = await this.session.startTurn(text, { origin: this.clientId, queue: true, ...extras });
    if (started !== 'cancelled') this.myTurnId = started.turnId;
    return started;
  }

  /** Stop: this client's waiting prompt, else its running turn, else whatever turn runs (it loaded one mid-turn). */
  cancel(): void {
    if (this.session.withdrawQueued(this.clientId)) return;
    this.cancelRunning();
  }

  /** The running turn, when it is this client's (or it started none here). */
  private cancelRunning(): void {
    const running = this.session.runningTurnId;
    if (running && (running === this.myTurnId || this.myTurnId === undefined)) this.session.cancel();
  }

  /** Cancels only what this client started: closing one client's thread never stops another's turn. */
  cancelOwn(): void {
    this.session.withdrawQueued(this.clientId);
    if (this.session.runningTurnId !== undefined && this.session.runningTurnId === this.myTurnId) this.session.cancel();
  }

  /** Once per link: the editor missed a file request's deadline, so ferret works on disk from now on. */
  private sayDiskFallback(method: string): void {
    const text = `The editor did not answer ${method} within ${seconds(this.ctx.clientTimeoutMs)} s, so ferret reads and writes files on disk itself for the rest of this session.`;
    this.ctx.logger.warn({ sessionId: this.session.id, method }, 'editor missed a file request deadline; using the disk');
    const update = this.caps.notices
      ? { sessionUpdate: 'notice' as const, severity: 'warning' as const, title: text }
      : { sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text: `\n\n_${text}_\n\n` } };
    this.ctx.notify('session/update', { sessionId: this.session.id, update });
  }

  private ask(d: EventData<'permission_requested'>): void {
    const q = new AbortController();
    this.questions.set(d.requestId, q);
    const card = this.mapper?.card(d) ?? { title: d.tool, kind: 'other' as const, content: [] };
    // A `cancelled` answer stops the turn the question belongs to, when this client may stop it.
    askPermission(this.ctx, this.session, d, card, () => this.cancelRunning(), q.signal);
  }

  private send(mapper: UpdateMapper, e: SessionEvent, replay: boolean): void {
    // The user's own words (and images) are already in its editor; a turn from elsewhere (or a replay) shows them.
    if (e.type === 'turn_start') this.lastTurnOwn = e.data.origin === this.clientId ? e.data.turnId : undefined;
    const own = (e.type === 'turn_start' && e.data.origin === this.clientId) || (e.type === 'message' && e.data.turnId === this.lastTurnOwn);
    const showUser = replay || !own;
    for (const out of mapper.map(e, showUser)) {
      if ('update' in out && this.ctx.legacyUpdates && NEWER_THAN_0_4.has(out.update.sessionUpdate)) continue;
      if ('update' in out) this.ctx.notify('session/update', { sessionId: this.session.id, update: out.update });
      else this.ctx.notify(out.ext, out.params);
    }
  }

  /**
   * Detaches: stops the stream, gives the file seam back, closes this client's MCP servers. A
   * prompt still waiting for its turn is withdrawn (its client is gone: nobody would see it run);
   * a turn it already started runs on, as a closed stdin never stops a turn.
   */
  close(): void {
    this.session.withdrawQueued(this.clientId);
    this.off?.();
    this.off = undefined;
    for (const q of this.questions.values()) q.abort();
    this.questions.clear();
    this.attachment?.detach();
    this.attachment = undefined;
    this.terminals?.close();
    this.terminals = undefined;
  }
}

/** A live event's part in the client's terminals: a bash call that runs gets one, its output fills it, its end releases it. */
function mirror(t: TerminalMirror, e: SessionEvent): void {
  if (e.type === 'tool_call_start') t.announce(e.data.callId, e.data.tool, e.data.args);
  else if (e.type === 'tool_call_running') t.running(e.data.callId);
  else if (e.type === 'tool_call_progress') t.write(e.data.callId, e.data.text);
  else if (e.type === 'tool_call_end') t.end(e.data.callId);
}
