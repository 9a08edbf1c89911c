import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../protocol/index.js';
import { createCore } from '../create-core.js';
import { SUMMARY_PREFIX } from '../session-state.js';
import type { LiveSession as Session } from '../sessions/live-session.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../test-kit.js';
import { PRUNED_OUTPUT } from './prune.js';

// Compaction inside a turn, as the model and a client see it: an in-process core, a scripted model
// whose replies report the usage a real provider would, and the requests the model receives.

const { fresh, script } = scratch('ferret-compact-');
const keep = closeAfterEach();

function newCore() {
  const ws = fresh('ws');
  const core = keep(createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto' }));
  return { core, ws, seen: spyOnModel(core) };
}

function record(s: Session): SessionEvent[] {
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return events;
}

const read = (path: string) => ({ name: 'read_file', arguments: { path } });

describe('compaction inside a turn', () => {
  it('a 1,000-token window reporting 850, then 950: older steps are summarised before the third call, the newest step kept, and the turn ends end_turn', async () => {
    const { core, ws, seen } = newCore();
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
    const s = core.manager.create({
      model: script({
        contextWindow: 1000,
        responses: [
          { chunks: ['Reading a.'], toolCalls: [read('a.txt')], usage: { input: 800, output: 50 } },
          { chunks: ['Reading it again.'], toolCalls: [read('a.txt')], usage: { input: 900, output: 50 } },
          { chunks: ['SUMMARY: read a.txt twice; it says alpha.'], usage: { input: 950, output: 20 } },
          { chunks: ['Done: a.txt says alpha.'], usage: { input: 1150, output: 50 } },
        ],
      }),
    });
    const events = record(s);
    const result = await s.startTurn('what does a.txt say?').done;

    expect(result.stopReason).toBe('end_turn');
    expect(result.message.text).toBe('Done: a.txt says alpha.');
    expect(seen).toHaveLength(4);
    // No compaction before the second call (850 < 90% of 1000).
    expect(seen[1]!.messages[0]).toEqual({ role: 'user', text: 'what does a.txt say?' });
    // The third call is the summary of the request and the first step.
    expect(seen[2]!.system).toMatch(/^You compact a coding session/);
    expect(seen[2]!.tools).toEqual([]);
    expect(seen[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    // The call after it: the summary (with the request verbatim), then the newest step whole.
    const next = seen[3]!.messages;
    expect(next.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(next[0]).toMatchObject({ role: 'user', text: expect.stringContaining('SUMMARY: read a.txt twice') });
    expect((next[0] as { text: string }).text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect((next[0] as { text: string }).text).toContain('what does a.txt say?');
    expect(next[1]).toMatchObject({ role: 'assistant', text: 'Reading it again.' });
    expect(next[2]).toMatchObject({ role: 'tool', results: [{ callId: (next[1] as { toolCalls: { id: string }[] }).toolCalls[0]!.id }] });

    const compacted = ofType(events, 'history_compacted');
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.data).toMatchObject({ keptFrom: 3, tokensBefore: expect.any(Number), tokensAfter: expect.any(Number) });
    expect(compacted[0]!.data.tokensAfter!).toBeLessThanOrEqual(compacted[0]!.data.tokensBefore!);
    const notice = ofType(events, 'notice').map((e) => e.data.text).find((t) => /summarised/.test(t));
    expect(notice).toMatch(/950 of 1000 tokens/);
    // The summary call is billed, not taken as the conversation's size.
    expect(ofType(events, 'cost_update').at(-1)!.data).toMatchObject({ input: 3800, output: 170 });
    // A reload folds the log to the same conversation.
    expect(s.state.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('a second compaction in the same turn still carries the request verbatim', async () => {
    const { core, ws, seen } = newCore();
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
    const s = core.manager.create({
      model: script({
        contextWindow: 1000,
        responses: [
          { toolCalls: [read('a.txt')], usage: { input: 800, output: 50 } },
          { toolCalls: [read('a.txt')], usage: { input: 900, output: 50 } },
          { chunks: ['FIRST SUMMARY.'] },
          { toolCalls: [read('a.txt')], usage: { input: 900, output: 50 } },
          { chunks: ['SECOND SUMMARY.'] },
          { chunks: ['Done.'] },
        ],
      }),
    });
    const result = await s.startTurn('keep reading a.txt').done;
    expect(result.stopReason).toBe('end_turn');
    expect(seen[4]!.system).toMatch(/^You compact/);
    const first = (seen[5]!.messages[0] as { text: string }).text;
    expect(first.startsWith(`${SUMMARY_PREFIX}SECOND SUMMARY.`)).toBe(true);
    expect(first).not.toContain('FIRST SUMMARY.');
    expect(first.endsWith('as the person wrote it:\nkeep reading a.txt')).toBe(true);
    expect(seen[5]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('a context-length refusal is compacted and tried again once; the turn succeeds', async () => {
    const { core, seen } = newCore();
    const s = core.manager.create({
      model: script({
        responses: [
          { chunks: ['First answer.'], usage: { input: 100, output: 10 } },
          { error: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." },
          { chunks: ['SUMMARY: they asked one.'] },
          { chunks: ['Second answer.'] },
        ],
      }),
    });
    await s.startTurn('one').done;
    const events = record(s);
    const result = await s.startTurn('two').done;

    expect(result).toMatchObject({ stopReason: 'end_turn', message: { text: 'Second answer.' } });
    expect(seen[2]!.system).toMatch(/^You compact/);
    expect(seen[3]!.messages).toEqual([
      { role: 'user', text: `${SUMMARY_PREFIX}SUMMARY: they asked one.` },
      { role: 'user', text: 'two' },
    ]);
    expect(ofType(events, 'notice').map((e) => e.data.text)).toContainEqual(expect.stringMatching(/refused the prompt as longer than its context window/));
  });

  it('a summary call refused as too long is tried on the newer half of what it summarises', async () => {
    const { core, seen } = newCore();
    const tooLong = { error: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['First answer.'] }, tooLong, tooLong, { chunks: ['SUMMARY.'] }, { chunks: ['Second answer.'] }] }) });
    await s.startTurn('one').done;
    const result = await s.startTurn('two').done;
    expect(result).toMatchObject({ stopReason: 'end_turn', message: { text: 'Second answer.' } });
    expect(seen[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(seen[3]!.messages.map((m) => m.role)).toEqual(['assistant', 'user']); // the newer half
    expect((seen[4]!.messages[0] as { text: string }).text).toMatch(/SUMMARY\.\n\n\(The oldest part of the conversation did not fit/);
    // Every call counted once: two replies, a refusal, two summary attempts.
    expect(s.state.modelCalls).toBe(5);
  });

  it('a second refusal in a row ends the turn with the provider\'s words', async () => {
    const { core } = newCore();
    const tooLong = { error: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['One.'] }, tooLong, { chunks: ['SUMMARY.'] }, tooLong] }) });
    await s.startTurn('one').done;
    const result = await s.startTurn('two').done;
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/prompt is too long/);
  });

  it('old tool output is cleared first: when that frees enough, no summary call is made', async () => {
    const { core, ws, seen } = newCore();
    writeFileSync(join(ws, 'big.txt'), `${'x'.repeat(79)}\n`.repeat(1000));
    const s = core.manager.create({
      model: script({
        contextWindow: 60_000,
        responses: [
          { toolCalls: [read('big.txt')], usage: { input: 12_000, output: 10 } },
          { toolCalls: [read('big.txt')], usage: { input: 23_000, output: 10 } },
          { toolCalls: [read('big.txt')], usage: { input: 55_000, output: 10 } },
          { chunks: ['Read it three times.'] },
        ],
      }),
    });
    const events = record(s);
    const result = await s.startTurn('read big.txt thrice').done;

    expect(result.stopReason).toBe('end_turn');
    expect(seen).toHaveLength(4); // no summary call
    const compacted = ofType(events, 'history_compacted');
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.data.summary).toBeUndefined();
    expect(compacted[0]!.data.pruned).toEqual([2, 4]);
    const outputs = seen[3]!.messages.filter((m) => m.role === 'tool').map((m) => (m as { results: { output: string }[] }).results[0]!.output);
    expect(outputs.slice(0, 2)).toEqual([PRUNED_OUTPUT, PRUNED_OUTPUT]);
    expect(outputs[2]).toContain('x'.repeat(79)); // the newest result is kept whole
    // The calls themselves stay: the model still knows what it did.
    expect(seen[3]!.messages.filter((m) => m.role === 'assistant')).toHaveLength(3);
  });
});
