import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, FerretError, type SessionEvent } from '../protocol/index.js';
import { createCore, type CoreInternals as Core } from './create-core.js';
import type { LiveSession as Session } from './sessions/live-session.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from './test-kit.js';

// The agent loop as a client sees it: an in-process core, a scripted model, the session's events.

const { root, fresh, script } = scratch('ferret-turn-');
const keep = closeAfterEach();

function newCore(opts: { home?: string; ws?: string; maxSteps?: number } = {}): { core: Core; home: string; ws: string } {
  const home = opts.home ?? fresh('home');
  const ws = opts.ws ?? fresh('ws');
  const core = createCore({
    logger: pino({ level: 'silent' }),
    home,
    env: {},
    cwd: ws,
    sandbox: 'workspace-write',
    approval: 'auto',
    ...(opts.maxSteps !== undefined ? { config: ConfigSchema.parse({ maxSteps: opts.maxSteps }) } : {}),
  });
  keep(core);
  return { core, home, ws };
}

function record(s: Session): SessionEvent[] {
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return events;
}

describe('a turn streams text and ends', () => {
  it('text streams as message_chunk, then turn_end end_turn carries the whole text', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['Hel', 'lo ', 'there.'], usage: { input: 10, output: 3 } }] }) });
    const events = record(s);
    const result = await s.startTurn('say hello').done;

    expect(result).toEqual({ turnId: expect.stringMatching(/^turn_/), stopReason: 'end_turn', message: { role: 'assistant', text: 'Hello there.' } });
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'session_info', 'message', 'message_chunk', 'message_chunk', 'message_chunk', 'message', 'cost_update', 'turn_end']);
    expect(ofType(events, 'message_chunk').map((e) => e.data.text)).toEqual(['Hel', 'lo ', 'there.']);
    expect(ofType(events, 'turn_end')[0]!.data).toEqual({
      turnId: result.turnId,
      stopReason: 'end_turn',
      text: 'Hello there.',
      durationMs: expect.any(Number),
      usage: ofType(events, 'cost_update')[0]!.data.call ?? { input: 0, output: 0, cache: 0, reasoning: 0 },
      costUsd: 0,
      totalUsd: 0,
    });
    // seq is strictly increasing from the session_created event (seq 1)
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 2));
    expect(s.state.history).toEqual([
      { role: 'user', text: 'say hello' },
      { role: 'assistant', text: 'Hello there.', toolCalls: [] },
    ]);
    expect(s.status).toBe('idle');
  });

  it('a tool call runs and its result is what the model receives on its next call', async () => {
    const { core, ws } = newCore();
    const seen = spyOnModel(core);
    const s = core.manager.create({
      model: script({
        responses: [
          { chunks: ['Writing.'], toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' } }] },
          { chunks: ['Done.'] },
        ],
      }),
    });
    const events = record(s);
    const result = await s.startTurn('make hello.txt').done;

    expect(result.stopReason).toBe('end_turn');
    expect(result.message.text).toBe('Done.');
    expect(readFileSync(join(ws, 'hello.txt'), 'utf8')).toBe('hi\n');
    const end = ofType(events, 'tool_call_end');
    expect(end.map((e) => [e.data.callId, e.data.tool, e.data.status])).toEqual([['call_1_1', 'write_file', 'completed']]);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.messages).toEqual([{ role: 'user', text: 'make hello.txt' }]);
    expect(seen[1]!.messages.slice(1)).toEqual([
      { role: 'assistant', text: 'Writing.', toolCalls: [{ id: 'call_1_1', name: 'write_file', args: { path: 'hello.txt', content: 'hi\n' } }] },
      { role: 'tool', results: [{ callId: 'call_1_1', name: 'write_file', status: 'completed', output: end[0]!.data.output }] },
    ]);
    // the tool worked on the checked real path, and says so
    expect(end[0]!.data.output.split('\n')[0]).toBe(`Created ${join(ws, 'hello.txt')} (3 bytes)`);
    // one cost_update per model call, each after that call's tools ran
    const order = events.map((e) => e.type).filter((t) => t === 'tool_call_end' || t === 'cost_update');
    expect(order).toEqual(['tool_call_end', 'cost_update', 'cost_update']);
  });

  it('stops with max_steps after config maxSteps model calls, with a warning notice', async () => {
    const { core, ws } = newCore({ maxSteps: 2 });
    writeFileSync(join(ws, 'a.txt'), 'a');
    const call = { name: 'list_dir', arguments: { path: '.' } };
    const s = core.manager.create({
      model: script({ responses: [{ chunks: ['one'], toolCalls: [call] }, { chunks: ['two'], toolCalls: [call] }, { chunks: ['three'], toolCalls: [call] }] }),
    });
    const events = record(s);
    const result = await s.startTurn('loop').done;

    expect(result.stopReason).toBe('max_steps');
    expect(result.message.text).toBe('two');
    expect(ofType(events, 'tool_call_end')).toHaveLength(2);
    expect(ofType(events, 'notice').map((e) => e.data)).toEqual([{ level: 'warning', text: 'stopped after 2 model calls in one turn (step limit)' }]);
    expect(ofType(events, 'turn_end')[0]!.data).toMatchObject({ stopReason: 'max_steps', text: 'two' });
    expect(ofType(events, 'turn_end')[0]!.data.error).toBeUndefined();
  });

  it('a scripted error ends the turn with stopReason error, turn_end.data.error and an error notice', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['partial '], error: 'rate limited by the provider' }] }) });
    const events = record(s);
    const result = await s.startTurn('go').done;

    expect(result).toEqual({ turnId: result.turnId, stopReason: 'error', message: { role: 'assistant', text: 'partial ' }, error: 'rate limited by the provider' });
    expect(ofType(events, 'notice').map((e) => e.data)).toEqual([{ level: 'error', text: 'rate limited by the provider' }]);
    expect(ofType(events, 'turn_end')[0]!.data).toMatchObject({ turnId: result.turnId, stopReason: 'error', text: 'partial ', error: 'rate limited by the provider' });
    // the notice comes before the turn_end
    const types = events.map((e) => e.type);
    expect(types.indexOf('notice')).toBeLessThan(types.indexOf('turn_end'));
    // the partial text is kept in the conversation
    expect(s.state.history.at(-1)).toEqual({ role: 'assistant', text: 'partial ', toolCalls: [] });
  });

  it('running out of scripted responses ends with error "no response left"', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [] }) });
    const result = await s.startTurn('go').done;
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/no response left \(the file has 0, this is call 1\)/);
  });

  it('cancel during a delayMs response ends the turn cancelled, with the text streamed so far', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['first ', 'never'], delayMs: 10_000 }] }) });
    const events: SessionEvent[] = [];
    s.subscribe((e) => {
      events.push(e);
      if (e.type === 'message_chunk') s.cancel();
    });
    const t0 = Date.now();
    const result = await s.startTurn('slow').done;

    expect(Date.now() - t0).toBeLessThan(2000);
    expect(result).toEqual({ turnId: result.turnId, stopReason: 'cancelled', message: { role: 'assistant', text: 'first ' } });
    expect(ofType(events, 'message_chunk').map((e) => e.data.text)).toEqual(['first ']);
    expect(ofType(events, 'turn_end')[0]!.data).toMatchObject({ turnId: result.turnId, stopReason: 'cancelled', text: 'first ' });
    expect(ofType(events, 'notice')).toEqual([]);
    expect(s.cancel()).toBe(false); // nothing left to cancel
  });

  it('turn_start carries the origin given to startTurn, and none when none is given', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['a'] }, { chunks: ['b'] }] }) });
    const events = record(s);
    await s.startTurn('first', { origin: 'client-42' }).done;
    await s.startTurn('second').done;
    const starts = ofType(events, 'turn_start');
    expect(starts.map((e) => e.data)).toEqual([
      { turnId: expect.any(String), text: 'first', origin: 'client-42' },
      { turnId: expect.any(String), text: 'second' },
    ]);
    expect('origin' in starts[1]!.data).toBe(false);
  });

  it('cost_update carries the running totals, the call, the price and contextWindow when the file has one', async () => {
    const { core } = newCore();
    const withWindow = core.manager.create({
      model: script({
        responses: [{ chunks: ['x'], usage: { input: 1000, output: 100, cache: 200 } }, { chunks: ['y'], usage: { input: 500, output: 50 } }],
        pricing: { input: 1, output: 10, cache: 0.5 },
        contextWindow: 32_000,
      }),
    });
    const events = record(withWindow);
    await withWindow.startTurn('one').done;
    await withWindow.startTurn('two').done;
    const costs = ofType(events, 'cost_update').map((e) => e.data);
    expect(costs).toHaveLength(2);
    expect(costs[0]).toEqual({
      input: 1000, output: 100, cache: 200, reasoning: 0,
      totalUsd: (1000 * 1 + 100 * 10 + 200 * 0.5) / 1e6,
      call: { input: 1000, output: 100, cache: 200, reasoning: 0 },
      contextWindow: 32_000,
    });
    expect(costs[1]).toMatchObject({ input: 1500, output: 150, cache: 200, reasoning: 0, contextWindow: 32_000, call: { input: 500, output: 50, cache: 0, reasoning: 0 } });
    expect(costs[1]!.totalUsd).toBeCloseTo((1500 + 1500 + 100) / 1e6, 12);
    expect(withWindow.state.costUsd).toBe(costs[1]!.totalUsd);

    const noWindow = core.manager.create({ model: script({ responses: [{ chunks: ['z'] }] }) });
    const ev2 = record(noWindow);
    await noWindow.startTurn('one').done;
    const c = ofType(ev2, 'cost_update')[0]!.data;
    expect(c).toEqual({ input: 0, output: 0, cache: 0, reasoning: 0, totalUsd: 0 });
  });
});

