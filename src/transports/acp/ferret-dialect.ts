import { z } from 'zod';
import {
  AgentModeSchema,
  lazySchema,
  ApprovalPresetSchema,
  DecisionSchema,
  ReasoningEffortSchema,
  SandboxModeSchema,
  type SessionHandle,
  type Subscription,
} from '../../core/index.js';
import type { Dialect, DialectContext } from './dialect.js';
import { toFerretUpdate } from '../../core/index.js';
import { JSONRPC_METHOD_NOT_FOUND, parseParams, RpcError } from './jsonrpc.js';

const SessionId = lazySchema(() => z.string().min(1));
const P = {
  initialize: lazySchema(() => z.object({ protocolVersion: z.string().optional() }).loose()),
  new: lazySchema(() => z.object({
    cwd: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    mode: AgentModeSchema.optional(),
    approval: ApprovalPresetSchema.optional(),
  })),
  load: lazySchema(() => z.object({ sessionId: SessionId })),
  list: lazySchema(() => z.object({ cursor: z.string().optional(), limit: z.number().int().positive().max(10_000).optional(), cwd: z.string().optional() }).loose()),
  message: lazySchema(() =>
    z.object({
      sessionId: SessionId,
      text: z.string(),
      images: z.array(z.object({ data: z.string().min(1), mimeType: z.string().optional() })).optional(),
      mentions: z.array(z.object({ uri: z.string().min(1), name: z.string().optional() })).optional(),
    }),
  ),
  cancel: lazySchema(() => z.object({ sessionId: SessionId })),
  setMode: lazySchema(() => z.object({ sessionId: SessionId, mode: AgentModeSchema })),
  setModel: lazySchema(() => z.object({ sessionId: SessionId, model: z.string().min(1) })),
  setReasoning: lazySchema(() => z.object({ sessionId: SessionId, effort: ReasoningEffortSchema })),
  setSandbox: lazySchema(() => z.object({ sessionId: SessionId, mode: SandboxModeSchema.optional() })),
  setApproval: lazySchema(() => z.object({ sessionId: SessionId, preset: ApprovalPresetSchema })),
  bridgeStatus: lazySchema(() => z.object({ sessionId: SessionId })),
  commands: lazySchema(() => z.object({ sessionId: SessionId })),
  respond: lazySchema(() => z.object({ sessionId: SessionId, id: z.string().min(1), decision: DecisionSchema })),
};

export const FERRET_PROTOCOL_VERSION = '0.2';

/** ide.md's dialect: one wire request → one core call; notifications flattened with `kind`. */
export class FerretDialect implements Dialect {
  private readonly attached = new Map<string, () => void>();

  constructor(private readonly ctx: DialectContext) {}

  async initialize(params: unknown): Promise<unknown> {
    parseParams(P.initialize, params);
    return {
      protocolVersion: FERRET_PROTOCOL_VERSION,
      capabilities: { sandbox: true, approval: true, streaming: true, cancellation: true, bridge: this.ctx.manager.bridgeStatus().relay !== null },
      serverInfo: { name: 'ferret', version: this.ctx.version },
    };
  }

