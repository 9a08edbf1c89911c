import type { ContentBlock, SessionConfigOption, SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { ferretMeta, type FerretToolMeta } from './ferret-meta.js';
import { senderLabel } from './origin.js';

// The chat view's state, built from ACP `session/update`s and the prompt's own answers. Pure (no
// VS Code): the extension feeds it, the webview renders what `view()` returns.

/** v1 has no `cancelled`/`denied` tool status; ferret says which in `_meta["ferret.dev"].status`. */
export type CardStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'denied' | 'cancelled';
export type ReviewState = 'pending' | 'accepted' | 'rejected' | 'withdrawn';

/** A `/` command the agent offers (ACP `available_commands_update`). */
export interface SlashCommand {
  name: string;
  description: string;
  hint?: string;
}

export interface PermissionInfo {
  risk?: string;
  reason?: string;
  /** What the person answered here (allow, always, deny, never), once answered. */
  decision?: string;
}

export interface ToolCard {
  id: string;
  title: string;
  name?: string;
  kind: ToolKind;
  status: CardStatus;
  /** The latest text content (live command output, then the result the model got). */
  output: string;
  /** `label`: the path as the person reads it (workspace-relative). */
  diffs: { path: string; label: string; isNew: boolean }[];
  locations: ToolCallLocation[];
  permission?: PermissionInfo;
  exitCode?: number;
}

export type Entry =
  | { id: string; kind: 'user' | 'agent' | 'thought'; text: string; /** A prompt someone else sent (a bot's name…). */ from?: string }
  | { id: string; kind: 'tool'; card: ToolCard }
  | { id: string; kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string; retry?: string; setting?: string }
  | { id: string; kind: 'plan'; items: PlanItem[] };

/** One step of the agent's plan, as ACP's `plan` update gives it. */
export interface PlanItem {
  text: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority: 'high' | 'medium' | 'low';
}

export interface Usage {
  used: number;
  size: number;
  costUsd?: number;
}

export interface ChatView {
  sessionId?: string;
  title?: string;
  /** A prompt is running (Stop is live). */
  busy: boolean;
  entries: Entry[];
  usage?: Usage;
  config: SessionConfigOption[];
  reviews: Record<string, ReviewState>;
  /** Where the same server also serves HTTP+SSE, when started with --http. */
  httpUrl?: string;
  /** The `/` menu. */
  commands: SlashCommand[];
  /** Messages typed during a turn, sent when it ends. */
  queued: string[];
  /** Edits are written without review until the turn (or the session) ends. */
  acceptAll?: 'turn' | 'session';
  /** How each reviewed path is shown (workspace-relative). */
  labels: Record<string, string>;
  /** Pending edits whose write request still waits (the rest came back after a reload: the turn that made them is over). */
  waiting: string[];
  /** Paths whose edit waits for review in another window on this session (this one only watches). */
  elsewhere: string[];
}

type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

/** Something the extension should do because of an update (never during history replay). */
export type Effect = { kind: 'reveal'; path: string; line?: number };

const FINAL: ReadonlySet<CardStatus> = new Set(['completed', 'failed', 'denied', 'cancelled']);

export class ChatModel {
  private state: ChatView = { busy: false, entries: [], config: [], reviews: {}, labels: {}, commands: [], queued: [], waiting: [], elsewhere: [] };
  private seq = 0;

  /** `relative`: how a path is shown (the extension passes VS Code's workspace-relative form). */
  /** A session/load is replaying history (set by the controller): an editor's prompt may be this person's own. */
  replaying = false;

  constructor(private readonly relative: (path: string) => string = (p) => p) {}

  view(): ChatView {
    return this.state;
  }

  /** A new or loaded session: the transcript starts empty (a load replays it). */
  reset(sessionId: string | undefined, config: SessionConfigOption[] = []): void {
    const httpUrl = this.state.httpUrl;
    this.state = { busy: false, entries: [], config, reviews: {}, labels: {}, commands: [], queued: [], waiting: [], elsewhere: [], ...(sessionId ? { sessionId } : {}), ...(httpUrl ? { httpUrl } : {}) };
  }

  setQueued(texts: string[]): void {
    this.state.queued = [...texts];
  }

  setAcceptAll(scope: 'turn' | 'session' | undefined): void {
    if (scope) this.state.acceptAll = scope;
    else delete this.state.acceptAll;
  }

  setWaiting(paths: string[]): void {
    this.state.waiting = paths;
  }

  /** Whether the list changed (then the chat is drawn again). */
  setElsewhere(paths: string[]): boolean {
    if (paths.join('\0') === this.state.elsewhere.join('\0')) return false;
    this.state.elsewhere = paths;
    return true;
  }

  setHttpUrl(url: string | undefined): void {
    if (url) this.state.httpUrl = url;
    else delete this.state.httpUrl;
  }

  setConfig(options: SessionConfigOption[]): void {
    this.state.config = options;
  }

  addUser(text: string): void {
    this.push({ kind: 'user', text });
  }

  notice(level: 'info' | 'warning' | 'error', text: string): void {
    this.push({ kind: 'notice', level, text });
  }

  turnStarted(): void {
    this.state.busy = true;
  }

  /** The prompt answered. A cancelled turn's unfinished cards are marked cancelled here, as v1 intends. */
  turnEnded(stopReason: string): void {
    this.state.busy = false;
    if (stopReason === 'cancelled') {
      for (const c of this.cards()) if (!FINAL.has(c.status)) c.status = 'cancelled';
      this.notice('info', 'Stopped.');
    } else if (stopReason === 'max_turn_requests') {
      this.notice('warning', 'Stopped: the step limit for one turn was reached.');
    } else if (stopReason !== 'end_turn') {
      this.notice('warning', `Stopped: ${stopReason}.`);
    }
  }

  /**
   * The prompt failed with an error (no model, provider error, server gone): one notice, with
   * Retry when the message that failed is known, and the setting that fixes it when there is one.
   */
  turnFailed(message: string, retry?: string, setting?: string): void {
    this.state.busy = false;
    for (const c of this.cards()) if (!FINAL.has(c.status)) c.status = 'failed';
    this.push({ kind: 'notice', level: 'error', text: message, ...(retry !== undefined ? { retry } : {}), ...(setting ? { setting } : {}) });
  }

  /** The person's answer to a permission request, shown on the card before the server reacts. */
  recordDecision(toolCallId: string, decision: string): void {
    const c = this.card(toolCallId);
    if (c) c.permission = { ...c.permission, decision };
  }

  setReview(path: string, review: ReviewState | undefined): void {
    this.state.labels[path] = this.relative(path);
    if (review) this.state.reviews[path] = review;
    else delete this.state.reviews[path];
  }

  card(id: string): ToolCard | undefined {
    for (const e of this.state.entries) if (e.kind === 'tool' && e.card.id === id) return e.card;
    return undefined;
  }

  apply(u: SessionUpdate): Effect[] {
    switch (u.sessionUpdate) {
      case 'user_message_chunk':
        this.appendText('user', u.content, senderLabel(u._meta, this.replaying));
        return [];
      case 'agent_message_chunk':
        this.appendText('agent', u.content);
        return [];
      case 'agent_thought_chunk':
        this.appendText('thought', u.content);
        return [];
      case 'tool_call': {
        const card: ToolCard = { id: u.toolCallId, title: u.title, kind: u.kind ?? 'other', status: 'pending', output: '', diffs: [], locations: [] };
        // The tool's name: under _meta (older ferret sent a top-level `name`, which ACP does not define).
        const tool = ferretMeta<FerretToolMeta>(u._meta)?.tool ?? (u as { name?: unknown }).name;
        if (typeof tool === 'string') card.name = tool;
        const existing = this.card(u.toolCallId);
        if (existing) Object.assign(existing, card);
        else this.push({ kind: 'tool', card });
        return this.patch(this.card(u.toolCallId)!, u);
      }
      case 'tool_call_update': {
        const c = this.card(u.toolCallId);
        if (!c) return [];
        if (u.title) c.title = u.title;
        if (u.kind) c.kind = u.kind;
        return this.patch(c, u);
      }
      case 'usage_update':
        // A failed call reports nothing used: the meter keeps the last real figure.
        if (u.used === 0 && this.state.usage && this.state.usage.used > 0) return [];
        this.state.usage = { used: u.used, size: u.size, ...(u.cost ? { costUsd: u.cost.amount } : {}) };
        return [];
      case 'config_option_update':
        this.state.config = u.configOptions;
        return [];
      case 'current_mode_update':
        this.state.config = this.state.config.map((o) => (o.id === 'mode' && o.type === 'select' ? { ...o, currentValue: u.currentModeId } : o));
        return [];
      case 'session_info_update':
        if (u.title) this.state.title = u.title;
        return [];
      case 'plan': {
        // One checklist per session: every plan replaces the whole list of the block the first one made.
        const items = u.entries.map((e) => ({ text: e.content, status: e.status, priority: e.priority }));
        const shown = this.state.entries.find((e) => e.kind === 'plan');
        if (shown) shown.items = items;
        else this.push({ kind: 'plan', items });
        return [];
      }
      case 'notice':
        this.notice(u.severity === 'error' || u.severity === 'warning' ? u.severity : 'info', u.title);
        return [];
      case 'available_commands_update':
        this.state.commands = u.availableCommands.map((c) => ({ name: c.name, description: c.description, ...(c.input && 'hint' in c.input ? { hint: c.input.hint } : {}) }));
        return [];
      case 'compaction_update':
      case 'compaction_summary_chunk':
        return []; // nothing to show for these yet
    }
  }

  /** Fields shared by `tool_call` and `tool_call_update`; content and locations replace wholesale. */
  private patch(c: ToolCard, u: { status?: string | null; content?: ToolCallContent[] | null; locations?: ToolCallLocation[] | null; rawOutput?: unknown; _meta?: Record<string, unknown> | null }): Effect[] {
    const wasFinal = FINAL.has(c.status);
    if (u.content) {
      c.output = u.content.map(contentText).filter((t) => t !== '').join('\n');
      c.diffs = u.content.flatMap((x) => (x.type === 'diff' ? [{ path: x.path, label: this.relative(x.path), isNew: x.oldText == null }] : []));
    }
    if (u.locations) c.locations = u.locations;
    const meta = ferretMeta<FerretToolMeta>(u._meta);
    if (meta?.permission) {
      const { risk, reason, decision } = meta.permission;
      c.permission = { ...c.permission, ...(risk ? { risk } : {}), ...(reason ? { reason } : {}), ...(decision ? { decision: decisionLabel(decision) } : {}) };
    }
    const exitCode = (u.rawOutput as { exitCode?: unknown } | undefined)?.exitCode;
    if (typeof exitCode === 'number') c.exitCode = exitCode;
    const status = meta?.status ?? u.status;
    if (status === 'pending' || status === 'in_progress' || status === 'completed' || status === 'failed' || status === 'denied' || status === 'cancelled') c.status = status;
    // A question answered elsewhere (another client, or history replayed): the outcome tells.
    if (c.permission && !c.permission.decision && c.status !== 'pending') c.permission.decision = c.status === 'denied' ? 'denied' : c.status === 'cancelled' ? 'withdrawn' : 'allowed';
    // ferret's open_file tool: reveal the location once the call has run.
    if (!wasFinal && c.status === 'completed' && c.name === 'open_file' && c.locations[0]) {
      const loc = c.locations[0];
      return [{ kind: 'reveal', path: loc.path, ...(loc.line != null ? { line: loc.line } : {}) }];
    }
    return [];
  }

  private appendText(kind: 'user' | 'agent' | 'thought', content: ContentBlock, from?: string): void {
    const text = content.type === 'text' ? content.text : `[${content.type}]`;
    const last = this.state.entries.at(-1);
    // A prompt from another sender is its own entry, even right after another prompt.
    if (last && last.kind === kind && last.from === from) last.text += text;
    else this.push(from !== undefined ? { kind, text, from } : { kind, text });
  }

  private push(e: NewEntry): void {
    this.state.entries.push({ ...e, id: `e${++this.seq}` });
  }

  private cards(): ToolCard[] {
    return this.state.entries.flatMap((e) => (e.kind === 'tool' ? [e.card] : []));
  }
}

/** ferret's decision words (allow, always, deny, never) as the card says them. */
export function decisionLabel(d: string): string {
  const words: Record<string, string> = { allow: 'allowed', always: 'always allowed', deny: 'denied', never: 'never allowed' };
  return words[d] ?? d;
}

/** Text of one content item; ferret fences command output in ``` … ```, which a card shows bare. */
function contentText(x: ToolCallContent): string {
  if (x.type !== 'content' || x.content.type !== 'text') return '';
  const m = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(x.content.text);
  return m ? m[1]! : x.content.text;
}
