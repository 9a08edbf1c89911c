import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type SessionEvent, type ToolCall, type ToolResult } from '../../protocol/index.js';
import { createCore } from '../create-core.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../test-kit.js';
import type { PreparedCall } from '../tool-runner.js';
import { scheduleCalls } from './run-calls.js';

// The schedule of one reply's tool calls: first with fake calls (what starts when), then through
// real turns (real tools, the real gate, the clock).

/** A fake call: `kind` r = may run beside others, w = a barrier; it takes `ms` and logs its start and end. */
function fakeCalls(spec: string, log: string[], ms = 30): { calls: ToolCall[]; prepare: (c: ToolCall) => Promise<PreparedCall> } {
  const calls = spec.split(' ').map((s, i) => ({ id: `${s}${i}`, name: s, args: {} }));
  const prepare = async (c: ToolCall): Promise<PreparedCall> => {
    log.push(`judge ${c.id}`);
    await new Promise((r) => setTimeout(r, 1));
    return {
      concurrent: c.name === 'r',
      finish: async (): Promise<ToolResult> => {
        log.push(`start ${c.id}`);
        await new Promise((r) => setTimeout(r, c.name === 'r' ? ms * (1 + (Number(c.id.slice(1)) % 2)) : ms));
        log.push(`end ${c.id}`);
        return { callId: c.id, name: c.name, status: 'completed', output: c.id };
      },
    };
  };
  return { calls, prepare };
}

describe('scheduleCalls', () => {
  it('runs reads together and returns results in call order, even when a later read ends first', async () => {
    const log: string[] = [];
    const { calls, prepare } = fakeCalls('r r r', log);
    const t0 = Date.now();
    const results = await scheduleCalls(calls, prepare);
    expect(results.map((r) => r.output)).toEqual(['r0', 'r1', 'r2']);
    // All three started before any ended; r1 (60 ms) ends after r2 (30 ms).
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start r0', 'start r1', 'start r2']);
    expect(log.indexOf('start r2')).toBeLessThan(log.indexOf('end r0'));
    expect(log.indexOf('end r2')).toBeLessThan(log.indexOf('end r1'));
    expect(Date.now() - t0).toBeLessThan(30 + 60 + 30); // not their sum (120)
  });

  it('a write between reads is a barrier: it starts after the reads before it ended, and the reads after it start after it ended', async () => {
    const log: string[] = [];
    const { calls, prepare } = fakeCalls('r r w r r', log);
    const results = await scheduleCalls(calls, prepare);
    expect(results.map((r) => r.output)).toEqual(['r0', 'r1', 'w2', 'r3', 'r4']);
    const at = (l: string) => log.indexOf(l);
    expect(at('start w2')).toBeGreaterThan(Math.max(at('end r0'), at('end r1')));
    expect(Math.min(at('judge r3'), at('start r3'), at('start r4'))).toBeGreaterThan(at('end w2'));
    expect(at('start r4')).toBeLessThan(at('end r3')); // the reads after it run together again
  });

  it('two writes run in order, one at a time', async () => {
    const log: string[] = [];
    const { calls, prepare } = fakeCalls('w w', log);
    await scheduleCalls(calls, prepare);
    expect(log).toEqual(['judge w0', 'start w0', 'end w0', 'judge w1', 'start w1', 'end w1']);
  });
});

const { fresh, script } = scratch('ferret-calls-');
const keep = closeAfterEach();

function setup(calls: { name: string; arguments: unknown }[], approval: 'auto' | 'suggest' = 'auto', more: unknown[] = [], config?: unknown) {
  const home = fresh('home');
  const ws = fresh('ws');
  const core = keep(
    createCore({
      logger: pino({ level: 'silent' }),
      home,
      env: {},
      cwd: ws,
      sandbox: 'workspace-write',
      approval,
      warm: false,
      ...(config !== undefined ? { config: ConfigSchema.parse(config) } : {}),
    }),
  );
  const seen = spyOnModel(core);
  const session = core.manager.create({ model: script({ responses: [{ chunks: ['calling'], toolCalls: calls }, { chunks: ['ok'] }, ...more] }) });
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  return { core, ws, session, events, seen };
}

/** The tool results the model received on its second call (or call `n`, from 0). */
function resultsSent(seen: ReturnType<typeof spyOnModel>, n = 1): ToolResult[] {
  const last = seen[n]?.messages.at(-1);
  if (last?.role !== 'tool') throw new Error('the second call did not end with tool results');
  return last.results;
}