  async request(method: string, params: unknown): Promise<unknown> {
    const m = this.ctx.manager;
    switch (method) {
      case 'session/new': {
        const p = parseParams(P.new, params);
        const s = m.create(p);
        this.attach(s);
        await s.stored(); // in a fleet, another server may be asked about it next
        return this.describe(s);
      }
      case 'session/load': {
        const p = parseParams(P.load, params);
        const s = await m.open(p.sessionId);
        // The history goes out first, read from the log in chunks paced by the client's pipe.
        await this.attach(s, 0, true).caughtUp;
        return this.describe(s);
      }
      case 'session/list': {
        const p = parseParams(P.list, params);
        return m.list({ cursor: p.cursor, limit: p.limit, cwd: p.cwd });
      }
      case 'session/message': {
        const p = parseParams(P.message, params);
        const s = this.session(p.sessionId);
        const { done } = s.startTurn(p.text, { origin: `acp:${this.ctx.connectionId}`, ...(p.images?.length ? { images: p.images } : {}), ...(p.mentions?.length ? { mentions: p.mentions } : {}) });
        return done;
      }
      case 'session/cancel': {
        const p = parseParams(P.cancel, params);
        this.session(p.sessionId).cancel();
        return { ok: true };
      }
      case 'session/setMode': {
        const p = parseParams(P.setMode, params);
        return { mode: this.session(p.sessionId).setMode(p.mode) };
      }
      case 'session/setModel': {
        const p = parseParams(P.setModel, params);
        return { model: this.session(p.sessionId).setModel(p.model) };
      }
      case 'session/setReasoning': {
        const p = parseParams(P.setReasoning, params);
        return { reasoning: this.session(p.sessionId).setReasoning(p.effort) };
      }
      case 'session/setSandbox': {
        const p = parseParams(P.setSandbox, params);
        const current = this.session(p.sessionId).state.sandbox;
        if (p.mode === undefined || p.mode === current) return { mode: current };
        return {
          mode: current,
          changed: false,
          restartRequired: true,
          message: `restart required: the sandbox is fixed for the life of the server; restart ferret with --sandbox ${p.mode}`,
        };
      }
      case 'session/setApproval': {
        const p = parseParams(P.setApproval, params);
        return this.session(p.sessionId).setApproval(p.preset);
      }
      case 'session/bridgeStatus': {
        const p = parseParams(P.bridgeStatus, params);
        this.session(p.sessionId);
        return m.bridgeStatus();
      }
      case 'session/commands': {
        // The `/` menu: the built-ins, then the workspace's and the person's command files (read now).
        const p = parseParams(P.commands, params);
        return { commands: m.slashCommands(this.session(p.sessionId).state.cwd) };
      }
      case 'permission/respond': {
        const p = parseParams(P.respond, params);
        this.session(p.sessionId).respondPermission(p.id, p.decision, `acp:${this.ctx.connectionId}`);
        return { ok: true };
      }
      default:
        throw new RpcError(JSONRPC_METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  notification(method: string, params: unknown): void {
    // ide.md has no client→server notifications; a cancel sent as one is still honoured.
    if (method === 'session/cancel') {
      const p = P.cancel.safeParse(params);
      // Opened ahead (the connection's preload): a session not in memory runs no turn to cancel.
      if (p.success) this.ctx.manager.peek(p.data.sessionId)?.cancel();
    }
  }

  close(): void {
    for (const off of this.attached.values()) off();
    this.attached.clear();
  }

  private session(id: string): SessionHandle {
    const s = this.ctx.manager.get(id);
    if (!this.attached.has(id)) this.attach(s);
    return s;
  }

  /**
   * Subscribe this connection; with a replay point the history is sent first, marked as replay.
   * A whole history (session/load) shows each finished reply once, as one agent_message_chunk
   * with the reply's text, instead of the chunks it streamed in (which are not even read).
   */
  private attach(s: SessionHandle, replayAfter?: number, history = false): Subscription {
    this.attached.get(s.id)?.();
    const liveFrom = s.lastSeq;
    let chunksSinceMessage = false;
    const sub = s.subscribe(
      (e) => {
        const replay = e.seq <= liveFrom;
        // A replayed request already answered would look live; only still-pending ones are re-sent.
        if (replay && e.type === 'permission_requested' && !s.pendingPermissions().includes(e.data.requestId)) return;
        if (history && replay) {
          if (e.type === 'message_chunk') chunksSinceMessage = true;
          else if (e.type === 'message' || e.type === 'turn_start') {
            const m = e.type === 'message' ? e.data.message : undefined;
            // Its chunks were left out of the replay: the reply's text stands for them.
            if (m?.role === 'assistant' && m.text && !chunksSinceMessage) {
              this.ctx.notify('session/update', { sessionId: s.id, seq: e.seq, kind: 'agent_message_chunk', text: m.text });
            }
            chunksSinceMessage = false;
          }
        }
        const u = toFerretUpdate(e, replay);
        if (u) this.ctx.notify('session/update', u);
      },
      replayAfter ?? liveFrom,
      { ...(this.ctx.backpressure ? { pace: this.ctx.backpressure } : {}), ...(history ? { omitRepeatedChunks: true } : {}) },
    );
    this.attached.set(s.id, sub);
    return sub;
  }

  private describe(s: SessionHandle) {
    const st = s.state;
    return { sessionId: s.id, mode: st.mode, model: st.model, sandbox: st.sandbox, approval: st.approval, cwd: st.cwd };
  }
}
