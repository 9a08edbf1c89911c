// The host a subagent's loop runs on: its own history, usage and read ledger (its own context),
// the parent's workspace, sandbox, approval preset and mode (read live, so a person tightening
// them mid-task tightens the child too), and the parent's permission questions. What it emits
// splits in two: its conversation (messages, turn markers, compactions) stays in this object;
// what a person watches (tool calls, text, permission questions, cost) goes into the parent's
// log under the `task` call, with ids made unique there.
import type { EventDraft, EventOf, FileAccess, SessionEvent } from '../../protocol/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { PromptMemo } from '../prompt/system-prompt.js';
import { emptyState, applyEvent, type SessionState } from '../session-state.js';
import { SessionReadLedger } from '../tool-call/read-ledger.js';
import type { SessionDeps, TurnHost } from '../turn-host.js';

export interface ChildOptions {
  parent: TurnHost;
  /** The parent's `task` call: every forwarded event names it. */
  parentCallId: string;
  model: string;
  tools: ToolRegistry;
  deps: SessionDeps;
  systemPrompt: string;
  files: FileAccess;
  /** Said before a forwarded notice, so a person knows which task it came from. */
  label: string;
}

/** Events whose ids the parent's log must not confuse with its own calls. */
type CallEvent = EventOf<'tool_call_start' | 'tool_call_running' | 'tool_call_progress' | 'tool_call_end' | 'file_edit' | 'file_open' | 'sandbox_violation' | 'permission_requested' | 'permission_resolved'>;

export class ChildHost implements TurnHost {
  readonly state: SessionState;
  readonly promptMemo: PromptMemo;
  readonly readLedger = new SessionReadLedger();
  readonly deps: SessionDeps;
  private seq = 0;
  /** The child's usage already billed to the parent. */
  private billed = { input: 0, output: 0, cache: 0, reasoning: 0, usd: 0 };

  constructor(private readonly o: ChildOptions) {
    const p = o.parent.state;
    const st = emptyState();
    Object.assign(st, { cwd: p.cwd, model: o.model, reasoning: p.reasoning, createdAt: Date.now() });
    if (p.additionalDirectories) st.additionalDirectories = p.additionalDirectories;
    // Read live from the parent: a subagent never has more room than the session it serves.
    for (const k of ['mode', 'sandbox', 'approval'] as const) Object.defineProperty(st, k, { get: () => o.parent.state[k], enumerable: true });
    this.state = st;
    // No checkpoints of its own: the parent's turn recorded the workspace before the task ran (one
    // shadow repository, one writer) and records it again when that turn ends.
    const deps: SessionDeps = { ...o.deps };
    delete deps.checkpointDir;
    this.deps = deps;
    // The system prompt is fixed for the child's life; the parent's environment facts are reused.
    // Its key always matches (a getter), so a mode the person changes mid-task never swaps in the parent's prompt.
    this.promptMemo = { text: o.systemPrompt, instructionChars: 0, ...(o.parent.promptMemo.env ? { env: o.parent.promptMemo.env } : {}) };
    Object.defineProperty(this.promptMemo, 'key', { get: () => `${st.mode}\n${st.model}`, set: () => undefined, enumerable: true });
  }

  get id(): string {
    return this.o.parent.id;
  }

  /** The id a child's call has in the parent's log: under its task call, so two children never collide. */
  callId(childCallId: string): string {
    return `${this.o.parentCallId}:${childCallId}`;
  }

  emit<E extends EventDraft>(draft: E): EventOf<E['type']> {
    const local = { seq: ++this.seq, sessionId: this.id, ts: Date.now(), type: draft.type, data: draft.data } as SessionEvent;
    applyEvent(this.state, local);
    const forwarded = this.forward(local);
    return (forwarded ?? local) as EventOf<E['type']>;
  }

