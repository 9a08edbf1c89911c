import type { SessionEvent, SessionFold } from '../../../core/index.js';
import type { IdeFrame } from './frame-schemas.js';

export type { IdeFrame } from './frame-schemas.js';

interface PendingCall {
  tool: string;
  execute: boolean;
  outputFrames: number;
}

/** The translator's whole state as JSON: what the core keeps in the log's checkpoints (ideFold). */
export interface IdeState {
  pending: [string, PendingCall][];
  step: number;
  sequence: number;
}

/**
 * Core events → ide.md's four IDE frames, for ONE session. Its state (pending calls, step
 * counter, terminal sequence) is a pure fold of the session's events from seq 1, so feeding the
 * same events always yields the same frames: that is what makes a Last-Event-ID resume exact.
 * The core keeps that state at every checkpoint and at the session's end (ideFold), so a
 * translator can start at any seq from a saved state instead of folding from seq 1.
 */
export class IdeTranslator {
  private readonly pending = new Map<string, PendingCall>();
  private step = 0;
  private sequence = 0;

  /** `sessionId` undefined: any session's events (the fold, which runs inside one session). */
  constructor(
    readonly sessionId: string | undefined,
    saved?: IdeState,
  ) {
    if (saved) {
      for (const [id, call] of saved.pending) this.pending.set(id, { ...call });
      this.step = saved.step;
      this.sequence = saved.sequence;
    }
  }

  save(): IdeState {
    return { pending: [...this.pending].map(([id, call]) => [id, { ...call }]), step: this.step, sequence: this.sequence };
  }

  translate(e: SessionEvent): IdeFrame[] {
    if (this.sessionId !== undefined && e.sessionId !== this.sessionId) return []; // two sessions can never mix frames
    switch (e.type) {
      case 'tool_call_start':
        this.pending.set(e.data.callId, { tool: e.data.tool, execute: e.data.kind === 'execute', outputFrames: 0 });
        return [this.stepFrame('tool_call', e.data.tool, e.data.callId)];
      case 'tool_call_progress': {
        const call = this.pending.get(e.data.callId);
        if (!call) return [];
        call.outputFrames++;
        return [this.terminal(e.data.callId, e.data.stream, e.data.text, false)];
      }
      case 'file_edit':
        return [{ event: 'code/diff', data: { sessionUpdate: 'code/diff', path: e.data.path, changeKind: e.data.changeKind, unifiedDiff: e.data.diff, ...(e.data.movedFrom !== undefined ? { movedFrom: e.data.movedFrom } : {}) } }];
      case 'file_open':
        return [{ event: 'editor/open_file', data: { sessionUpdate: 'editor/open_file', path: e.data.path, ...(e.data.line !== undefined ? { line: e.data.line } : {}) } }];
      case 'tool_call_end': {
        const call = this.pending.get(e.data.callId);
        if (!call) return [];
        this.pending.delete(e.data.callId);
        const out: IdeFrame[] = [];
        const capReached = e.data.capReached ?? false;
        // A command whose output never streamed still shows its captured output; a capped one says so.
        if (call.execute && call.outputFrames === 0 && e.data.output !== '') out.push(this.terminal(e.data.callId, 'stdout', e.data.output, capReached));
        else if (call.execute && capReached) out.push(this.terminal(e.data.callId, 'stdout', '', true));
        out.push(this.stepFrame('response', e.data.status === 'completed' ? 'ok' : e.data.status, e.data.callId));
        return out;
      }
      case 'turn_end':
        this.pending.clear();
        return [];
      case 'session_created':
      case 'tool_call_running':
      case 'turn_start':
      case 'message_chunk':
      case 'reasoning_chunk':
      case 'permission_requested':
      case 'permission_resolved':
      case 'sandbox_violation':
      case 'approval_changed':
      case 'mode_changed':
      case 'model_changed':
      case 'reasoning_changed':
      case 'cost_update':
      case 'notice':
      case 'message':
      case 'history_compacted':
      case 'plan_updated':
      case 'session_info':
      case 'subagent_chunk':
      case 'process_started':
      case 'process_output':
      case 'process_exited':
      case 'checkpoint':
      case 'rewound':
        return [];
    }
  }

  private stepFrame(phase: 'tool_call' | 'response', detail: string, callId: string): IdeFrame {
    return { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase, step: ++this.step, detail, callId } };
  }

  private terminal(processId: string, stream: 'stdout' | 'stderr', chunk: string, capReached: boolean): IdeFrame {
    return { event: 'terminal/output', data: { sessionUpdate: 'terminal/output', processId, stream, chunk, sequence: ++this.sequence, capReached } };
  }
}

function isIdeState(x: unknown): x is IdeState {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Record<string, unknown>;
  return Array.isArray(s['pending']) && Number.isInteger(s['step']) && Number.isInteger(s['sequence']);
}

/** The IDE translator's state as a core fold: checkpointed in the log, so an SSE hub starts at any seq. */
export const ideFold: SessionFold<IdeTranslator> = {
  name: 'ide-frames',
  init: () => new IdeTranslator(undefined),
  apply: (t, e) => void t.translate(e),
  save: (t) => t.save(),
  restore: (json) => {
    if (!isIdeState(json)) throw new Error('not an IDE translator state');
    return new IdeTranslator(undefined, json);
  },
};

/** A translator for one session from a state the core kept (undefined: the fold is not kept here; start fresh). */
export function restoreIdeTranslator(sessionId: string, saved: unknown): IdeTranslator {
  return new IdeTranslator(sessionId, isIdeState(saved) ? saved : undefined);
}
