import type { SessionConfigOption, SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { EventData, SessionEvent, ToolStatus, Usage } from '../../../core/index.js';
import { META_NS } from './session-config.js';
import { TaskProgress } from './task-progress.js';

/** One frame for the client: a standard `session/update`, or a `_ferret/...` extension notification. */
export type Outbound = { update: SessionUpdate } | { ext: string; params: Record<string, unknown> };

export interface MapperOptions {
  /** The complete config option list, for config_option_update. */
  config: () => SessionConfigOption[];
  /** Client advertised `session.notices`. */
  notices: boolean;
  /** Client advertised `session.compaction`: compactions go out as `compaction_update`. */
  compaction?: boolean;
  /** The `_ferret/...` extension notifications the client advertised it wants; others are not sent. */
  extensions: ReadonlySet<string>;
  /** Usage totals already reported to this client (a live attach starts from the session's). */
  usageBase: Usage;
  /** The client's terminal that shows a call's output live (terminal-mirror.ts); its content is that terminal. */
  terminalOf?: (callId: string) => string | undefined;
}

/** Tool output shown in a live update is the tail, so a chatty command does not flood the editor. */
const LIVE_OUTPUT_CAP = 64 * 1024;

const STATUS: Record<ToolStatus, ToolCallStatus> = { completed: 'completed', failed: 'failed', denied: 'failed', cancelled: 'failed' };

const text = (t: string): ToolCallContent => ({ type: 'content', content: { type: 'text', text: t } });
const fence = (t: string): string => `\`\`\`\n${t.replace(/\n$/, '')}\n\`\`\``;
const tail = (t: string): string => (t.length > LIVE_OUTPUT_CAP ? `…${t.slice(-LIVE_OUTPUT_CAP)}` : t);

interface CallState {
  title: string;
  tool: string;
  kind: ToolKind;
  /** The files the card points at, as last announced: its permission question names them too. */
  locations: ToolCallLocation[];
  output: string;
  edited: boolean;
  /** Every file this call changed so far: `content` replaces the client's list, so each update carries them all (a patch of three files). */
  diffs?: ToolCallContent[];
  /** The diff a pending edit would make (its permission question), until the edit lands. */
  proposed?: ToolCallContent;
  /** A person's answer to its question: a refused call's card says so in their words. */
  decision?: string;
}

/** The card a permission question shows: the call's own title, kind and what is asked (ACP `ToolCallUpdate`). */
export interface Card {
  title: string;
  kind: ToolKind;
  content: ToolCallContent[];
  /** Absent when the call names no file. CodeCompanion takes the file of a question from here. */
  locations?: ToolCallLocation[];
}

/** The question's risk and reason, as a line a person reads on the card. */
const askLine = (d: EventData<'permission_requested'>): string => `Needs your approval (${d.risk} risk): ${d.reason}`;

/** What a person reads on a refused or stopped card; the model's own instruction stays in its history. */
function shownEnd(d: EventData<'tool_call_end'>, c: CallState | undefined): string | undefined {
  if (d.status === 'denied' && (c?.decision === 'deny' || c?.decision === 'never')) {
    return c.decision === 'never' ? `You rejected this ${c.tool} call and chose never to allow it.` : `You rejected this ${c.tool} call.`;
  }
  return undefined;
}

/**
 * Core events → ACP v1 updates for one client of one session. It remembers which tool calls it
 * announced, so `tool_call` goes out once per id and everything after is a `tool_call_update`.
 */
export class UpdateMapper {
  private readonly calls = new Map<string, CallState>();
  private usage: Usage;
  /** The context size the last usage_update reported (a side call repeats it). */
  private lastUsed = 0;
  /** What each running `task` call's card shows of its subagent. */
  private readonly tasks = new TaskProgress();

  constructor(private readonly opts: MapperOptions) {
    this.usage = { ...opts.usageBase };
  }

  /** `showUser`: echo the user's text (history replay, or a turn another client started). */
  map(e: SessionEvent, showUser: boolean): Outbound[] {
    switch (e.type) {
      case 'turn_start':
        // An image-only prompt has no text to show (its images follow from its message).
        // Who sent it (a bot's x-ferret-client name, another console, an editor), for shared sessions.
        return showUser && e.data.text !== ''
          ? [{ update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: e.data.text }, ...(e.data.origin !== undefined ? { _meta: { [META_NS]: { origin: e.data.origin } } } : {}) } }]
          : [];
      case 'message_chunk':
        return [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.data.text } } }];
      case 'reasoning_chunk':
        return [{ update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.data.text } } }];
      case 'tool_call_start': {
        const out = this.start(e.data);
        const parent = e.data.parentCallId;
        if (parent === undefined) return out;
        this.tasks.started(parent, e.data.callId, e.data.title);
        return [...out, ...this.taskCard(parent)];
      }
      case 'subagent_chunk':
        // The child's reasoning stays out of the card; its words go on it.
        if (e.data.thought) return [];
        this.tasks.said(e.data.parentCallId, e.data.text);
        return this.taskCard(e.data.parentCallId);
      case 'tool_call_running':
        return this.patch(e.data.callId, { status: 'in_progress' });
      case 'tool_call_progress': {
        const c = this.calls.get(e.data.callId);
        if (!c) return [];
        c.output = tail(c.output + e.data.text);
        if (this.opts.terminalOf?.(e.data.callId) !== undefined) return []; // the client's terminal shows it
        return this.patch(e.data.callId, { content: [text(fence(c.output))] });
      }
      case 'file_edit': {
        const c = this.calls.get(e.data.callId);
        // ACP's diff has no delete or move: a deleted file is a diff to empty text, a moved one a diff at its new path; _meta says which.
        const d = e.data;
        const how = d.changeKind === 'delete' || d.changeKind === 'move' ? { _meta: { [META_NS]: { changeKind: d.changeKind, ...(d.movedFrom !== undefined ? { movedFrom: d.movedFrom } : {}) } } } : {};
        const diff: ToolCallContent = { type: 'diff', path: d.path, oldText: d.oldText, newText: d.newText, ...how };
        if (!c) return [];
        c.edited = true;
        c.diffs = [...(c.diffs ?? []), diff];
        return this.patch(e.data.callId, { content: c.diffs, locations: c.diffs.map((d) => ({ path: (d as { path: string }).path })) });
      }
      case 'file_open':
        if (!e.data.callId || !this.calls.has(e.data.callId)) return [];
        return this.patch(e.data.callId, { locations: [{ path: e.data.path, ...(e.data.line !== undefined ? { line: e.data.line } : {}) }] });
      case 'tool_call_end': {
        const out = [this.end(e.data)];
        const parent = e.data.parentCallId;
        if (parent === undefined) {
          this.tasks.done(e.data.callId);
          return out;
        }
        this.tasks.ended(parent, e.data.callId, e.data.status);
        return [...out, ...this.taskCard(parent)];
      }
      case 'permission_requested': {
        const { requestId, risk, reason, rule } = e.data;
        const c = this.calls.get(e.data.callId);
        if (c && e.data.edit) c.proposed = { type: 'diff', path: e.data.edit.path, oldText: e.data.edit.oldText, newText: e.data.edit.newText };
        // Still `pending` (it was announced so): the status only moves forward, to in_progress when it runs.
        // The card shows the proposed diff and why it asks, where clients look (not only in _meta).
        const meta = { _meta: { [META_NS]: { permission: { requestId, risk, reason, ...(rule ? { rule } : {}) } } } };
        return this.patch(e.data.callId, { content: this.card(e.data).content, ...meta });
      }
      case 'permission_resolved': {
        const c = this.calls.get(e.data.callId);
        if (c) c.decision = e.data.decision;
        return this.patch(e.data.callId, { _meta: { [META_NS]: { permission: { requestId: e.data.requestId, decision: e.data.decision, by: e.data.by } } } });
      }
      case 'sandbox_violation': {
        const v = { tool: e.data.tool, mode: e.data.mode, reason: e.data.reason, ...(e.data.path ? { path: e.data.path } : {}) };
        if (e.data.callId && this.calls.has(e.data.callId)) return this.patch(e.data.callId, { _meta: { [META_NS]: { sandboxViolation: v } } });
        return this.ext('_ferret/sandbox_violation', { sessionId: e.sessionId, ...v });
      }
      case 'cost_update':
        return this.usageUpdate(e.data);
      case 'mode_changed':
        return [
          { update: { sessionUpdate: 'current_mode_update', currentModeId: e.data.new } },
          { update: { sessionUpdate: 'config_option_update', configOptions: this.opts.config() } },
        ];
      case 'model_changed':
      case 'reasoning_changed':
      case 'approval_changed':
        return [{ update: { sessionUpdate: 'config_option_update', configOptions: this.opts.config() } }];
      case 'notice':
        if (this.opts.notices) return [{ update: { sessionUpdate: 'notice', severity: e.data.level, title: e.data.text || '(empty notice)' } }];
        return this.ext('_ferret/notice', { sessionId: e.sessionId, level: e.data.level, text: e.data.text });
      case 'turn_end':
        return this.ext('_ferret/turn_end', { sessionId: e.sessionId, turnId: e.data.turnId, stopReason: e.data.stopReason });
      case 'history_compacted':
        return this.compacted(e.seq, e.data);
      case 'plan_updated':
        // The whole list each time: a client replaces the plan it shows (ACP's rule for `plan`).
        return [{ update: { sessionUpdate: 'plan', entries: e.data.entries.map((p) => ({ content: p.content, priority: p.priority, status: p.status })) } }];
      case 'session_info':
        return [{ update: { sessionUpdate: 'session_info_update', title: e.data.title, updatedAt: new Date(e.ts).toISOString() } }];
      case 'checkpoint':
        // ACP has no checkpoint update: an extension notification, which clients that do not know it ignore.
        return this.ext('_ferret/checkpoint', { sessionId: e.sessionId, turnId: e.data.turnId, stage: e.data.stage });
      case 'rewound':
        return this.ext('_ferret/rewound', { sessionId: e.sessionId, op: e.data.op, mode: e.data.mode, turnId: e.data.turnId, turns: e.data.turns, files: e.data.code?.files ?? [] });
      case 'message': {
        // The person's images, once, from the message that keeps them (turn_start carried the text).
        const m = e.data.message;
        if (!showUser || m.role !== 'user' || !m.images?.length) return [];
        return m.images.map((im) => ({
          update: { sessionUpdate: 'user_message_chunk', content: { type: 'image', data: im.data, mimeType: im.mimeType, ...(im.name && /^[a-z][a-z0-9+.-]*:/i.test(im.name) ? { uri: im.name } : {}) } },
        }));
      }
      case 'session_created':
        return [];
      // Background processes: ACP has no update for a process that outlives its call; ferret's extension says it.
      case 'process_started':
        return this.ext('_ferret/process_started', { sessionId: e.sessionId, processId: e.data.processId, command: e.data.command, ...(e.data.callId ? { callId: e.data.callId } : {}) });
      case 'process_output':
        return this.ext('_ferret/process_output', { sessionId: e.sessionId, processId: e.data.processId, stream: e.data.stream, text: e.data.text });
      case 'process_exited':
        return this.ext('_ferret/process_exited', { sessionId: e.sessionId, processId: e.data.processId, exitCode: e.data.exitCode, reason: e.data.reason, ...(e.data.signal ? { signal: e.data.signal } : {}) });
    }
  }

  /** A task call's card, showing its subagent's progress. */
  private taskCard(parentCallId: string): Outbound[] {
    return this.patch(parentCallId, { content: [text(this.tasks.render(parentCallId))] });
  }

  /** A compaction, finished, for a client that shows them (others saw the notice that says it happened). */
  private compacted(seq: number, d: EventData<'history_compacted'>): Outbound[] {
    if (!this.opts.compaction) return [];
    const freed = d.tokensBefore !== undefined && d.tokensAfter !== undefined ? ` (about ${d.tokensBefore - d.tokensAfter} tokens freed)` : '';
    const said = d.summary ?? `Cleared the output of ${d.pruned?.length ?? 0} older tool results${freed}.`;
    return [{ update: { sessionUpdate: 'compaction_update', compactionId: `compaction-${seq}`, status: 'completed', summary: [{ type: 'text', text: said }] } }];
  }

  /** An extension notification, only to a client that asked for it (others show unknown methods as noise). */
  private ext(name: string, params: Record<string, unknown>): Outbound[] {
    return this.opts.extensions.has(name) ? [{ ext: name, params }] : [];
  }

  private start(d: EventData<'tool_call_start'>): Outbound[] {
    const known = this.calls.get(d.callId);
    if (known) {
      known.title = d.title;
      known.locations = d.locations;
      return this.patch(d.callId, { title: d.title, locations: d.locations });
    }
    this.calls.set(d.callId, { title: d.title, tool: d.tool, kind: d.kind, locations: d.locations, output: '', edited: false });
    return [{
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: d.callId,
        title: d.title,
        kind: d.kind,
        status: 'pending',
        locations: d.locations,
        rawInput: d.args,
        // The tool's name (not a field of ACP's tool_call); a subagent's call names the task call it belongs to.
        _meta: { [META_NS]: { tool: d.tool, ...(d.parentCallId !== undefined ? { parentToolCallId: d.parentCallId } : {}) } },
      },
    }];
  }

  /** The permission card of a call: its title and kind as announced, the proposed diff, and why it asks. */
  card(d: EventData<'permission_requested'>): Card {
    const c = this.calls.get(d.callId);
    return {
      title: c?.title ?? d.tool,
      kind: c?.kind ?? 'other',
      content: [...(c?.proposed ? [c.proposed] : []), text(askLine(d))],
      ...(c && c.locations.length > 0 ? { locations: c.locations } : {}),
    };
  }

  private end(d: EventData<'tool_call_end'>): Outbound {
    const c = this.calls.get(d.callId);
    const status = STATUS[d.status];
    const rawOutput = { status: d.status, durationMs: d.durationMs, ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}), ...(d.capReached ? { capReached: true } : {}) };
    // `content` replaces the card's list: a finished edit keeps its diffs (clients would show a bare "completed").
    const keepDiff = c?.edited === true && d.status === 'completed' && c.diffs !== undefined;
    const shown = shownEnd(d, c);
    const body = shown ?? (c?.kind === 'execute' ? fence(tail(d.output)) : tail(d.output));
    // A command shown in the client's terminal stays shown there (the client keeps a released terminal's output).
    const terminalId = this.opts.terminalOf?.(d.callId);
    const content: { content?: ToolCallContent[] } =
      terminalId !== undefined ? { content: [{ type: 'terminal', terminalId }] } : keepDiff ? { content: c.diffs } : d.output === '' && shown === undefined ? {} : { content: [text(body)] };
    const fields = { status, rawOutput, ...content, _meta: { [META_NS]: { status: d.status, tool: d.tool } } };
    if (!c) {
      // Never announced (a log that starts mid-call): announce it now, already finished.
      this.calls.set(d.callId, { title: d.tool, tool: d.tool, kind: 'other', locations: [], output: '', edited: false });
      return { update: { sessionUpdate: 'tool_call', toolCallId: d.callId, title: d.tool, kind: 'other', ...fields } };
    }
    return { update: { sessionUpdate: 'tool_call_update', toolCallId: d.callId, ...fields } };
  }

  /** An update for an announced call; none for an id this client never saw (Zed shows those as errors). */
  private patch(toolCallId: string, fields: Omit<Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>, 'sessionUpdate' | 'toolCallId'>): Outbound[] {
    if (!this.calls.has(toolCallId)) return [];
    return [{ update: { sessionUpdate: 'tool_call_update', toolCallId, ...fields } }];
  }

  /**
   * `used` = the last model call's context (its input, cached input and output); cost is the session
   * total. `size` is required and a made-up one would draw a wrong meter, so a model whose window is
   * unknown gets no usage_update (the totals are still counted for the next one).
   */
  private usageUpdate(d: EventData<'cost_update'>): Outbound[] {
    const prev = this.usage;
    // A side call (the title) or a subagent's adds cost but is not the conversation's size: the meter keeps its last reading.
    const used = d.side || d.parentCallId !== undefined
      ? this.lastUsed
      : d.call
        ? d.call.input + d.call.cache + d.call.output
        : Math.max(0, d.input - prev.input + (d.cache - prev.cache) + (d.output - prev.output));
    this.lastUsed = used;
    this.usage = { input: d.input, output: d.output, cache: d.cache, reasoning: d.reasoning };
    if (d.contextWindow === undefined) return [];
    const update: SessionUpdate = {
      sessionUpdate: 'usage_update',
      used: Math.round(used),
      size: d.contextWindow,
      cost: { amount: d.totalUsd, currency: 'USD' },
      _meta: { [META_NS]: { input: d.input, output: d.output, cache: d.cache, reasoning: d.reasoning, totalUsd: d.totalUsd } },
    };
    return [{ update }];
  }
}
