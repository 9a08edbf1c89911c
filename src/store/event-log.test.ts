import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEventLog, repairTail } from './event-log.js';
import { LineScanner } from './line-scanner.js';
import type { SessionEvent } from '../protocol/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ferret-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const line = (seq: number) => JSON.stringify({ seq, sessionId: 's', ts: 1, type: 'notice', data: { level: 'info', text: `n${seq}` } });

describe('the event log on disk', () => {
  it('reads whole lines, leaves out a torn tail, and repairTail cuts it so the next append stands alone', () => {
    const f = join(dir, 'torn.jsonl');
    writeFileSync(f, `${line(1)}\n${line(2)}\n{"seq":3,"sessionId":"s","ts":1,"type":"noti`);
    const r = readEventLog(f);
    expect(r.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(r).toMatchObject({ tornTail: true, badLines: 0, openTail: true });
    repairTail(f, r);
    appendFileSync(f, `${line(3)}\n`);
    expect(readEventLog(f)).toMatchObject({ tornTail: false, badLines: 0, openTail: false });
    expect(readEventLog(f).events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('gives a whole last event that lost its newline one, instead of gluing the next onto it', () => {
    const f = join(dir, 'open.jsonl');
    writeFileSync(f, `${line(1)}\n${line(2)}`);
    const r = readEventLog(f);
    expect(r).toMatchObject({ tornTail: false, openTail: true });
    expect(r.events).toHaveLength(2);
    repairTail(f, r);
    appendFileSync(f, `${line(3)}\n`);
    expect(readEventLog(f).events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('skips a bad line in the middle and counts it', () => {
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, `${line(1)}\nnot json\n{"seq":2}\n${line(3)}\n`);
    const r = readEventLog(f);
    expect(r.events.map((e) => e.seq)).toEqual([1, 3]);
    expect(r.badLines).toBe(2);
    expect(readFileSync(f, 'utf8').endsWith('\n')).toBe(true);
  });

  it('a history read leaves out the chunks an assistant message repeats, unparsed, and keeps every other chunk', () => {
    const ev = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, sessionId: 's', ts: 1, type, data });
    const chunk = (seq: number, text: string) => ev(seq, 'message_chunk', { turnId: 't', text });
    const lines = [
      ev(1, 'turn_start', { turnId: 't', text: 'hi' }),
      chunk(2, 'a'),
      chunk(3, 'b'),
      ev(4, 'message', { turnId: 't', message: { role: 'assistant', text: 'ab', toolCalls: [] } }),
      chunk(5, 'c'),
      ev(6, 'notice', { level: 'info', text: 'between' }), // not repeated: kept
      chunk(7, 'd'),
      ev(8, 'message', { turnId: 't', message: { role: 'assistant', text: 'cd', toolCalls: [] } }),
      chunk(9, 'e'),
      ev(10, 'message', { turnId: 't', message: { role: 'assistant', text: 'e', toolCalls: [] } }), // past omitUpTo: kept
      chunk(11, 'cut off'), // a turn killed mid-stream: kept
    ];
    const text = lines.join('\n') + '\n';
    const scan = new LineScanner({ seq: 0, at: 0 }, 0, false, 8);
    const out: SessionEvent[] = [];
    // Fed in small pieces: held chunks carry over piece boundaries.
    const buf = Buffer.from(text);
    for (let i = 0; i < buf.length; i += 37) scan.feed(buf.subarray(i, i + 37), out);
    scan.finish(out);
    expect(out.map((e) => e.seq)).toEqual([1, 4, 5, 6, 8, 9, 10, 11]);
    expect(scan.lastSeq).toBe(11);
  });

  it("a history read leaves out a command's progress its tool_call_end repeats, keeping order, and keeps the progress of a call that does not end", () => {
    const ev = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, sessionId: 's', ts: 1, type, data });
    const progress = (seq: number, callId: string) => ev(seq, 'tool_call_progress', { callId, stream: 'stdout', text: `out ${seq}\n` });
    const end = (seq: number, callId: string) => ev(seq, 'tool_call_end', { callId, tool: 'bash', status: 'completed', output: 'all of it "callId":"x"', durationMs: 1, exitCode: 0 });
    // Arguments are raw JSON in the line: ones that look like a progress line of call `a` are not one.
    const sneaky = { x: { seq: 1, type: 'tool_call_progress', data: { callId: 'a' } } };
    const lines = [
      ev(1, 'tool_call_start', { turnId: 't', callId: 'a', tool: 'bash', args: sneaky, kind: 'execute', title: 'a', locations: [] }),
      progress(2, 'a'),
      progress(3, 'b'), // two commands at once
      ev(4, 'notice', { level: 'info', text: 'between' }), // kept, in its place
      progress(5, 'a'),
      end(6, 'a'),
      progress(7, 'b'),
      end(8, 'b'),
      progress(9, 'c'), // never ends (the read stops here, as in a live turn)
      ev(10, 'notice', { level: 'info', text: 'after' }),
      progress(11, 'd'), // past omitUpTo: kept
      end(12, 'd'),
    ];

    const text = lines.join('\n') + '\n';
    for (const piece of [29, 4096]) {
      const scan = new LineScanner({ seq: 0, at: 0 }, 0, false, 10);
      const out: SessionEvent[] = [];
      const buf = Buffer.from(text);
      for (let i = 0; i < buf.length; i += piece) scan.feed(buf.subarray(i, i + piece), out);
      scan.finish(out);
      expect(out.map((e) => e.seq)).toEqual([1, 4, 6, 8, 9, 10, 11, 12]);
      expect(scan.lastSeq).toBe(12);
      expect(scan.firstSeq).toBe(1);
    }
    // An end that did not come from an exit (an interrupted turn, a tool that failed) keeps the progress.
    const cut = [progress(1, 'e'), progress(2, 'e'), ev(3, 'tool_call_end', { callId: 'e', tool: 'bash', status: 'failed', output: 'interrupted: the server stopped', durationMs: 0 })];
    const scanCut = new LineScanner({ seq: 0, at: 0 }, 0, false, 3);
    const outCut: SessionEvent[] = [];
    scanCut.feed(Buffer.from(cut.join('\n') + '\n'), outCut);
    scanCut.finish(outCut);
    expect(outCut.map((e) => e.seq)).toEqual([1, 2, 3]);
    // Without the history option every line is read.
    const all = new LineScanner({ seq: 0, at: 0 }, 0, false, 0);
    const out: SessionEvent[] = [];
    all.feed(Buffer.from(text), out);
    all.finish(out);
    expect(out).toHaveLength(12);
  });
});
