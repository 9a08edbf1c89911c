// The session's background processes as the editor lists them, from ferret's
// `_ferret/process_started` / `_ferret/process_exited` notifications (docs/tools.md).

export interface BackgroundProcess {
  id: string;
  command: string;
  running: boolean;
  reason?: string;
  exitCode?: number | null;
}

export class ProcessList {
  private readonly byId = new Map<string, BackgroundProcess>();

  /** Applies one notification; the line the transcript shows for it, if it is one of these. */
  apply(method: string, p: { processId?: unknown; command?: unknown; reason?: unknown; exitCode?: unknown }): string | undefined {
    if (typeof p.processId !== 'string') return undefined;
    if (method === '_ferret/process_started' && typeof p.command === 'string') {
      this.byId.set(p.processId, { id: p.processId, command: p.command, running: true });
      return `Background process ${p.processId} started: ${firstLine(p.command)}`;
    }
    if (method === '_ferret/process_exited') {
      const known = this.byId.get(p.processId);
      const reason = typeof p.reason === 'string' ? p.reason : 'exited';
      const exitCode = typeof p.exitCode === 'number' ? p.exitCode : null;
      if (known) Object.assign(known, { running: false, reason, exitCode });
      return `Background process ${p.processId} ended (${reason}${exitCode !== null ? `, exit code ${exitCode}` : ''})`;
    }
    return undefined;
  }

  /** Every process this window heard of, running ones first. */
  all(): BackgroundProcess[] {
    return [...this.byId.values()].sort((a, b) => Number(b.running) - Number(a.running));
  }

  clear(): void {
    this.byId.clear();
  }
}

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
