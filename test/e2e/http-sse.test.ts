import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFerretClient, type FerretApiClient, type FerretEventStream, type SseFrame as TypedFrame } from '../../clients/typescript/src/index.mjs';
import type { FerretClient } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

const TOKEN = 'tok-sse-0123456789';
const WRITE_AND_RUN = {
  responses: [
    {
      chunks: ["I'll create ", 'hello.py.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'hello.py', content: "print('hi')\n" } },
        { name: 'bash', arguments: { command: 'echo hi; echo there' } },
      ],
    },
    { chunks: ['Done.'] },
  ],
};
const slowChunks = (n: number, delayMs: number, size = 8) => ({
  responses: [{ chunks: Array.from({ length: n }, (_, i) => `${String(i).padStart(size, '.')} `), delayMs }],
});

const isResult = (fs: SseFrame[]) => fs.some((f) => f.event === 'result');
const key = (f: SseFrame) => `${f.id}|${f.event}|${JSON.stringify(f.data)}`;

/** Collects a typed stream's frames until its first result frame (plus `lingerMs` more, for heartbeats). */
async function untilResult(stream: FerretEventStream, lingerMs = 0): Promise<TypedFrame[]> {
  const frames: TypedFrame[] = [];
  for await (const f of stream) {
    frames.push(f);
    if (f.event === 'result') {
      if (!lingerMs) break;
      setTimeout(() => stream.close(), lingerMs);
    }
  }
  return frames;
}

