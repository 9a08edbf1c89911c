import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../protocol/index.js';
import { applyEvent, emptyState, restoreState, saveState } from '../session-state.js';
import { parseRewindArgs } from './rewind-command.js';

let seq = 0;
const fold = (drafts: EventDraft[]) => {
  const s = emptyState();
  for (const d of drafts) applyEvent(s, { ...d, seq: ++seq, sessionId: 's', ts: seq });
  return s;
};
const turn = (turnId: string, text: string, reply: string): EventDraft[] => [
  { type: 'turn_start', data: { turnId, text } },
  { type: 'message', data: { turnId, message: { role: 'user', text } } },
  { type: 'message', data: { turnId, message: { role: 'assistant', text: reply, toolCalls: [] } } },
  { type: 'turn_end', data: { turnId, stopReason: 'end_turn', text: reply } },
];
const texts = (s: ReturnType<typeof emptyState>) => s.history.map((m) => ('text' in m ? m.text : m.role));

describe('what the fold keeps for undo', () => {
  it('undo drops the last turn from the history, redo puts it back; slash-command turns are not turns; a new turn forgets the redo', () => {
    const base: EventDraft[] = [
      ...turn('turn_1', 'first', 'one'),
      { type: 'checkpoint', data: { turnId: 'turn_1', stage: 'before', commit: 'c0' } },
      { type: 'checkpoint', data: { turnId: 'turn_1', stage: 'after', commit: 'c1' } },
      ...turn('turn_2', 'second', 'two'),
      { type: 'turn_start', data: { turnId: 'turn_3', text: '/status' } },
      { type: 'turn_end', data: { turnId: 'turn_3', stopReason: 'end_turn', text: 'model: x' } },
    ];
    const s = fold(base);
    expect(s.turnMarks.map((m) => [m.turnId, m.at, m.before, m.after])).toEqual([['turn_1', 0, 'c0', 'c1'], ['turn_2', 2, undefined, undefined]]);
    expect(s.codeHead).toBe('c1');

    const undo: EventDraft = { type: 'rewound', data: { op: 'rewind', mode: 'both', turnId: 'turn_1', turns: 2, code: { from: 'c1', to: 'c0', saved: 'c9', files: ['a.py'] } } };
    const u = fold([...base, undo]);
    expect(u.history).toEqual([]);
    expect(u.turnMarks).toEqual([]);
    expect(u.codeHead).toBe('c0');
    expect(u.undone).toHaveLength(1);

    const r = fold([...base, undo, { type: 'rewound', data: { op: 'redo', mode: 'both', turnId: 'turn_1', turns: 2, code: { from: 'c0', to: 'c1', saved: 'c0', files: ['a.py'] } } }]);
    expect(texts(r)).toEqual(['first', 'one', 'second', 'two']);
    expect(r.turnMarks.map((m) => m.at)).toEqual([0, 2]);
    expect(r.codeHead).toBe('c1');
    expect(r.undone).toEqual([]);

    // A /redo turn does not forget (it is a command); a new request does.
    expect(fold([...base, undo, { type: 'turn_start', data: { turnId: 'turn_9', text: '/redo' } }]).undone).toHaveLength(1);
    expect(fold([...base, undo, ...turn('turn_9', 'new request', 'ok')]).undone).toEqual([]);
  });

  it('code only keeps the conversation; conversation only keeps the files', () => {
    const base = [...turn('turn_1', 'first', 'one')];
    const code = fold([...base, { type: 'rewound', data: { op: 'undo', mode: 'code', turnId: 'turn_1', turns: 1, code: { from: 'a', to: 'b', saved: 'a', files: [] } } }]);
    expect(texts(code)).toEqual(['first', 'one']);
    expect(code.codeHead).toBe('b');
    const talk = fold([...base, { type: 'rewound', data: { op: 'undo', mode: 'conversation', turnId: 'turn_1', turns: 1 } }]);
    expect(talk.history).toEqual([]);
    expect(talk.codeHead).toBeUndefined();
  });

  it('a summary moves the later turns and makes the earlier ones impossible to cut out; a snapshot keeps it all', () => {
    const s = fold([
      ...turn('turn_1', 'first', 'one'),
      ...turn('turn_2', 'second', 'two'),
      { type: 'history_compacted', data: { turnId: 'turn_2', summary: 'S', keptFrom: 2 } },
    ]);
    expect(s.turnMarks.map((m) => m.at)).toEqual([undefined, 1]);
    const back = restoreState(JSON.parse(JSON.stringify(saveState(s))));
    expect(back?.turnMarks).toEqual(s.turnMarks);
  });

  it('reads `[N | turnId] [mode] [force]` and names a word it does not know', () => {
    expect(parseRewindArgs('2 code force')).toEqual({ n: 2, mode: 'code', force: true });
    expect(parseRewindArgs('turn_ab12cd34')).toMatchObject({ turnId: 'turn_ab12cd34', mode: 'both', force: false });
    expect(parseRewindArgs('sideways')).toMatch(/"sideways" is not a turn number/);
  });
});
