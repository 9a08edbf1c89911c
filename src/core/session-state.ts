import type { SessionEvent } from './events.js';
import { ZERO_USAGE, type AgentMode, type ApprovalPreset, type Message, type SandboxMode, type Usage } from './types.js';

/** Everything about a session that its event log determines; a load is a fold of this. */
export interface SessionState {
  cwd: string;
  model: string;
  mode: AgentMode;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
  history: Message[];
  usage: Usage;
  costUsd: number;
  title: string | undefined;
  createdAt: number;
  updatedAt: number;
  turns: number;
}

export function emptyState(): SessionState {
  return {
    cwd: '',
    model: '',
    mode: 'code',
    sandbox: 'workspace-write',
    approval: 'auto',
    history: [],
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    title: undefined,
    createdAt: 0,
    updatedAt: 0,
    turns: 0,
  };
}

export function applyEvent(s: SessionState, e: SessionEvent): void {
  s.updatedAt = e.ts;
  switch (e.type) {
    case 'session_created':
      Object.assign(s, e.data);
      s.createdAt = e.ts;
      return;
    case 'turn_start':
      s.turns++;
      s.title ??= e.data.text.split('\n')[0]!.slice(0, 80);
      return;
    case 'message':
      s.history.push(e.data.message);
      return;
    case 'approval_changed':
      s.approval = e.data.new;
      return;
    case 'mode_changed':
      s.mode = e.data.new;
      return;
    case 'model_changed':
      s.model = e.data.new;
      return;
    case 'cost_update':
      s.usage = { input: e.data.input, output: e.data.output, cache: e.data.cache, reasoning: e.data.reasoning };
      s.costUsd = e.data.totalUsd;
      return;
    case 'message_chunk':
    case 'reasoning_chunk':
    case 'tool_call_start':
    case 'tool_call_progress':
    case 'tool_call_end':
    case 'permission_requested':
    case 'permission_resolved':
    case 'sandbox_violation':
    case 'file_edit':
    case 'file_open':
    case 'notice':
    case 'turn_end':
      return;
  }
}
