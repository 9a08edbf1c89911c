// /undo, /redo and /rewind: the workspace's files and the conversation the model sees, put back to
// before a turn (or forward again). Files are written only where the two snapshots differ, and
// never over a change made outside ferret since it last left them, unless the person says `force`.
import { RewindModeSchema, type EventData, type RewindMode } from '../../protocol/index.js';
import type { TurnHost } from '../turn-host.js';
import { takesCode, takesConversation, type TurnMark } from './marks.js';
import { shadowOf } from './turn-checkpoints.js';
import type { ShadowRepo } from './shadow-repo.js';

export type RewindAnswer = { text: string; refused?: boolean };

interface Args {
  n: number | undefined;
  /** A turn named by its id (a client's "restore to here"), instead of its number. */
  turnId?: string;
  mode: RewindMode;
  force: boolean;
}

/** `[N | turnId] [code|conversation|both] [force]`, in any order. */
export function parseRewindArgs(arg: string): Args | string {
  const out: Args = { n: undefined, mode: 'both', force: false };
  for (const w of arg.split(/\s+/).filter(Boolean)) {
    if (/^\d+$/.test(w)) out.n = Number(w);
    else if (/^turn_[\w-]{1,64}$/.test(w)) out.turnId = w;
    else if (w === 'force') out.force = true;
    else if (RewindModeSchema.safeParse(w).success) out.mode = w as RewindMode;
    else return `"${w}" is not a turn number, code, conversation, both or force`;
  }
  return out;
}

/** The turns one can go back to, numbered from 1 (what `/rewind` with no number shows). */
export function listTurns(host: TurnHost): string {
  const marks = host.state.turnMarks;
  if (marks.length === 0) return 'No turns to rewind to yet.';
  const lines = marks.map((m, i) => `${i + 1}. ${m.text || '(no text)'}${m.before ? ' · changed files' : ''}${m.at === undefined ? ' · compacted' : ''}`);
  return `Turns (\`/rewind N [code|conversation|both]\` goes back to before turn N):\n${lines.join('\n')}`;
}

/** /undo (the last turn) and /rewind N (turn N and every turn after it). */
export async function rewind(host: TurnHost, op: 'undo' | 'rewind', arg: string): Promise<RewindAnswer> {
  const a = parseRewindArgs(arg);
  if (typeof a === 'string') return { text: `/${op}: ${a}`, refused: true };
  const marks = host.state.turnMarks;
  if (op === 'rewind' && a.n === undefined && a.turnId === undefined) return { text: listTurns(host) };
  if (marks.length === 0) return { text: 'Nothing to undo: no turn yet.', refused: true };
  const idx = op === 'undo' ? marks.length - 1 : a.turnId !== undefined ? marks.findIndex((m) => m.turnId === a.turnId) : a.n! - 1;
  const mark = marks[idx];
  if (!mark) return { text: `/rewind: there is no turn ${a.turnId ?? a.n} in the conversation (turns 1 to ${marks.length}; an undone turn is not one)`, refused: true };
  if (takesConversation(a.mode) && mark.at === undefined) {
    return { text: `Turn ${idx + 1} was compacted into a summary, so its conversation cannot be taken back: use /rewind ${idx + 1} code for its files.`, refused: true };
  }
  const later = marks.slice(idx);
  const target = takesCode(a.mode) ? later.find((m) => m.before)?.before : undefined;
  let code: EventData<'rewound'>['code'];
  if (target !== undefined) {
    const moved = await moveFiles(host, currentHead(host, later), target, a.force, op);
    if (typeof moved === 'string') return { text: moved, refused: true };
    code = moved;
  }
  host.emit({ type: 'rewound', data: { op, mode: a.mode, turnId: mark.turnId, turns: later.length, ...(code ? { code } : {}) } });
  const what = later.length === 1 ? `turn ${idx + 1} ("${mark.text}")` : `turns ${idx + 1} to ${marks.length}`;
  return { text: `${op === 'undo' ? 'Undid' : 'Rewound'} ${what}: ${summary(a.mode, code)} /redo puts it back.` };
}

/** /redo: puts back what the last /undo or /rewind took, files and conversation as it took them. */
export async function redo(host: TurnHost, arg: string): Promise<RewindAnswer> {
  const a = parseRewindArgs(arg);
  if (typeof a === 'string') return { text: `/redo: ${a}`, refused: true };
  const step = host.state.undone.at(-1);
  if (!step) return { text: 'Nothing to redo.', refused: true };
  let code: EventData<'rewound'>['code'];
  if (takesCode(step.mode) && step.codeBefore !== undefined && host.state.codeHead !== undefined && step.codeBefore !== host.state.codeHead) {
    const moved = await moveFiles(host, host.state.codeHead, step.codeBefore, a.force, 'redo');
    if (typeof moved === 'string') return { text: moved, refused: true };
    code = moved;
  }
  host.emit({ type: 'rewound', data: { op: 'redo', mode: step.mode, turnId: step.turnId, turns: step.turns, ...(code ? { code } : {}) } });
  return { text: `Redid ${step.turns === 1 ? 'the turn' : `${step.turns} turns`}: ${summary(step.mode, code)}` };
}

/** Where ferret left the files: the last turn's end, or (a turn that never ended) unknown, so the workspace as it is. */
function currentHead(host: TurnHost, later: readonly TurnMark[]): string | undefined {
  const last = later.filter((m) => m.before).at(-1);
  return last && !last.after ? undefined : host.state.codeHead;
}

async function moveFiles(host: TurnHost, from: string | undefined, to: string, force: boolean, op: string): Promise<NonNullable<EventData<'rewound'>['code']> | string> {
  const repo: ShadowRepo | undefined = shadowOf(host);
  if (!repo) return `/${op}: this session keeps no checkpoints, so its files cannot be restored.`;
  return repo.serial(async () => {
    // Listed whole, not narrowed by the change journal: the refusal to overwrite files changed
    // outside ferret must see every change, including one no watch reports (a hard link, a mapping).
    const saved = (await repo.snapshotNow(`before /${op}`, true)).commit;
    const base = from ?? saved;
    const files = await repo.changedBetween(base, to);
    const outside = new Set(await repo.changedBetween(base, saved));
    const clash = files.filter((f) => outside.has(f));
    if (clash.length && !force) {
      const list = clash.slice(0, 10).join(', ') + (clash.length > 10 ? ` and ${clash.length - 10} more` : '');
      return `Refused: ${clash.length === 1 ? 'this file' : 'these files'} changed outside ferret since the checkpoint and would be overwritten: ${list}. Nothing was changed. Add \`force\` (e.g. /${op} force) to overwrite them; their current text is kept in the session's snapshots.`;
    }
    await repo.restoreNow(to, files);
    return { from: base, to, saved, files };
  });
}

function summary(mode: RewindMode, code: EventData<'rewound'>['code']): string {
  const files = !takesCode(mode) ? 'files left as they are' : code && code.files.length ? `restored ${code.files.length} file(s) (${code.files.slice(0, 8).join(', ')}${code.files.length > 8 ? ', …' : ''})` : 'no file to restore';
  const talk = takesConversation(mode) ? 'the conversation the model sees changed with it.' : 'the conversation left as it is.';
  return `${files}; ${talk}`;
}
