import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { readEvents } from '../support/eventlog.mjs';
import { writeScript } from '../support/temp.mjs';

// The tool calls of one reply through the built CLI and the official ACP v1 client: reads run
// together, writes one at a time in order, a long output reaches the model cut with the file
// that holds the whole of it, and the step cap ends a turn with max_turn_requests.

type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);
type Call = { name: string; arguments: unknown };

/** Text of a tool call's last update (its result as the client shows it). */
function resultText(ups: Update[], id: string): string {
  const last = tag(ups, 'tool_call_update').filter((u) => u.toolCallId === id).at(-1);
  return (last?.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join('');
}

/** The tool results of the session's last tool message, as its log holds them: what the model's next request carries. */
function resultsLogged(home: string, sessionId: string): { callId: string; status: string; output: string }[] {
  const msgs = readEvents(home, sessionId).filter((e) => e['type'] === 'message' && e['data'].message.role === 'tool');
  return msgs.at(-1)!['data'].message.results;
}

describe('tool calls of one reply (ACP v1, scripted model)', () => {
  const { env, start } = v1PerTest();

  /** A session whose model file grows by two responses per turn: the turn's calls, then "ok". */
  function begin(args: string[]): V1Client {
    writeScript(env.ws, 'model.json', { responses: [] });
    return start(['--model', `scripted:${join(env.ws, 'model.json')}`, ...args]);
  }

  async function session(c: V1Client) {
    const responses: unknown[] = [];
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const turn = async (calls: Call[]) => {
      responses.push({ chunks: ['calling'], toolCalls: calls }, { chunks: ['ok'] });
      writeScript(env.ws, 'model.json', { responses });
      const before = c.of(s.sessionId).length;
      const t0 = Date.now();
      const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
      return { stopReason: r.stopReason, ms: Date.now() - t0, ups: c.of(s.sessionId).slice(before) };
    };
    return { id: s.sessionId, turn };
  }

  it('two read-only `sleep 1` commands and two greps finish in under 1.5 s, with results in call order', async () => {
    const c = begin(['--approval', 'auto']);
    const s = await session(c);
    writeFileSync(join(env.ws, 'hay.txt'), 'a needle\na thread\n');
    // A first turn loads the shell parser and the sandbox: the clock is for the four calls.
    expect((await s.turn([{ name: 'bash', arguments: { command: 'true' } }])).stopReason).toBe('end_turn');

    const t = await s.turn([
      { name: 'bash', arguments: { command: 'sleep 1; echo slept-a' } },
      { name: 'grep', arguments: { pattern: 'needle' } },
      { name: 'bash', arguments: { command: 'sleep 1; echo slept-b' } },
      { name: 'grep', arguments: { pattern: 'thread' } },
    ]);
    expect(t.stopReason).toBe('end_turn');
    expect(t.ms).toBeLessThan(1500); // one after another: over 2 s
    const calls = tag(t.ups, 'tool_call');
    expect(calls.map((x) => x.title)).toEqual(['sleep 1; echo slept-a', 'Search needle', 'sleep 1; echo slept-b', 'Search thread']);
    const ids = calls.map((x) => x.toolCallId);
    // Each call's updates are its own: it ends completed, with its own output.
    expect(ids.map((id) => tag(t.ups, 'tool_call_update').filter((u) => u.toolCallId === id).at(-1)!.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(resultText(t.ups, ids[0]!)).toContain('slept-a');
    expect(resultText(t.ups, ids[2]!)).toContain('slept-b');
    // Both commands were in progress before either finished.
    const at = (id: string, status: string) => t.ups.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && u.status === status);
    expect(Math.max(at(ids[0]!, 'in_progress'), at(ids[2]!, 'in_progress'))).toBeLessThan(Math.min(at(ids[0]!, 'completed'), at(ids[2]!, 'completed')));
    // What the model's next request carries: the results in call order.
    const logged = resultsLogged(env.home, s.id);
    expect(logged.map((r) => r.callId)).toEqual(ids);
    expect(logged[0]!.output).toContain('slept-a');
    expect(logged[1]!.output).toContain('needle');
    expect(logged[2]!.output).toContain('slept-b');
    expect(logged[3]!.output).toContain('thread');
  });

  it('two writes in one reply run in order: the edit finds what the write made', async () => {
    const c = begin(['--approval', 'auto']);
    const s = await session(c);
    const t = await s.turn([
      { name: 'write_file', arguments: { path: 'notes.txt', content: 'draft\n' } },
      { name: 'edit_file', arguments: { path: 'notes.txt', old: 'draft', new: 'final' } },
    ]);
    expect(t.stopReason).toBe('end_turn');
    const file = join(env.ws, 'notes.txt');
    expect(c.fsWrites).toEqual([file, file]); // through the editor, one after the other
    expect(readFileSync(file, 'utf8')).toBe('final\n');
    expect(resultsLogged(env.home, s.id).map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('a 2 MB command output reaches the model capped near 40 KiB with a note naming the file, which read_file pages through', async () => {
    const c = begin(['--approval', 'auto']);
    const s = await session(c);
    const t = await s.turn([{ name: 'bash', arguments: { command: 'seq 1 300000' } }]);
    expect(t.stopReason).toBe('end_turn');
    const [sent] = resultsLogged(env.home, s.id);
    const bytes = Buffer.byteLength(sent!.output);
    expect(bytes).toBeGreaterThan(40 * 1024);
    expect(bytes).toBeLessThan(41 * 1024);
    expect(sent!.output).toMatch(/\[output capped at 40960 bytes: \d+ of \d+ bytes omitted here; the whole output \(300002 lines\) is kept in \S+: page through it with read_file/);
    const file = /is kept in (\S+):/.exec(sent!.output)![1]!;
    expect(file.startsWith(join(env.home, 'eventlog', `ferret-${s.id}`, 'tool-output') + '/')).toBe(true);
    expect(readFileSync(file, 'utf8').endsWith('299999\n300000\n\n[exit code 0]')).toBe(true);

    const p = await s.turn([{ name: 'read_file', arguments: { path: file, offset: 250000, limit: 3 } }]);
    expect(p.stopReason).toBe('end_turn');
    const [page] = resultsLogged(env.home, s.id);
    expect(page!.status).toBe('completed');
    expect(page!.output.split('\n').slice(0, 3)).toEqual(['250000', '250001', '250002']);
    expect(c.fsReads).not.toContain(file); // read from ferret's own folder, never asked of the editor
  });

  it('the step cap is configurable and ends the turn with max_turn_requests', async () => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ maxSteps: 2 }));
    const call = { name: 'list_dir', arguments: { path: '.' } };
    const model = writeScript(env.ws, 'loop.json', { responses: [1, 2, 3].map((n) => ({ chunks: [`step ${n}`], toolCalls: [call] })) });
    const c = start(['--model', `scripted:${model}`, '--approval', 'auto']);
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'loop' }] });
    expect(r.stopReason).toBe('max_turn_requests');
    expect(tag(c.of(s.sessionId), 'tool_call')).toHaveLength(2);
  });
});
