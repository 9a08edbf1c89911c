import { ZERO_USAGE, type EventData, type FileAccess, type Session, type SessionEvent, type SessionManager } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';
import { clientFiles, type FsCaps } from './client-files.js';
import { McpAttachment } from './mcp-servers.js';
import type { McpServerParam } from './params.js';
import { askPermission } from './permission.js';
import { configOptions } from './session-config.js';
import { UpdateMapper } from './updates.js';

export interface LinkCaps {
  fs: FsCaps;
  notices: boolean;
}

/**
 * One v1 client attached to one session: streams its events as `session/update`s, forwards
 * permission requests, serves files through the editor, and owns the MCP servers it asked for.
 */
export class SessionLink {
  private off: (() => void) | undefined;
  private ownTurn = false;
  /** The turn this client started, so Stop and close touch only that one. */
  private myTurnId: string | undefined;
  /** This client's prompt while it waits to start (MCP servers connecting, another turn running). */
  private waiting: AbortController | undefined;
  /** Permission prompts shown to this client, withdrawn when settled elsewhere or the turn ends. */
  private readonly questions = new Map<string, AbortController>();
  private lastError: string | undefined;
  private files: FileAccess | undefined;
  private previousFiles: FileAccess | undefined;
  readonly mcp: McpAttachment;

  constructor(
    private readonly ctx: DialectContext,
    readonly session: Session,
    private readonly manager: SessionManager,
    private readonly caps: LinkCaps,
  ) {
    this.mcp = new McpAttachment(ctx, session);
  }

  /** Subscribes; with `replay` the whole history goes out first (session/load), with final statuses. */
  attach(replay: boolean, mcpServers: McpServerParam[]): void {
    this.off?.();
    const s = this.session;
    const liveFrom = replay ? s.lastSeq : -1;
    const mapper = new UpdateMapper({
      config: () => configOptions(s, this.manager),
      notices: this.caps.notices,
      usageBase: replay ? ZERO_USAGE : s.state.usage,
    });
    const asked = new Map<string, EventData<'permission_requested'>>();
    this.off = s.subscribe(
      (e) => {
        const isReplay = e.seq <= liveFrom;
        this.send(mapper, e, isReplay);
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
    );
    // A permission still pending from before this client came: ask it too, once it knows the session.
    const pending = s.permissions.ids().flatMap((id) => asked.get(id) ?? []);
    if (pending.length) setImmediate(() => pending.forEach((d) => this.ask(d)));
    this.installFiles();
    this.mcp.connect(mcpServers);
  }

  /**
   * Starts this client's prompt as the session's next turn (turns are serialized per session),
   * or answers 'cancelled' when the client pressed Stop while the prompt was still waiting.
   */
  async startTurn(text: string): Promise<{ turnId: string; done: Promise<unknown> } | 'cancelled'> {
    const waiting = new AbortController();
    this.waiting = waiting;
    try {
      await untilAborted(this.mcp.ready, waiting.signal);
      for (;;) {
        if (waiting.signal.aborted) return 'cancelled';
        if (this.session.status === 'running') {
          await untilAborted(this.session.settled(), waiting.signal); // a cancelled (or another client's) turn unwinds first
          continue;
        }
        this.ownTurn = true;
        try {
          const started = this.session.startTurn(text);
          this.myTurnId = started.turnId;
          return started;
        } finally {
          this.ownTurn = false;
        }
      }
    } finally {
      if (this.waiting === waiting) this.waiting = undefined;
    }
  }

  /** Stop: this client's waiting prompt, else its running turn, else whatever turn runs (it loaded one mid-turn). */
  cancel(): void {
    if (this.waiting) return this.waiting.abort();
    const running = this.session.runningTurnId;
    if (running && (running === this.myTurnId || this.myTurnId === undefined)) this.session.cancel();
  }

  /** Cancels only what this client started: closing one client's thread never stops another's turn. */
  cancelOwn(): void {
    this.waiting?.abort();
    if (this.session.runningTurnId !== undefined && this.session.runningTurnId === this.myTurnId) this.session.cancel();
  }

  private ask(d: EventData<'permission_requested'>): void {
    const q = new AbortController();
    this.questions.set(d.requestId, q);
    askPermission(this.ctx, this.session, d, q.signal);
  }

  /** The last error notice of the current turn, for a prompt that ends with stop reason `error`. */
  get turnError(): string | undefined {
    return this.lastError;
  }

  private send(mapper: UpdateMapper, e: SessionEvent, replay: boolean): void {
    if (e.type === 'turn_start' && !replay) this.lastError = undefined;
    if (e.type === 'notice' && e.data.level === 'error' && !replay) this.lastError = e.data.text;
    const showUser = replay || !this.ownTurn;
    for (const out of mapper.map(e, showUser)) {
      if ('update' in out) this.ctx.notify('session/update', { sessionId: this.session.id, update: out.update });
      else this.ctx.notify(out.ext, out.params);
    }
  }

  private installFiles(): void {
    if (this.files || (!this.caps.fs.read && !this.caps.fs.write)) return;
    this.previousFiles = this.session.files;
    this.files = clientFiles(this.ctx, this.session.id, this.caps.fs, this.previousFiles);
    this.session.files = this.files;
  }

  /** Detaches: stops the stream, gives the file seam back, closes this client's MCP servers. */
  close(): void {
    this.off?.();
    this.off = undefined;
    for (const q of this.questions.values()) q.abort();
    this.questions.clear();
    if (this.files && this.session.files === this.files && this.previousFiles) this.session.files = this.previousFiles;
    this.files = undefined;
    this.mcp.close();
  }
}

/** Resolves when `p` settles or `signal` aborts, whichever comes first. */
function untilAborted(p: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}
