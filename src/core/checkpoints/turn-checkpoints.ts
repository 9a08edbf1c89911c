// When a turn records the workspace: once before its first change (the first edit, patch,
// command or MCP call that is about to run), and once at its end. A turn that only reads takes
// none. A snapshot that fails is a warning: the work goes on, that turn just cannot be undone.
import { join } from 'node:path';
import { errorText } from '../../protocol/index.js';
import type { ToolKind } from '../../protocol/index.js';
import type { TurnHost } from '../turn-host.js';
import { ShadowRepo } from './shadow-repo.js';

const repos = new WeakMap<TurnHost, ShadowRepo | null>();
/** turnId → the `before` snapshot in flight or taken, per session. */
const taken = new WeakMap<TurnHost, Map<string, Promise<boolean>>>();

/** Kinds of tool call that may change files: everything that is not a plain read, search or note. */
const QUIET: ReadonlySet<ToolKind> = new Set(['read', 'search', 'think', 'fetch']);
export const mayChangeFiles = (kind: ToolKind): boolean => !QUIET.has(kind);

/** The session's shadow repository, or undefined where checkpoints are off (no folder for them). */
export function shadowOf(host: TurnHost): ShadowRepo | undefined {
  let repo = repos.get(host);
  if (repo === undefined) {
    const dir = host.deps.checkpointDir?.(host.id);
    repo = dir === undefined || !host.state.cwd ? null : new ShadowRepo(
            { gitDir: join(dir, 'undo.git'), workTree: host.state.cwd, path: host.deps.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin' },
            { leaveOut: [host.deps.home], ...(host.deps.checkpointPacks ? { packCache: host.deps.checkpointPacks } : {}) },
          );
    repos.set(host, repo);
  }
  return repo ?? undefined;
}

/**
 * At each turn's start, in a big workspace: its first snapshot, or the journal's look (a whole
 * listing at most once a minute), starts now while the model thinks (ShadowRepo.prepare).
 */
export function prepareCheckpoints(host: TurnHost): void {
  const repo = shadowOf(host);
  repo?.prepare().catch((err: unknown) => host.deps.logger.debug({ err }, 'workspace checkpoint: first look failed'));
}

/** Records the workspace before the turn's first change (once per turn, however many calls ask at once). */
export function beforeChange(host: TurnHost, turnId: string): Promise<boolean> {
  let turns = taken.get(host);
  if (!turns) taken.set(host, (turns = new Map()));
  let p = turns.get(turnId);
  if (!p) {
    p = record(host, turnId, 'before');
    turns.clear(); // only the running turn's entry matters
    turns.set(turnId, p);
  }
  return p;
}

/** Records the workspace at the end of a turn that took a `before` snapshot. */
export async function afterTurn(host: TurnHost, turnId: string): Promise<void> {
  const p = taken.get(host)?.get(turnId);
  if (!p || !(await p)) return;
  await record(host, turnId, 'after');
}

async function record(host: TurnHost, turnId: string, stage: 'before' | 'after'): Promise<boolean> {
  const repo = shadowOf(host);
  // Only the conversation's turns are marked (a slash command's turn changes no file of its own).
  if (!repo || host.state.turnMarks.at(-1)?.turnId !== turnId) return false;
  try {
    const { commit, skipped } = await repo.snapshot(`${stage} ${turnId}`);
    host.emit({ type: 'checkpoint', data: { turnId, stage, commit, ...(skipped.length ? { skipped } : {}) } });
    return true;
  } catch (err) {
    host.deps.logger.warn({ err, turnId, stage }, 'workspace checkpoint failed');
    host.emit({ type: 'notice', data: { level: 'warning', text: `could not record the workspace (${stage} this turn), so /undo cannot restore its files: ${errorText(err)}` } });
    return false;
  }
}