describe('one turn at a time', () => {
  it('a second startTurn while a turn runs is refused with session_busy naming the running turn', async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['a', 'b'], delayMs: 10_000 }, { chunks: ['next'] }] }) });
    const firstChunk = new Promise<void>((resolve) => s.subscribe((e) => e.type === 'message_chunk' && resolve()));
    const first = s.startTurn('slow');
    expect(s.status).toBe('running');
    expect(s.runningTurnId).toBe(first.turnId);

    let err: unknown;
    try {
      s.startTurn('again');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FerretError);
    expect((err as FerretError).code).toBe('session_busy');
    expect((err as FerretError).message).toContain(first.turnId);
    expect((err as FerretError).data).toEqual({ turnId: first.turnId });
    await firstChunk;
    // still refused mid-stream, while the model waits between chunks
    expect(() => s.startTurn('again')).toThrow(expect.objectContaining({ code: 'session_busy' }));

    expect(s.cancel()).toBe(true);
    expect(await first.done).toMatchObject({ stopReason: 'cancelled', message: { text: 'a' } });
    // once it ended, the next turn starts (and takes the next scripted response)
    const next = await s.startTurn('again').done;
    expect(next).toMatchObject({ stopReason: 'end_turn', message: { text: 'next' } });
    // the refused turn left no trace
    expect(s.state.turns).toBe(2);
  });
});