describe('one reply, real tools', () => {
  it('two read-only `sleep 1` commands and two greps finish in under 1.5 s, results in call order', async () => {
    const calls = [
      { name: 'bash', arguments: { command: 'sleep 1; echo slept-a' } },
      { name: 'grep', arguments: { pattern: 'needle' } },
      { name: 'bash', arguments: { command: 'sleep 1; echo slept-b' } },
      { name: 'grep', arguments: { pattern: 'thread' } },
    ];
    // A first turn loads the shell parser and starts the command helper: the clock is for the calls.
    const t = setup([{ name: 'bash', arguments: { command: 'true' } }], 'auto', [{ chunks: ['calling'], toolCalls: calls }, { chunks: ['done'] }]);
    writeFileSync(join(t.ws, 'hay.txt'), 'a needle\na thread\n');
    await t.session.startTurn('warm up').done;
    const t0 = Date.now();
    const r = await t.session.startTurn('go').done;
    const ms = Date.now() - t0;
    expect(r.stopReason).toBe('end_turn');
    const sent = resultsSent(t.seen, 3);
    expect(sent.map((x) => x.callId)).toEqual(['call_3_1', 'call_3_2', 'call_3_3', 'call_3_4']);
    expect(sent.map((x) => x.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(sent[0]!.output).toContain('slept-a');
    expect(sent[1]!.output).toContain('needle');
    expect(sent[2]!.output).toContain('slept-b');
    expect(sent[3]!.output).toContain('thread');
    expect(ms).toBeLessThan(1500); // one after another: over 2 s
    // Each call's events stay in its own order: start, running, end.
    for (const id of ['call_3_1', 'call_3_2', 'call_3_3', 'call_3_4']) {
      const mine = t.events.filter((e) => 'callId' in e.data && e.data.callId === id).map((e) => e.type);
      expect(mine.filter((x) => x !== 'tool_call_progress')).toEqual(['tool_call_start', 'tool_call_running', 'tool_call_end']);
    }
    // All four were running at once.
    const mine = (type: 'tool_call_running' | 'tool_call_end') => ofType(t.events, type).filter((e) => e.data.callId.startsWith('call_3_')).map((e) => e.seq);
    expect(Math.max(...mine('tool_call_running'))).toBeLessThan(Math.min(...mine('tool_call_end')));
  });

  it('two writes run in order: the second edits what the first wrote, and a read after them sees both', async () => {
    const t = setup([
      { name: 'write_file', arguments: { path: 'f.txt', content: 'one\n' } },
      { name: 'edit_file', arguments: { path: 'f.txt', old: 'one', new: 'two' } },
      { name: 'read_file', arguments: { path: 'f.txt' } },
    ]);
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    const ends = ofType(t.events, 'tool_call_end').map((e) => [e.data.callId, e.data.status]);
    expect(ends).toEqual([
      ['call_1_1', 'completed'],
      ['call_1_2', 'completed'],
      ['call_1_3', 'completed'],
    ]);
    expect(resultsSent(t.seen)[2]!.output).toBe('two\n');
  });

  it('permission questions never overlap: the second is asked after the first was answered and its call ran', async () => {
    const t = setup(
      [
        { name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
      ],
      'suggest',
    );
    const asked: string[] = [];
    const openBefore: number[] = [];
    t.session.subscribe((e) => {
      if (e.type !== 'permission_requested') return;
      asked.push(e.data.requestId);
      openBefore.push(t.session.pendingPermissions().length); // questions still open when this one is asked
      setTimeout(() => t.session.respondPermission(e.data.requestId, 'allow', 'test'), 20);
    });
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    expect(asked).toEqual(['perm_call_1_1', 'perm_call_1_3']);
    expect(openBefore).toEqual([0, 0]);
    const order = t.events
      .filter((e) => ['permission_requested', 'permission_resolved', 'tool_call_running', 'tool_call_end'].includes(e.type))
      .map((e) => `${e.type} ${(e.data as { callId: string }).callId}`);
    expect(order).toEqual([
      'permission_requested call_1_1',
      'permission_resolved call_1_1',
      'tool_call_running call_1_1',
      'tool_call_end call_1_1',
      'tool_call_running call_1_2',
      'tool_call_end call_1_2',
      'permission_requested call_1_3',
      'permission_resolved call_1_3',
      'tool_call_running call_1_3',
      'tool_call_end call_1_3',
    ]);
    expect(resultsSent(t.seen)[1]!.output).toBe('a'); // the read after the write saw it
  });

  it('a read-only command a rule asks for is not run beside the others: it waits, is asked alone, and the reads after it wait for it', async () => {
    const t = setup(
      [
        { name: 'bash', arguments: { command: 'sleep 0.3; echo first' } },
        { name: 'bash', arguments: { command: 'echo asked' } },
        { name: 'read_file', arguments: { path: 'x.txt' } },
      ],
      'auto',
      [],
      { rules: { ask: ['bash(echo asked)'] } },
    );
    writeFileSync(join(t.ws, 'x.txt'), 'x');
    t.session.subscribe((e) => {
      if (e.type === 'permission_requested') setTimeout(() => t.session.respondPermission(e.data.requestId, 'allow', 'test'), 20);
    });
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    const order = t.events
      .filter((e) => ['permission_requested', 'tool_call_running', 'tool_call_end'].includes(e.type))
      .map((e) => `${e.type} ${(e.data as { callId: string }).callId}`);
    expect(order).toEqual([
      'tool_call_running call_1_1',
      'tool_call_end call_1_1',
      'permission_requested call_1_2',
      'tool_call_running call_1_2',
      'tool_call_end call_1_2',
      'tool_call_running call_1_3',
      'tool_call_end call_1_3',
    ]);
  });

  it('Stop ends every running call, and the calls not started yet end cancelled before they ran', async () => {
    const t = setup([
      { name: 'bash', arguments: { command: 'sleep 30' } },
      { name: 'bash', arguments: { command: 'sleep 30' } },
      { name: 'write_file', arguments: { path: 'never.txt', content: 'x' } },
    ]);
    const running: string[] = [];
    t.session.subscribe((e) => {
      if (e.type === 'tool_call_running') running.push(e.data.callId);
      if (running.length === 2 && e.type === 'tool_call_running') setTimeout(() => t.session.cancel(), 100);
    });
    const t0 = Date.now();
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(10_000);
    const ends = ofType(t.events, 'tool_call_end').map((e) => `${e.data.callId} ${e.data.status}`);
    expect(ends.sort()).toEqual(['call_1_1 cancelled', 'call_1_2 cancelled', 'call_1_3 cancelled']);
    expect(ofType(t.events, 'tool_call_end').find((e) => e.data.callId === 'call_1_3')!.data.output).toBe('cancelled before it ran');
  });
});
