// One session's view, folded from its `loop_event` frames (the ferret dialect updates) and its
// prompts. Pure: no DOM, no network, so tests feed it frames directly. The same frames always
// make the same transcript, so a reload (a replay from seq 0) shows exactly what was there.
import type { Approval, Decision, FerretUpdate, PlanEntry, Prompt, Risk, StopReason, ToolStatus, UpdateOf } from './types.js';

export interface PermissionRecord {
  id: string;
  seq: number;
  tool: string;
  args: unknown;
  risk: Risk;
  reason: string;
  rule?: string | undefined;
  resolved?: { decision: Decision; by: string } | undefined;
}

export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface DiffRecord {
  seq: number;
  path: string;
  diff: string;
}

interface Base {
  key: string;
  seq: number;
}
export type Item = Base &
  (
    | { kind: 'user'; text: string; turnId: string | undefined; origin: string | undefined; pending: boolean }
    | { kind: 'assistant'; text: string }
    | { kind: 'thought'; text: string }
    | { kind: 'compacted'; text: string }
    | {
        kind: 'tool';
        id: string;
        tool: string;
        args: unknown;
        output: OutputChunk[];
        outputChars: number;
        trimmed: boolean;
        status: 'running' | ToolStatus;
        exitCode?: number | null | undefined;
        durationMs?: number | undefined;
        capReached?: boolean | undefined;
        result?: string | undefined;
        diffs: DiffRecord[];
        opens: { path: string; line?: number | undefined }[];
        permission?: PermissionRecord | undefined;
        /** A task call's subagent: its own calls (nested here, not in the transcript) and what it says. */
        children?: ToolItem[] | undefined;
        subagentText?: string | undefined;
      }
    | { kind: 'permission'; p: PermissionRecord }
    | { kind: 'diff'; d: DiffRecord }
    | { kind: 'open'; path: string; line?: number | undefined }
    | { kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string }
    | { kind: 'violation'; tool: string; path: string | null; mode: string; reason: string }
    | { kind: 'turn_end'; id: string; stopReason: StopReason; error?: string | undefined }
    | { kind: 'approval'; old: Approval; new: Approval }
    | { kind: 'plan'; entries: PlanEntry[] }
  );
export type ToolItem = Extract<Item, { kind: 'tool' }>;
export type UserItem = Extract<Item, { kind: 'user' }>;
export type PlanItem = Extract<Item, { kind: 'plan' }>;

export interface Usage {
  input: number;
  output: number;
  cache: number;
  reasoning: number;
  usd: number;
}
export interface TurnStat extends Usage {
  turnId: string;
  n: number;
  tokens: number;
}

/** A background process as the side panel lists it. */
export interface ProcessRecord {
  id: string;
  command: string;
  running: boolean;
  exitCode?: number | null;
  reason?: string;
}

/** Updates of background processes: they come between turns too, and never start one. */
const PROCESS_KINDS: ReadonlySet<string> = new Set(['process_started', 'process_output', 'process_exited']);

/** A tool card keeps the tail of its output past this many characters. */
export const OUTPUT_KEEP = 200_000;
const ZERO: Usage = { input: 0, output: 0, cache: 0, reasoning: 0, usd: 0 };

export class SessionStore {
  items: Item[] = [];
  /** Permission requests still waiting, oldest first. */
  pending: PermissionRecord[] = [];
  running = false;
  usage: Usage = { ...ZERO };
  turns: TurnStat[] = [];
  contextWindow: number | undefined;
  /** The session's title as the server set it (session_info). */
  title: string | undefined;
  /** Tokens of the last model call (its prompt and reply): how full the context is. */
  contextUsed: number | undefined;
  approval: Approval | undefined;
  /** Background processes the session started (bash `background: true`), running or ended, by id. */
  processes = new Map<string, ProcessRecord>();
  /** The seq of the last update applied: a frame at or before it is never applied twice. */
  lastSeq = 0;
  /** Bumped on every change (the view re-renders on it). */
  version = 0;
  private readonly tools = new Map<string, ToolItem>();
  /** The session's one plan block: where the first plan appeared, redrawn in place by every later one. */
  private planItem: PlanItem | undefined;
  private readonly knownTurns = new Set<string>();
  private atTurnStart: Usage = { ...ZERO };
  private pendingUser = 0;
  private readonly listeners = new Set<() => void>();

