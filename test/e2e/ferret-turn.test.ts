import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const WRITE_AND_LS = {
  responses: [
    {
      chunks: ["I'll create ", 'hello.py.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'hello.py', content: "print('hi')\n" } },
        { name: 'bash', arguments: { command: 'ls' } },
      ],
      usage: { input: 1200, output: 40, cache: 300, reasoning: 10 },
    },
    { chunks: ['Done.'], usage: { input: 1300, output: 5 } },
  ],
  pricing: { input: 1.25, output: 10, cache: 0.125, reasoning: 10 },
};

describe('ferret dialect: a turn with real tools', () => {
  const { env, start } = ferretPerTest();
  let srv: FerretClient;

  it('answers initialize with protocolVersion 0.2 and the five capabilities', async () => {
    srv = start([]);
    const r = await srv.call('initialize', {});
    expect(r['protocolVersion']).toBe('0.2');
    expect(r['capabilities']).toEqual({ sandbox: true, approval: true, streaming: true, cancellation: true, bridge: false });
  });

  it('streams chunks, the edit with a real diff, the command, cost, then turn_end, and replies', async () => {
    const model = writeScript(env.ws, 'model.json', WRITE_AND_LS);
    srv = start(['--model', `scripted:${model}`]);
    await srv.call('initialize', {});
    const s = await srv.call('session/new', {});
    expect(s).toMatchObject({ model: `scripted:${model}`, sandbox: 'workspace-write', approval: 'auto', mode: 'code' });
    const reply = await srv.call('session/message', { sessionId: s['sessionId'], text: 'make hello.py and list' });
    expect(reply['stopReason']).toBe('end_turn');
    expect(reply['message']).toEqual({ role: 'assistant', text: 'Done.' });
    expect(typeof reply['turnId']).toBe('string');

    const ups = srv.updates(s['sessionId']);
    const kinds = ups.map((u) => u['kind']);
    // The order a user's editor sees, with repeated kinds (chunks, progress) collapsed.
    const collapsed = kinds.filter((k, i) => k !== kinds[i - 1]);
    expect(collapsed).toEqual([
      'session_info',
      'agent_message_chunk',
      'tool_call_start',
      'checkpoint', // the workspace, recorded before the turn's first change (docs/undo.md)
      'file_edit',
      'tool_call_end',
      'tool_call_start',
      'tool_call_progress',
      'tool_call_end',
      'cost_update',
      'agent_message_chunk',
      'cost_update',
      'checkpoint', // and at the turn's end
      'turn_end',
    ]);
    expect(ups[0]).toMatchObject({ kind: 'session_info', title: 'make hello.py and list' });
    const text = ups.filter((u) => u['kind'] === 'agent_message_chunk').map((u) => u['text']).join('');
    expect(text).toBe("I'll create hello.py.Done.");

    const edit = ups.find((u) => u['kind'] === 'file_edit')!;
    expect(edit['path']).toBe(join(env.ws, 'hello.py'));
    expect(edit['diff']).toContain(`--- ${join(env.ws, 'hello.py')}`);
    expect(edit['diff']).toContain("+print('hi')");
    expect(edit['diff']).toMatch(/@@ -0,0 \+1(,1)? @@/);
    expect(readFileSync(join(env.ws, 'hello.py'), 'utf8')).toBe("print('hi')\n");

    const starts = ups.filter((u) => u['kind'] === 'tool_call_start');
    expect(starts.map((u) => u['tool'])).toEqual(['write_file', 'bash']);
    expect(starts[1]!['args']).toEqual({ command: 'ls' });
    const progress = ups.filter((u) => u['kind'] === 'tool_call_progress').map((u) => u['stdout'] ?? '').join('');
    expect(progress).toContain('hello.py');
    const ends = ups.filter((u) => u['kind'] === 'tool_call_end');
    expect(ends.map((u) => u['result'].status)).toEqual(['completed', 'completed']);
    expect(ends[1]!['id']).toBe(starts[1]!['id']);
    expect(ends[1]!['result'].exitCode).toBe(0);
    expect(typeof ends[1]!['duration_ms']).toBe('number');

    const cost = ups.filter((u) => u['kind'] === 'cost_update').at(-1)!;
    const usd = (2500 * 1.25 + 45 * 10 + 300 * 0.125 + 10 * 10) / 1e6;
    expect(cost).toMatchObject({ input: 2500, output: 45, cache: 300, reasoning: 10 });
    expect(cost['total_usd']).toBeCloseTo(usd, 12);

    const end = ups.at(-1)!;
    expect(end).toMatchObject({ kind: 'turn_end', id: reply['turnId'], stop_reason: 'end_turn' });
    // seq is the session's event sequence: strictly increasing on the wire.
    const seqs = ups.map((u) => u['seq'] as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Nothing but protocol on stdout.
    for (const line of srv.stdoutLines) expect(JSON.parse(line)['jsonrpc']).toBe('2.0');
  });

  it('persists every event to the session log on disk', async () => {
    const model = writeScript(env.ws, 'model.json', WRITE_AND_LS);
    srv = start(['--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    await srv.call('session/message', { sessionId: s['sessionId'], text: 'go' });
    await srv.close();
    const log = join(env.home, 'eventlog', `ferret-${s['sessionId']}`, 'events.jsonl');
    expect(existsSync(log)).toBe(true);
    const events = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(events[0]!['type']).toBe('session_created');
    expect(events.map((e) => e['seq'])).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!['type']).toBe('turn_end');
    const wireSeqs = srv.updates().map((u) => u['seq']);
    for (const seq of wireSeqs) expect(events.some((e) => e['seq'] === seq)).toBe(true);
  });

  it('reports a malformed scripted file at session start, naming the file and field', async () => {
    const bad = writeScript(env.ws, 'bad.json', { responses: [{ chunks: 'not-an-array' }] });
    srv = start([]);
    const r = await srv.request('session/new', { model: `scripted:${bad}` });
    expect(r['error'].code).toBe(-32602);
    expect(r['error'].message).toContain(bad);
    expect(r['error'].message).toContain('responses[0].chunks');
  });

  it('ends a turn with error and a notice when the scripted responses run out', async () => {
    const model = writeScript(env.ws, 'one.json', { responses: [{ chunks: ['only once'] }] });
    srv = start(['--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    expect((await srv.call('session/message', { sessionId: s['sessionId'], text: 'a' }))['stopReason']).toBe('end_turn');
    const r = await srv.call('session/message', { sessionId: s['sessionId'], text: 'b' });
    expect(r['stopReason']).toBe('error');
    const notice = srv.updates(s['sessionId']).find((u) => u['kind'] === 'notice');
    expect(notice?.['text']).toMatch(/no response left/);
  });

  it('with no model configured still serves, and a turn tells how to configure one', async () => {
    srv = start([], { FERRET_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' });
    const s = await srv.call('session/new', {});
    const r = await srv.call('session/message', { sessionId: s['sessionId'], text: 'hi' });
    expect(r['stopReason']).toBe('error');
    const notice = srv.updates(s['sessionId']).find((u) => u['kind'] === 'notice');
    expect(notice?.['text']).toMatch(/--model/);
  });
});
