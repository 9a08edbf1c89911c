import type { ToolStatus } from '../../../core/index.js';

/** Characters of a subagent's own text shown on its task's card: the tail, as for a command's output. */
const TEXT_CAP = 4000;
/** Steps listed on the card; older ones are counted, not listed. */
const STEPS_SHOWN = 20;

interface Task {
  steps: { callId: string; title: string; status?: ToolStatus }[];
  text: string;
}

const MARK: Record<ToolStatus, string> = { completed: '✓', failed: '✗', denied: '⊘', cancelled: '■' };

/**
 * What a `task` call's card shows while its subagent works: the child's calls (each is also a
 * tool call of its own, nested by `_meta`) and the tail of what it says. An editor that does not
 * nest calls still sees the whole story on the parent's card.
 */
export class TaskProgress {
  private readonly tasks = new Map<string, Task>();

  private task(parentCallId: string): Task {
    let t = this.tasks.get(parentCallId);
    if (!t) this.tasks.set(parentCallId, (t = { steps: [], text: '' }));
    return t;
  }

  started(parentCallId: string, callId: string, title: string): void {
    this.task(parentCallId).steps.push({ callId, title });
  }

  ended(parentCallId: string, callId: string, status: ToolStatus): void {
    const step = this.task(parentCallId).steps.find((s) => s.callId === callId);
    if (step) step.status = status;
  }

  said(parentCallId: string, text: string): void {
    const t = this.task(parentCallId);
    t.text = (t.text + text).slice(-TEXT_CAP);
  }

  /** The task ended: its card shows the result from now on. */
  done(parentCallId: string): void {
    this.tasks.delete(parentCallId);
  }

  render(parentCallId: string): string {
    const t = this.task(parentCallId);
    const hidden = Math.max(0, t.steps.length - STEPS_SHOWN);
    const lines = t.steps.slice(hidden).map((s) => `${s.status ? MARK[s.status] : '▸'} ${s.title}`);
    if (hidden) lines.unshift(`… ${hidden} earlier steps`);
    const said = t.text.trim();
    return [...lines, ...(said ? ['', said] : [])].join('\n');
  }
}