describe('SSE events', () => {
  const { env, startHttp } = ferretPerTest();
  let proc: FerretClient | undefined;
  let url: string;
  let ferret: FerretApiClient;
  const start = async (script: unknown, extra: string[] = [], envExtra: NodeJS.ProcessEnv = {}) => {
    const model = writeScript(env.home, 'model.json', script);
    ({ proc, url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto', ...extra], {
      FERRET_SERVER_TOKEN: TOKEN,
      ...envExtra,
    }));
    ferret = createFerretClient({ baseUrl: url, token: TOKEN });
    return (await ferret.createSession({})).sessionId;
  };

  it('a curl-style turn: progress/step → code/diff → progress/step, terminal/output, loop_events, one result', async () => {
    const id = await start(WRITE_AND_RUN, [], { FERRET_SSE_HEARTBEAT_MS: '100' });
    const sse = ferret.events(id);
    await sse.opened;
    const collecting = untilResult(sse, 250); // and 250 ms more: heartbeats on the idle stream
    const reply = await ferret.sendMessage(id, 'make hello.py and run it');
    expect(reply).toMatchObject({ stopReason: 'end_turn', message: { text: 'Done.' } });
    const fs = await collecting;
    expect(sse.comments).toBeGreaterThan(0); // heartbeats on the idle stream

    const ide = fs.filter((f) => f.event !== 'loop_event' && f.event !== 'result');
    const shape = ide.map((f) => `${f.event}${f.event === 'progress/step' ? `:${f.data.phase}` : ''}`);
    // ide.md's ordering: tool_call step, then what it brackets, then the response step.
    expect(shape.join(' ')).toMatch(/^progress\/step:tool_call code\/diff progress\/step:response progress\/step:tool_call( terminal\/output)+ progress\/step:response$/);
    for (const f of ide) expect(f.data.sessionUpdate).toBe(f.event);
    const diff = ide[1]!;
    expect(diff.data).toMatchObject({ sessionUpdate: 'code/diff', path: join(env.ws, 'hello.py'), changeKind: 'add' });
    expect(diff.event === 'code/diff' && diff.data.unifiedDiff).toContain("+print('hi')");
    expect(ide[0]!.data).toMatchObject({ step: 1, detail: 'write_file' });
    expect(ide[2]!.data).toMatchObject({ step: 2, detail: 'ok' });
    const term = ide.flatMap((f) => (f.event === 'terminal/output' ? [f.data] : []));
    expect(term.map((d) => d.chunk).join('')).toBe('hi\nthere\n');
    expect(term.map((d) => d.sequence)).toEqual(term.map((_, i) => i + 1));
    const step3 = ide[3]!;
    expect(term[0]).toMatchObject({ processId: step3.event === 'progress/step' ? step3.data.callId : '(not a step)', capReached: false });

    const loops = fs.flatMap((f) => (f.event === 'loop_event' ? [f.data.kind] : []));
    expect(loops).toEqual(expect.arrayContaining(['agent_message_chunk', 'tool_call_start', 'file_edit', 'tool_call_end', 'turn_end']));
    expect(fs.filter((f) => f.event === 'result').map((f) => f.data)).toEqual([{ turnId: reply.turnId, stopReason: 'end_turn', message: { role: 'assistant', text: 'Done.' } }]);
    expect(fs.at(-1)!.event).toBe('result');
    expect(new Set(fs.map((f) => f.id)).size).toBe(fs.length);
    sse.close();
  });

  it('--ide-schema false: only loop_event and result', async () => {
    const id = await start(WRITE_AND_RUN, ['--ide-schema', 'false']);
    const sse = ferret.events(id);
    await sse.opened;
    const collecting = untilResult(sse);
    await ferret.sendMessage(id, 'go');
    expect(new Set((await collecting).map((f) => f.event))).toEqual(new Set(['loop_event', 'result']));
    sse.close();
  });

  it('kill mid-turn and resume with Last-Event-ID: the union equals an uninterrupted run, no gaps, no duplicates', async () => {
    const id = await start(
      { responses: [{ chunks: ['a', 'b'], toolCalls: [{ name: 'bash', arguments: { command: 'for i in 1 2 3 4 5; do echo $i; sleep 0.05; done' } }] }, ...slowChunks(60, 10).responses] },
    );
    const whole = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    const cut = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await Promise.all([whole.opened, cut.opened]);
    const turn = ferret.sendMessage(id, 'go');
    await cut.waitFor((fs) => fs.length >= 25);
    cut.close();
    const firstPart = [...cut.frames];
    const last = firstPart.at(-1)!.id;
    await new Promise((r) => setTimeout(r, 100)); // miss some frames while away
    const again = new SseClient(url, `/session/${id}/events`, { token: TOKEN, lastEventId: last });
    await again.opened;
    await Promise.all([whole.waitFor(isResult), again.waitFor(isResult)]);
    await turn;
    const union = [...firstPart, ...again.frames].map(key);
    expect(new Set(union).size).toBe(union.length);
    expect(union).toEqual(whole.frames.map(key));

    // Resume from an event's second frame (id SEQ.1) after the turn: exactly the suffix.
    const mid = whole.frames.findIndex((f) => f.id.includes('.'));
    const late = new SseClient(url, `/session/${id}/events`, { token: TOKEN, lastEventId: whole.frames[mid]!.id });
    await late.waitFor(isResult);
    expect(late.frames.map(key)).toEqual(whole.frames.slice(mid + 1).map(key));
    for (const c of [whole, again, late]) c.close();
  });

  it('20 readers, one paused: the turn runs at normal speed for the others', async () => {
    const id = await start(slowChunks(100, 10));
    const readers = Array.from({ length: 19 }, () => new SseClient(url, `/session/${id}/events`, { token: TOKEN }));
    const paused = new SseClient(url, `/session/${id}/events`, { token: TOKEN, paused: true });
    await Promise.all([...readers, paused].map((r) => r.opened));
    const t0 = Date.now();
    const reply = await ferret.sendMessage(id, 'go');
    await Promise.all(readers.map((r) => r.waitFor(isResult, 5000)));
    const took = Date.now() - t0;
    expect(reply.stopReason).toBe('end_turn');
    expect(took).toBeLessThan(100 * 10 * 3); // ~1 s of scripted delay; a stall would blow this
    const n = readers[0]!.frames.length;
    for (const r of readers) expect(r.frames.length).toBe(n);
    for (const r of [...readers, paused]) r.close();
  });

  it('a reader that stops reading is dropped, never stalls the turn, and resumes with Last-Event-ID', async () => {
    const id = await start(slowChunks(200, 1, 16 * 1024), [], { FERRET_SSE_MAX_BUFFER: String(64 * 1024), FERRET_SSE_STALL_MS: '300' });
    const brisk = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    const stalled = new SseClient(url, `/session/${id}/events`, { token: TOKEN, paused: true });
    await Promise.all([brisk.opened, stalled.opened]);
    const reply = await ferret.sendMessage(id, 'go');
    expect(reply.stopReason).toBe('end_turn');
    await brisk.waitFor(isResult);
    for (let i = 0; i < 100 && !proc!.stderr.includes('too slow'); i++) await new Promise((r) => setTimeout(r, 50));
    stalled.resume();
    await stalled.ended;
    expect(isResult(stalled.frames)).toBe(false); // dropped before the end
    expect(proc!.stderr).toContain('too slow');
    const back = new SseClient(url, `/session/${id}/events`, { token: TOKEN, lastEventId: stalled.frames.at(-1)?.id ?? '0' });
    await back.waitFor(isResult);
    expect([...stalled.frames, ...back.frames].map(key)).toEqual(brisk.frames.map(key));
    for (const c of [brisk, back]) c.close();
  });

  it('SIGTERM mid-turn: the stream ends, the turn is cancelled and logged, the process exits 0', async () => {
    const id = await start(slowChunks(200, 20));
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    void ferret.sendMessage(id, 'go').catch(() => undefined);
    await sse.waitFor((fs) => fs.length >= 5);
    expect(await proc!.stop()).toBe(0);
    proc = undefined;
    await sse.ended;
    const results = sse.frames.filter((f) => f.event === 'result');
    expect(results.map((f) => f.data['stopReason'])).toEqual(['cancelled']);
  });
});
