import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../core/index.js';
import { FrameMapper, isAfter, parseFrameId } from './frames.js';
import { IdeTranslator } from './ide-frames.js';

let seq = 0;
const ev = (type: string, data: Record<string, unknown>, sessionId = 's1'): SessionEvent =>
  ({ seq: ++seq, sessionId, ts: 0, type, data }) as unknown as SessionEvent;
const start = (callId: string, tool: string, kind = 'edit') =>
  ev('tool_call_start', { turnId: 't', callId, tool, args: {}, kind, title: tool, locations: [] });
const end = (callId: string, tool: string, extra: Record<string, unknown> = {}) =>
  ev('tool_call_end', { callId, tool, status: 'completed', output: '', durationMs: 1, ...extra });

describe('IdeTranslator', () => {
  const cases: { name: string; events: SessionEvent[]; frames: unknown[] }[] = [
    {
      name: 'apply_patch move: code/diff of kind move, with where the file was',
      events: [
        start('c1', 'apply_patch'),
        ev('file_edit', { callId: 'c1', path: '/w/b.py', movedFrom: '/w/a.py', diff: '--- a\n+++ b\n', changeKind: 'move', oldText: 'x', newText: 'y' }),
        end('c1', 'apply_patch'),
      ],
      frames: [
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'tool_call', step: 1, detail: 'apply_patch', callId: 'c1' } },
        { event: 'code/diff', data: { sessionUpdate: 'code/diff', path: '/w/b.py', changeKind: 'move', unifiedDiff: '--- a\n+++ b\n', movedFrom: '/w/a.py' } },
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'response', step: 2, detail: 'ok', callId: 'c1' } },
      ],
    },
    {
      name: 'write_file: tool_call step, code/diff, response step',
      events: [
        start('c1', 'write_file'),
        ev('file_edit', { callId: 'c1', path: '/w/a.py', diff: '--- a\n+++ b\n', changeKind: 'add', oldText: null, newText: 'x' }),
        end('c1', 'write_file'),
      ],
      frames: [
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'tool_call', step: 1, detail: 'write_file', callId: 'c1' } },
        { event: 'code/diff', data: { sessionUpdate: 'code/diff', path: '/w/a.py', changeKind: 'add', unifiedDiff: '--- a\n+++ b\n' } },
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'response', step: 2, detail: 'ok', callId: 'c1' } },
      ],
    },
    {
      name: 'bash: streamed output numbered per session, cap reported at the end',
      events: [
        start('b1', 'bash', 'execute'),
        ev('tool_call_progress', { callId: 'b1', stream: 'stdout', text: 'hi\n' }),
        ev('tool_call_progress', { callId: 'b1', stream: 'stderr', text: 'oops\n' }),
        end('b1', 'bash', { status: 'failed', capReached: true }),
      ],
      frames: [
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'tool_call', step: 1, detail: 'bash', callId: 'b1' } },
        { event: 'terminal/output', data: { sessionUpdate: 'terminal/output', processId: 'b1', stream: 'stdout', chunk: 'hi\n', sequence: 1, capReached: false } },
        { event: 'terminal/output', data: { sessionUpdate: 'terminal/output', processId: 'b1', stream: 'stderr', chunk: 'oops\n', sequence: 2, capReached: false } },
        { event: 'terminal/output', data: { sessionUpdate: 'terminal/output', processId: 'b1', stream: 'stdout', chunk: '', sequence: 3, capReached: true } },
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'response', step: 2, detail: 'failed', callId: 'b1' } },
      ],
    },
    {
      name: 'bash that never streamed: its captured output becomes one terminal/output',
      events: [start('b2', 'bash', 'execute'), end('b2', 'bash', { output: 'done\n' })],
      frames: [
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'tool_call', step: 1, detail: 'bash', callId: 'b2' } },
        { event: 'terminal/output', data: { sessionUpdate: 'terminal/output', processId: 'b2', stream: 'stdout', chunk: 'done\n', sequence: 1, capReached: false } },
        { event: 'progress/step', data: { sessionUpdate: 'progress/step', phase: 'response', step: 2, detail: 'ok', callId: 'b2' } },
      ],
    },
    {
      name: 'open_file: editor/open_file with its line',
      events: [ev('file_open', { path: '/w/a.py', line: 3 })],
      frames: [{ event: 'editor/open_file', data: { sessionUpdate: 'editor/open_file', path: '/w/a.py', line: 3 } }],
    },
    {
      name: 'chat, cost and another session produce nothing; an unknown call end is ignored',
      events: [
        ev('message_chunk', { turnId: 't', text: 'hi' }),
        ev('cost_update', { input: 1, output: 1, cache: 0, reasoning: 0, totalUsd: 0 }),
        ev('file_open', { path: '/x' }, 'other-session'),
        end('nope', 'bash'),
      ],
      frames: [],
    },
  ];
  it.each(cases)('$name', ({ events, frames }) => {
    const t = new IdeTranslator('s1');
    expect(events.flatMap((e) => t.translate(e))).toEqual(frames);
  });

  it('keeps counters per session: two translators never share steps or sequences', () => {
    const a = new IdeTranslator('s1');
    const b = new IdeTranslator('s2');
    a.translate(start('x', 'bash', 'execute'));
    const fb = b.translate(ev('tool_call_start', { turnId: 't', callId: 'y', tool: 'bash', args: {}, kind: 'execute', title: '', locations: [] }, 's2'));
    expect(fb[0]?.data).toMatchObject({ step: 1 });
  });
});

describe('FrameMapper ids', () => {
  it('numbers an event\'s frames seq, seq.1, seq.2 and ends a turn with result', () => {
    seq = 0;
    const m = new FrameMapper('s1', true);
    m.map(ev('session_created', { cwd: '/', model: 'm', mode: 'code', sandbox: 'read-only', approval: 'auto' }));
    const s = m.map(start('c', 'write_file'));
    expect(s.map((f) => [f.id, f.event])).toEqual([['2', 'loop_event'], ['2.1', 'progress/step']]);
    const e = m.map(ev('turn_end', { turnId: 't', stopReason: 'end_turn', text: 'Done.' }));
    expect(e.map((f) => [f.id, f.event])).toEqual([['3', 'loop_event'], ['3.1', 'result']]);
    expect(e[1]?.data).toEqual({ turnId: 't', stopReason: 'end_turn', message: { role: 'assistant', text: 'Done.' } });
  });

  it('without the IDE schema only loop_event and result flow', () => {
    seq = 0;
    const m = new FrameMapper('s1', false);
    const f = m.map(start('c', 'write_file'));
    expect(f.map((x) => x.event)).toEqual(['loop_event']);
  });

  it('parses and orders Last-Event-IDs', () => {
    expect(parseFrameId('12')).toEqual({ seq: 12, k: 0 });
    expect(parseFrameId('12.3')).toEqual({ seq: 12, k: 3 });
    expect(parseFrameId('../etc')).toBeUndefined();
    expect(isAfter({ seq: 12, k: 4 }, { seq: 12, k: 3 })).toBe(true);
    expect(isAfter({ seq: 12, k: 3 }, { seq: 12, k: 3 })).toBe(false);
    expect(isAfter({ seq: 13, k: 0 }, { seq: 12, k: 9 })).toBe(true);
  });
});