  private forward(e: SessionEvent): SessionEvent | undefined {
    const { parent, parentCallId } = this.o;
    switch (e.type) {
      case 'message_chunk':
        return parent.emit({ type: 'subagent_chunk', data: { parentCallId, text: e.data.text } });
      case 'reasoning_chunk':
        return parent.emit({ type: 'subagent_chunk', data: { parentCallId, text: e.data.text, thought: true } });
      case 'tool_call_start':
      case 'tool_call_running':
      case 'tool_call_progress':
      case 'tool_call_end':
      case 'file_edit':
      case 'file_open':
      case 'sandbox_violation':
      case 'permission_requested':
      case 'permission_resolved':
        return parent.emit(this.renamed(e));
      case 'cost_update':
        return this.bill(e.data);
      case 'notice':
        return parent.emit({ type: 'notice', data: { level: e.data.level, text: `${this.o.label}: ${e.data.text}` } });
      case 'subagent_chunk':
        return parent.emit({ type: 'subagent_chunk', data: e.data });
      // A background process belongs to the session, whoever started it.
      case 'process_started':
      case 'process_output':
      case 'process_exited':
        return parent.emit({ type: e.type, data: e.data } as EventDraft);
      // The child's own conversation: nobody outside it reads these.
      case 'session_created':
      case 'turn_start':
      case 'turn_end':
      case 'message':
      case 'history_compacted':
      case 'plan_updated':
      case 'session_info':
      case 'approval_changed':
      case 'mode_changed':
      case 'model_changed':
      case 'reasoning_changed':
      case 'checkpoint':
      case 'rewound':
        return undefined;
    }
  }

  private renamed(e: CallEvent): EventDraft {
    const data: Record<string, unknown> = { ...e.data, parentCallId: this.o.parentCallId };
    if (typeof data['callId'] === 'string') data['callId'] = this.callId(data['callId']);
    if (typeof data['requestId'] === 'string') data['requestId'] = this.requestId(data['requestId']);
    return { type: e.type, data } as EventDraft;
  }

  /** The runner names a question `perm_<callId>`; the parent's log names it after the renamed call. */
  private requestId(childRequestId: string): string {
    return childRequestId.startsWith('perm_') ? `perm_${this.callId(childRequestId.slice(5))}` : `${this.o.parentCallId}:${childRequestId}`;
  }

  /** The child's new usage, added to the parent's running totals: the person pays for both. */
  private bill(d: EventOf<'cost_update'>['data']): SessionEvent {
    const b = this.billed;
    const add = { input: d.input - b.input, output: d.output - b.output, cache: d.cache - b.cache, reasoning: d.reasoning - b.reasoning, usd: d.totalUsd - b.usd };
    this.billed = { input: d.input, output: d.output, cache: d.cache, reasoning: d.reasoning, usd: d.totalUsd };
    const { parent, parentCallId } = this.o;
    const u = parent.state.usage;
    return parent.emit({
      type: 'cost_update',
      data: {
        input: u.input + add.input,
        output: u.output + add.output,
        cache: u.cache + add.cache,
        reasoning: u.reasoning + add.reasoning,
        totalUsd: parent.state.costUsd + add.usd,
        ...(d.call ? { call: d.call } : {}),
        ...(d.contextWindow ? { contextWindow: d.contextWindow } : {}),
        parentCallId,
      },
    });
  }

  askPermission(requestId: string, signal: AbortSignal) {
    return this.o.parent.askPermission(this.requestId(requestId), signal);
  }

  tools(): ToolRegistry {
    return this.o.tools;
  }

  filesFor(): FileAccess {
    return this.o.files;
  }

  async loadConfigTools(): Promise<void> {}

  // A subagent runs no slash command: the knobs are the person's, on the parent session.
  setApproval(): never {
    throw new Error('a subagent cannot change the approval preset');
  }
  setMode(): never {
    throw new Error('a subagent cannot change the mode');
  }
  setModel(): never {
    throw new Error('a subagent cannot change the model');
  }
  setReasoning(): never {
    throw new Error('a subagent cannot change the reasoning effort');
  }
}