  /** `onNewTurn`: a turn began (or ended) that no prompt is known for: fetch the prompts after `promptSeq`. */
  constructor(private readonly onNewTurn: (promptSeq: number) => void = () => {}) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }

  /** The highest seq of a prompt in the transcript. */
  get promptSeq(): number {
    let max = 0;
    for (const it of this.items) if (it.kind === 'user' && !it.pending) max = Math.max(max, it.seq);
    return max;
  }

  apply(u: FerretUpdate): void {
    if (u.seq <= this.lastSeq) return;
    this.lastSeq = u.seq;
    if (u.kind !== 'turn_end' && !PROCESS_KINDS.has(u.kind) && !this.running) {
      this.running = true;
      this.onNewTurn(this.promptSeq);
    }
    this.fold(u);
    this.changed();
  }

  private fold(u: FerretUpdate): void {
    switch (u.kind) {
      case 'agent_message_chunk': {
        // Text streams into the message it continues (the item just before its place).
        const before = this.items[this.indexOf(u.seq) - 1];
        if (before?.kind === 'assistant') before.text += u.text;
        else this.push({ kind: 'assistant', key: `a${u.seq}`, seq: u.seq, text: u.text });
        return;
      }
      case 'agent_thought_chunk': {
        // A model's reasoning, folded like the text it precedes (shown collapsed).
        const before = this.items[this.indexOf(u.seq) - 1];
        if (before?.kind === 'thought') before.text += u.text;
        else this.push({ kind: 'thought', key: `r${u.seq}`, seq: u.seq, text: u.text });
        return;
      }
      case 'history_compacted': {
        const freed = u.freed_tokens !== undefined ? `, about ${u.freed_tokens} tokens freed` : '';
        const what = u.summary !== undefined ? 'older messages summarised' : `the output of ${u.cleared ?? 0} old tool results cleared`;
        this.push({ kind: 'compacted', key: `k${u.seq}`, seq: u.seq, text: `Conversation compacted: ${what}${freed}.` });
        return;
      }
      case 'user_message_chunk':
        this.addPrompts([{ seq: u.seq, turnId: `replayed-${u.seq}`, text: u.text }], false);
        return;
      case 'tool_call_start': {
        const item: ToolItem = { kind: 'tool', key: `t${u.seq}`, seq: u.seq, id: u.id, tool: u.tool, args: u.args, output: [], outputChars: 0, trimmed: false, status: 'running', diffs: [], opens: [] };
        this.tools.set(u.id, item);
        // A subagent's call goes on its task's card; one whose task is unknown (a replay that starts mid-task) stands alone.
        const parent = u.parent_id !== undefined ? this.tools.get(u.parent_id) : undefined;
        if (parent) (parent.children ??= []).push(item);
        else this.push(item);
        return;
      }
      case 'subagent_chunk': {
        const parent = this.tools.get(u.parent_id);
        if (parent && !u.thought) parent.subagentText = ((parent.subagentText ?? '') + u.text).slice(-OUTPUT_KEEP);
        return;
      }
      case 'tool_call_progress': {
        const t = this.tools.get(u.id);
        if (!t) return;
        if (u.stdout !== undefined) addOutput(t, 'stdout', u.stdout);
        if (u.stderr !== undefined) addOutput(t, 'stderr', u.stderr);
        return;
      }
      case 'tool_call_end': {
        const t = this.tools.get(u.id);
        if (!t) return;
        t.status = u.result.status;
        t.exitCode = u.result.exitCode;
        t.capReached = u.result.capReached;
        t.durationMs = u.duration_ms;
        t.result = u.result.output;
        return;
      }
      case 'permission_request': {
        const p: PermissionRecord = { id: u.id, seq: u.seq, tool: u.tool, args: u.args, risk: u.risk, reason: u.reason, rule: u.rule };
        this.pending.push(p);
        const card = this.openCard(u.tool);
        if (card && !card.permission) card.permission = p;
        else this.push({ kind: 'permission', key: `p${u.seq}`, seq: u.seq, p });
        return;
      }
      case 'permission_resolved':
        this.resolve(u);
        return;
      case 'sandbox_violation':
        this.push({ kind: 'violation', key: `v${u.seq}`, seq: u.seq, tool: u.tool, path: u.path, mode: u.mode, reason: u.reason });
        return;
      case 'approval_changed':
        this.approval = u.new;
        this.push({ kind: 'approval', key: `ap${u.seq}`, seq: u.seq, old: u.old, new: u.new });
        return;
      case 'cost_update': {
        const before = this.usage;
        this.usage = { input: u.input, output: u.output, cache: u.cache, reasoning: u.reasoning, usd: u.total_usd };
        const call = u.input - before.input + (u.cache - before.cache) + (u.output - before.output);
        // A side call (the title) or a subagent's is no measure of the conversation.
        if (call > 0 && !u.side && u.parent_id === undefined) this.contextUsed = call;
        if (u.context_window !== undefined) this.contextWindow = u.context_window;
        return;
      }
      case 'file_edit': {
        const d: DiffRecord = { seq: u.seq, path: u.path, diff: u.diff };
        const card = this.openCard();
        if (card) card.diffs.push(d);
        else this.push({ kind: 'diff', key: `d${u.seq}`, seq: u.seq, d });
        return;
      }
      case 'file_open': {
        const card = this.openCard();
        if (card) card.opens.push({ path: u.path, line: u.line });
        else this.push({ kind: 'open', key: `o${u.seq}`, seq: u.seq, path: u.path, line: u.line });
        return;
      }
      case 'notice':
        this.push({ kind: 'notice', key: `n${u.seq}`, seq: u.seq, level: u.level, text: u.text });
        return;
      case 'turn_end':
        this.endTurn(u);
        return;
      case 'session_info':
        this.title = u.title;
        return;
      case 'checkpoint':
      case 'rewound':
        // The command's own answer (what it restored, or why it refused) is the turn's text.
        return;
      case 'plan':
        if (this.planItem) this.planItem.entries = u.entries;
        else this.push((this.planItem = { kind: 'plan', key: `plan${u.seq}`, seq: u.seq, entries: u.entries }));
        return;
      case 'process_started':
        this.processes.set(u.id, { id: u.id, command: u.command, running: true });
        return;
      case 'process_exited': {
        const p = this.processes.get(u.id);
        if (p) Object.assign(p, { running: false, exitCode: u.exit_code, reason: u.reason });
        return;
      }
      case 'process_output':
        return; // read by the model with process_output; the panel lists what runs
    }
  }

  private endTurn(u: UpdateOf<'turn_end'>): void {
    this.running = false;
    // Whatever was still asked is moot now (a cancelled turn drops its requests).
    this.pending = [];
    for (const t of this.tools.values()) if (t.status === 'running') t.status = 'cancelled';
    this.tools.clear();
    const s = this.atTurnStart;
    const now = this.usage;
    const d = { input: now.input - s.input, output: now.output - s.output, cache: now.cache - s.cache, reasoning: now.reasoning - s.reasoning, usd: now.usd - s.usd };
    this.turns.push({ turnId: u.id, n: this.turns.length + 1, tokens: d.input + d.output + d.cache + d.reasoning, ...d });
    this.atTurnStart = { ...now };
    // The error that ended the turn is said once, on its end line: an error notice saying the same goes.
    if (u.error) {
      const said = u.error;
      this.items = this.items.filter((it) => !(it.kind === 'notice' && it.level === 'error' && (said.includes(it.text) || it.text.includes(said))));
    }
    this.push({ kind: 'turn_end', key: `e${u.seq}`, seq: u.seq, id: u.id, stopReason: u.stop_reason, error: u.error });
    if (!this.knownTurns.has(u.id)) this.onNewTurn(this.promptSeq);
  }

  private resolve(u: UpdateOf<'permission_resolved'>): void {
    const i = this.pending.findIndex((p) => p.id === u.id);
    const p = i >= 0 ? this.pending.splice(i, 1)[0] : this.findPermission(u.id);
    if (p) p.resolved = { decision: u.decision, by: u.by };
  }

  private findPermission(id: string): PermissionRecord | undefined {
    for (const it of this.items) {
      if (it.kind === 'permission' && it.p.id === id) return it.p;
      if (it.kind === 'tool' && it.permission?.id === id) return it.permission;
    }
    return undefined;
  }

  /** The tool card still running (the newest first, of `tool` when given). */
  private openCard(tool?: string): ToolItem | undefined {
    const open = [...this.tools.values()].filter((t) => t.status === 'running' && (tool === undefined || t.tool === tool));
    return open.at(-1);
  }

  /** Adds what the user said; a pending bubble of the same turn gives way to it. */
  addPrompts(prompts: Prompt[], notify = true): void {
    for (const p of prompts) {
      this.knownTurns.add(p.turnId);
      if (this.items.some((it) => it.kind === 'user' && !it.pending && it.seq === p.seq)) continue;
      this.items = this.items.filter((it) => !(it.kind === 'user' && it.pending && it.turnId === p.turnId));
      this.insert({ kind: 'user', key: `u${p.seq}`, seq: p.seq, text: p.text, turnId: p.turnId, origin: p.origin, pending: false });
    }
    if (notify) this.changed();
  }

  /** What this console just sent, shown at once; its real place comes with the prompts. */
  addPending(text: string, turnId: string): void {
    if (this.knownTurns.has(turnId)) return;
    this.knownTurns.add(turnId);
    this.push({ kind: 'user', key: `pending${++this.pendingUser}`, seq: this.lastSeq + 0.5, text, turnId, origin: 'this console', pending: true });
    this.changed();
  }

  /** Items stay in seq order: frames come in order, but the prompts of their turns may already be there. */
  private push(item: Item): void {
    this.items.splice(this.indexOf(item.seq), 0, item);
  }

  private insert(item: Item): void {
    this.push(item);
  }

  /** Where an item of this seq goes: after every item with a smaller seq. */
  private indexOf(seq: number): number {
    let lo = 0;
    let hi = this.items.length;
    if (hi === 0 || this.items[hi - 1]!.seq < seq) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid]!.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function addOutput(t: ToolItem, stream: 'stdout' | 'stderr', text: string): void {
  const last = t.output.at(-1);
  if (last?.stream === stream) last.text += text;
  else t.output.push({ stream, text });
  t.outputChars += text.length;
  while (t.outputChars > OUTPUT_KEEP && t.output.length > 0) {
    const first = t.output[0]!;
    const over = t.outputChars - OUTPUT_KEEP;
    t.trimmed = true;
    if (first.text.length <= over) {
      t.output.shift();
      t.outputChars -= first.text.length;
    } else {
      first.text = first.text.slice(over);
      t.outputChars -= over;
    }
  }
}
