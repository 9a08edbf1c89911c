// Issue 27, the ACP clients beyond Zed (CodeCompanion, avante, agentic.nvim, agent-shell): what
// each one tripped on, driven through the SDK's own client over the built CLI, every frame
// checked against the SDK's JSON schema.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);
const textOf = (ups: Update[]) => tag(ups, 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');
const NO_KEYS = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
const prompt = (text: string): acp.ContentBlock[] => [{ type: 'text', text }];

describe('ACP v1 clients beyond Zed', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('CodeCompanion: authenticate with the first advertised method works with a scripted model; before initialize it says "not initialized"', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['Hello.'] }] });
    const c = start(['--model', `scripted:${model}`], NO_KEYS);
    const early = await c.agent.request('authenticate', { methodId: 'env:OPENAI_API_KEY' }).then(() => undefined, (e: { code: number; message: string }) => e);
    expect(early?.code).not.toBe(-32601);
    expect(early?.message).toMatch(/not initialized/i);
    const init = await c.initialize();
    const first = init.authMethods![0]!;
    await expect(c.agent.request('authenticate', { methodId: first.id })).resolves.toEqual({});
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('hi') });
    expect(r.stopReason).toBe('end_turn');
    expect(textOf(c.of(sessionId))).toBe('Hello.');
  });

  it('CodeCompanion with an Anthropic-only set-up: the Anthropic key is advertised first and authenticate with it succeeds', async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }));
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'From Claude.'), A.blockStop(0), A.messageDelta('end_turn', 3), A.messageStop] });
    const c = start([], { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-test', FERRET_MODEL: '' });
    const init = await c.initialize();
    expect(init.authMethods![0]!.id).toBe('env:ANTHROPIC_API_KEY');
    await expect(c.agent.request('authenticate', { methodId: init.authMethods![0]!.id })).resolves.toEqual({});
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('hi') });
    expect(r.stopReason).toBe('end_turn');
    expect(textOf(c.of(sessionId))).toBe('From Claude.');
  });

  it('with no model that can run, authenticate still fails naming the key to set', async () => {
    const c = start([], { ...NO_KEYS, FERRET_MODEL: '' });
    const init = await c.initialize();
    const err = await c.agent.request('authenticate', { methodId: init.authMethods![0]!.id }).then(() => undefined, (e: { code: number; message: string }) => e);
    expect(err?.code).toBe(-32000);
    expect(err?.message).toMatch(/_API_KEY/);
  });

  it('under suggest: the permission card keeps its title and kind and holds the diff (also the pending card); the finished edit keeps its diff; no top-level name; no false prompt capability', async () => {
    writeFileSync(join(env.ws, 'a.txt'), 'old line\n');
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old: 'old line', new: 'new line' } }] }, { chunks: ['Edited.'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    const init = await c.initialize();
    expect(Object.values(init.agentCapabilities?.promptCapabilities ?? {})).not.toContain(false);
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    let pendingAtAsk: Update[] = [];
    c.permissionPolicy = () => ((pendingAtAsk = c.of(sessionId)), 'allow_once');
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('edit a') });
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(env.ws, 'a.txt'), 'utf8')).toBe('new line\n');
    const call = tag(c.of(sessionId), 'tool_call')[0]!;
    expect(call.title).toBe('Edit a.txt');
    expect(call).not.toHaveProperty('name');
    const ask = c.permissions[0]!;
    expect(ask.toolCall).toMatchObject({ toolCallId: call.toolCallId, title: 'Edit a.txt', kind: 'edit' });
    const diff = { type: 'diff', path: join(env.ws, 'a.txt'), oldText: 'old line\n', newText: 'new line\n' };
    expect(ask.toolCall.content).toContainEqual(diff);
    // Risk and reason where a client shows them: a line of the card, not only _meta.
    expect(JSON.stringify(ask.toolCall.content)).toMatch(/Needs your approval \((low|medium|high) risk\)/);
    // Before the question went out, the pending card itself held the diff.
    const pending = tag(pendingAtAsk, 'tool_call_update').filter((u) => u.toolCallId === call.toolCallId && u.content);
    expect(pending.at(-1)!.content).toContainEqual(diff);
    // The final update of the edit keeps its diff (content replaces the card's list).
    const done = tag(c.of(sessionId), 'tool_call_update').find((u) => u.toolCallId === call.toolCallId && u.status === 'completed')!;
    expect(done.content).toContainEqual(diff);
  });

  it('a rejected call reads as a sentence for a person; the model still hears its instruction', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'git push origin main' } }] }, { chunks: ['Not pushed.'] }] });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    c.permissionPolicy = () => 'reject_once';
    await c.agent.request('session/prompt', { sessionId, prompt: prompt('push') });
    const call = tag(c.of(sessionId), 'tool_call')[0]!;
    expect(c.permissions[0]!.toolCall.title).toBe(call.title);
    expect(call.title).not.toBe('bash');
    const end = tag(c.of(sessionId), 'tool_call_update').find((u) => u.toolCallId === call.toolCallId && u.status === 'failed')!;
    const shown = JSON.stringify(end.content);
    expect(shown).toContain('You rejected this bash call.');
    expect(shown).not.toMatch(/do not retry/);
    const log = readFileSync(join(env.home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl'), 'utf8');
    expect(log).toMatch(/do not retry it, ask the user/);
  });

  it('agent-shell: {"outcome":"cancelled"} ends the turn cancelled and makes no further model request', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { chunks: ['next call'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    c.permissionPolicy = () => 'cancelled';
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('write x') });
    expect(r.stopReason).toBe('cancelled');
    expect(existsSync(join(env.ws, 'x.txt'))).toBe(false);
    expect(textOf(c.of(sessionId))).toBe('');
    // The scripted file's next response is still unused: the cancelled turn made no model call after the answer.
    c.permissionPolicy = () => 'allow_once';
    const again = await c.agent.request('session/prompt', { sessionId, prompt: prompt('go on') });
    expect(again.stopReason).toBe('end_turn');
    expect(textOf(c.of(sessionId))).toBe('next call');
  });

  it('session/list leaves out sessions nobody prompted', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['ok'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const empty = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const used = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: used.sessionId, prompt: prompt('fix the parser') });
    const list = await c.agent.request('session/list', {});
    const ids = list.sessions.map((s) => s.sessionId);
    expect(ids).toContain(used.sessionId);
    expect(ids).not.toContain(empty.sessionId);
    expect(list.sessions.find((s) => s.sessionId === used.sessionId)!.title).toBe('fix the parser');
  });

  it('/nonsense is answered locally, never sent to the model; /status is not counted as a turn', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['first model reply'] }] });
    const c = start(['--model', `scripted:${model}`]);
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('/nonsense') });
    expect(r.stopReason).toBe('end_turn');
    expect(textOf(c.of(sessionId))).toMatch(/Unknown command \/nonsense/);
    await c.agent.request('session/prompt', { sessionId, prompt: prompt('/status') });
    expect(textOf(c.of(sessionId))).toMatch(/turns: 0/);
    await c.agent.request('session/prompt', { sessionId, prompt: prompt('hello') });
    expect(textOf(c.of(sessionId))).toContain('first model reply'); // the model's first response was still there
  });

  it('an editor that never answers a file write: after one missed deadline ferret writes on disk itself, says so once, and asks the editor no more', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: 'one\n' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'two.txt', content: 'two\n' } }] },
        { chunks: ['Both written.'] },
      ],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--client-timeout', '1']);
    await c.initialize({ fs: { readTextFile: false, writeTextFile: true }, terminal: false });
    // agentgui: advertises writes, never answers them.
    c.writeText = (_p, _t, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }));
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const t0 = Date.now();
    const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt('write both') });
    expect(r.stopReason).toBe('end_turn');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(readFileSync(join(env.ws, 'one.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(env.ws, 'two.txt'), 'utf8')).toBe('two\n');
    expect(c.inbound.filter((m) => m['method'] === 'fs/write_text_file')).toHaveLength(1);
    const said = textOf(c.of(sessionId));
    expect(said.match(/ferret reads and writes files on disk itself/g)).toHaveLength(1);
    expect(said).toContain('Both written.');
    const calls = tag(c.of(sessionId), 'tool_call_update').filter((u) => u.status === 'completed');
    expect(calls).toHaveLength(2);
  });

  it('avante: a second ferret process loads a session the first one holds (no session_busy); the first takes it back on its next prompt', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['one'] }, { chunks: ['two'] }, { chunks: ['three'] }] });
    const a = start(['--model', `scripted:${model}`]);
    await a.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: false, session: { notices: {} } });
    const { sessionId } = await a.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await a.agent.request('session/prompt', { sessionId, prompt: prompt('first') });
    const b = start(['--model', `scripted:${model}`]);
    await b.initialize();
    const t0 = Date.now();
    await b.agent.request('session/load', { sessionId, cwd: env.ws, mcpServers: [] });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(textOf(b.of(sessionId))).toContain('one'); // the history replayed in the second process
    const r = await b.agent.request('session/prompt', { sessionId, prompt: prompt('second') });
    expect(r.stopReason).toBe('end_turn');
    expect(textOf(b.of(sessionId))).toContain('two');
    // The first process was told, and its next prompt takes the session back from the idle second one.
    await a.waitFor((m) => JSON.stringify(m).includes('Another ferret process opened this session'));
    const back = await a.agent.request('session/prompt', { sessionId, prompt: prompt('third') });
    expect(back.stopReason).toBe('end_turn');
    expect(textOf(a.of(sessionId))).toContain('three');
    const log = readFileSync(join(env.home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl'), 'utf8');
    expect(log.match(/"type":"turn_start"/g)).toHaveLength(3); // one log, written by each process in turn
  }, 30_000);
});
