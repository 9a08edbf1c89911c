// What an ACP client's tool cards go through: the status sequence of each tool call, and whether it
// only ever moved forward (pending → in_progress → completed | failed), as every client expects.

interface UpdateLike {
  sessionUpdate: string;
  toolCallId?: string;
  status?: string | null;
}

const RANK: Record<string, number> = { pending: 0, in_progress: 1, completed: 2, failed: 2 };

/** Each tool call's statuses in arrival order (`tool_call` defaults to pending, as the schema says). */
export function statusRuns(updates: readonly UpdateLike[]): Map<string, string[]> {
  const runs = new Map<string, string[]>();
  for (const u of updates) {
    if ((u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') || !u.toolCallId) continue;
    const status = u.status ?? (u.sessionUpdate === 'tool_call' ? 'pending' : undefined);
    if (!status) continue;
    const run = runs.get(u.toolCallId) ?? [];
    if (run.at(-1) !== status) run.push(status);
    runs.set(u.toolCallId, run);
  }
  return runs;
}

/** Readable lines for every call whose status went backwards or changed after a final one (empty = all forward). */
export function backwardStatuses(updates: readonly UpdateLike[]): string[] {
  const bad: string[] = [];
  for (const [id, run] of statusRuns(updates)) {
    for (let i = 1; i < run.length; i++) {
      const [a, b] = [RANK[run[i - 1]!] ?? -1, RANK[run[i]!] ?? -1];
      if (b <= a || a === 2) bad.push(`${id}: ${run.join(' → ')}`);
    }
  }
  return [...new Set(bad)];
}
