// The fold's part of undo: which turns the conversation holds and where each begins, the
// snapshots taken around them, and the steps /redo can put back. Pure functions of the events,
// so a load (or a snapshot's state) gives the same answers as the live session.
import type { EventData, Message, RewindMode } from '../../protocol/index.js';

export interface TurnMark {
  turnId: string;
  /** Index in the history of the turn's first message; undefined once compaction summarised part of it. */
  at: number | undefined;
  /** The request's first line, for a list to pick from. */
  text: string;
  /** The workspace before the turn's first change, and at its end (absent: it changed nothing). */
  before?: string;
  after?: string;
}

export interface UndoneStep {
  op: 'undo' | 'rewind';
  mode: RewindMode;
  /** The turns taken out of the conversation (empty for a code-only step). */
  marks: TurnMark[];
  messages: Message[];
  /** The first turn it went back before. */
  turnId: string;
  /** How many turns it went back over. */
  turns: number;
  /** The snapshot the workspace was at before the step (what /redo writes back). */
  codeBefore: string | undefined;
}

interface Foldable {
  history: Message[];
  turnMarks: TurnMark[];
  codeHead: string | undefined;
  undone: UndoneStep[];
}

export function foldTurnStart(s: Foldable, turnId: string, text: string): void {
  s.turnMarks.push({ turnId, at: s.history.length, text: text.split('\n')[0]!.slice(0, 80) });
  s.undone = []; // a new turn after an undo: the undone steps no longer follow from here
}

/** A summary replaced history[0, keptFrom): later turns move, earlier ones cannot be cut out any more. */
export function foldCompacted(s: Foldable, keptFrom: number): void {
  s.turnMarks = s.turnMarks.map((m) => ({ ...m, at: m.at !== undefined && m.at >= keptFrom ? m.at - keptFrom + 1 : undefined }));
  s.undone = [];
}

export function foldCheckpoint(s: Foldable, d: EventData<'checkpoint'>): void {
  const mark = s.turnMarks.find((m) => m.turnId === d.turnId);
  if (mark) mark[d.stage] = d.commit;
  if (d.stage === 'after') s.codeHead = d.commit;
}

export const takesConversation = (mode: RewindMode): boolean => mode !== 'code';
export const takesCode = (mode: RewindMode): boolean => mode !== 'conversation';

export function foldRewound(s: Foldable, d: EventData<'rewound'>): void {
  if (d.op === 'redo') {
    const step = s.undone.pop();
    if (step && takesConversation(step.mode) && step.marks.length) {
      const shift = s.history.length - (step.marks[0]!.at ?? s.history.length);
      s.history.push(...step.messages);
      s.turnMarks.push(...step.marks.map((m) => ({ ...m, at: m.at === undefined ? undefined : m.at + shift })));
    }
  } else {
    const idx = s.turnMarks.findIndex((m) => m.turnId === d.turnId);
    const at = idx >= 0 ? s.turnMarks[idx]!.at : undefined;
    const cut = takesConversation(d.mode) && at !== undefined;
    const step: UndoneStep = {
      op: d.op,
      mode: d.mode,
      marks: cut ? s.turnMarks.slice(idx) : [],
      messages: cut ? s.history.slice(at) : [],
      turnId: d.turnId,
      turns: d.turns,
      codeBefore: s.codeHead,
    };
    if (cut) {
      s.history = s.history.slice(0, at);
      s.turnMarks = s.turnMarks.slice(0, idx);
    }
    s.undone.push(step);
  }
  if (d.code) s.codeHead = d.code.to;
}