describe('the scripted model position', () => {
  it('a session loaded by a new core keeps its file and goes on with the next response; setModel to a new file starts it at its first', async () => {
    const first = newCore();
    const fileA = script({ responses: [{ chunks: ['A1'] }, { chunks: ['A2'] }, { chunks: ['A3'] }] });
    const fileB = script({ responses: [{ chunks: ['B1'] }, { chunks: ['B2'] }] });
    const s = first.core.manager.create({ model: fileA });
    expect((await s.startTurn('one').done).message.text).toBe('A1');
    await first.core.close();

    const second = newCore({ home: first.home, ws: first.ws }); // a new process on the same home
    const loaded = await second.core.manager.open(s.id);
    expect(loaded.state.model).toBe(fileA);
    expect((await loaded.startTurn('two').done).message.text).toBe('A2');

    expect(loaded.setModel(fileB)).toBe(fileB);
    expect((await loaded.startTurn('three').done).message.text).toBe('B1');
    // setting the current model again changes nothing: the position goes on
    loaded.setModel(fileB);
    expect((await loaded.startTurn('four').done).message.text).toBe('B2');
    // and back to A: a newly set file starts at its first response again
    loaded.setModel(fileA);
    expect((await loaded.startTurn('five').done).message.text).toBe('A1');
  });

  // The position counts model calls, failed ones too: a failing response is not replayed forever.
  it('a failed call advances the position whether or not it streamed text', async () => {
    const { core } = newCore();
    const silent = core.manager.create({ model: script({ responses: [{ error: 'boom' }, { chunks: ['recovered'] }] }) });
    expect((await silent.startTurn('one').done).error).toBe('boom');
    expect(await silent.startTurn('two').done).toMatchObject({ stopReason: 'end_turn', message: { text: 'recovered' } });
    expect(silent.state.modelCalls).toBe(2);

    const chatty = core.manager.create({ model: script({ responses: [{ chunks: ['so far '], error: 'boom' }, { chunks: ['recovered'] }] }) });
    expect((await chatty.startTurn('one').done).error).toBe('boom');
    expect(await chatty.startTurn('two').done).toMatchObject({ stopReason: 'end_turn', message: { text: 'recovered' } });
  });

  it('setModel refuses a scripted file that does not exist (invalid_params) and an unknown model (model_unavailable), changing nothing', () => {
    const { core } = newCore();
    const model = script({ responses: [] });
    const s = core.manager.create({ model });
    expect(() => s.setModel(`scripted:${join(root, 'missing.json')}`)).toThrow(expect.objectContaining({ code: 'invalid_params' }));
    expect(() => s.setModel('no-such-model')).toThrow(expect.objectContaining({ code: 'model_unavailable' }));
    expect(s.state.model).toBe(model);
  });
});
