// Issue 12, "every ACP client works without a wart": what a person sees in Zed, through the SDK's
// own client with Zed's capabilities (fs read + write through the editor, no terminal), every frame
// checked against the SDK's JSON schema.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { backwardStatuses, statusRuns } from '../support/acp-status.js';
import { writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
type Update = acp.SessionUpdate;
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);
const textOf = (ups: Update[]) => tag(ups, 'agent_message_chunk').map((u) => (u.content.type === 'text' ? u.content.text : '')).join('');

/** What Zed advertises that matters here: the editor reads and writes files, runs no terminal for the agent. */
const ZED_CAPS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false, _meta: { terminal_output: true, 'terminal-auth': true } };

/** A config.json provider with two models and a key, so the model picker must list both. */
function writeConfig(home: string): void {
  mkdirSync(join(home, 'ferret'), { recursive: true });
  writeFileSync(
    join(home, 'ferret', 'config.json'),
    JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', models: { alpha: {}, beta: {} } } } }),
  );
}

const extNoise = (c: V1Client) => c.inbound.filter((m) => typeof m['method'] === 'string' && m['method'].startsWith('_ferret/')).map((m) => m['method']);
const modelValues = (opts: acp.SessionConfigOption[] | null | undefined) => {
  const o = opts?.find((x) => x.category === 'model');
  return o && o.type === 'select' ? (o.options as { value: string }[]).map((x) => x.value) : [];
};
const current = (opts: acp.SessionConfigOption[], id: string) => opts.find((o) => o.id === id)?.currentValue;
const lastConfig = (ups: Update[]) => tag(ups, 'config_option_update').at(-1)?.configOptions ?? [];

describe('ACP v1 as Zed sees it: the whole flow without a wart', () => {
  const { env, start } = v1PerTest();

  it('MCP server, a new file, a command, allow and reject, Stop, the / menu, the model picker, slash commands, and reopen in a new process', async () => {
    writeConfig(env.home);
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        {
          chunks: ['Creating ', 'new.txt.'],
          toolCalls: [
            { name: 'write_file', arguments: { path: 'new.txt', content: 'brand new\n' } },
            { name: 'bash', arguments: { command: 'cat new.txt' } },
            { name: 'mcp__fixture__echo', arguments: { text: 'ping' } },
            { name: 'write_file', arguments: { path: 'rejected.txt', content: 'no\n' } },
          ],
        },
        { chunks: ['Done.'] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
        { chunks: ['never said'] },
      ],
    });
    const args = ['--model', `scripted:${model}`, '--approval', 'auto'];
    const c = start(args);
    const init = await c.initialize(ZED_CAPS);
    expect(init.protocolVersion).toBe(1);

    const mcpServers: acp.McpServer[] = [{ name: 'fixture', command: process.execPath, args: [FIXTURE], env: [] }];
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers });
    const sid = s.sessionId;
    // The model picker: the current scripted file and both config.json models.
    expect(modelValues(s.configOptions)).toEqual(expect.arrayContaining([`scripted:${model}`, 'local/alpha', 'local/beta']));
    // The `/` menu arrives after the answer that names the session.
    await c.waitFor((m) => m['params']?.update?.sessionUpdate === 'available_commands_update');
    const menu = tag(c.of(sid), 'available_commands_update')[0]!.availableCommands.map((x) => x.name);
    expect(menu).toEqual(expect.arrayContaining(['compact', 'init', 'status', 'approval', 'mode', 'model']));

    // `/approval suggest` from the menu: every write asks from now on, and the picker follows.
    const ap = await c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/approval suggest' }] });
    expect(ap.stopReason).toBe('end_turn');
    expect(current(lastConfig(c.of(sid)), 'approval')).toBe('suggest');

    // The write turn: allow the new file and the MCP call, reject the second write.
    const rejectedPath = join(env.ws, 'rejected.txt');
    c.permissionPolicy = (p) => {
      const call = tag(c.of(sid), 'tool_call').find((t) => t.toolCallId === p.toolCall.toolCallId);
      return call?.locations?.some((l) => l.path === rejectedPath) ? 'reject_once' : 'allow_once';
    };
    const before = c.of(sid).length;
    const r = await c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'create new.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const turn = c.of(sid).slice(before);
    expect(textOf(turn)).toBe('Creating new.txt.Done.');
    const newFile = join(env.ws, 'new.txt');
    expect(readFileSync(newFile, 'utf8')).toBe('brand new\n');
    expect(c.fsWrites).toEqual([newFile]);
    expect(c.fsReads).not.toContain(newFile); // a file that does not exist is not asked of the editor
    expect(existsSync(rejectedPath)).toBe(false);
    const calls = tag(turn, 'tool_call');
    expect(calls.map((t) => ((t._meta?.['ferret.dev'] as { tool?: string } | undefined)?.tool))).toEqual(['write_file', 'bash', 'mcp__fixture__echo', 'write_file']);
    const runs = statusRuns(turn);
    expect(calls.map((t) => runs.get(t.toolCallId))).toEqual([
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'failed'], // rejected: it never ran
    ]);
    expect(c.permissions.map((p) => p.toolCall.toolCallId)).toEqual([calls[0]!.toolCallId, calls[2]!.toolCallId, calls[3]!.toolCallId]);
    const echo = tag(turn, 'tool_call_update').find((u) => u.toolCallId === calls[2]!.toolCallId && u.status === 'completed');
    expect(JSON.stringify(echo?.content)).toContain('echo: ping');
    const cat = tag(turn, 'tool_call_update').find((u) => u.toolCallId === calls[1]!.toolCallId && u.status === 'completed');
    expect(JSON.stringify(cat?.content)).toContain('brand new');

    // Stop during `sleep 30`: the prompt answers cancelled within a second, the card ends failed.
    const sleeping = c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'wait a while' }] });
    await c.waitFor((m) => m['params']?.update?.sessionUpdate === 'tool_call_update' && m['params'].update.status === 'in_progress' && (tag(c.of(sid), 'tool_call').at(-1)?._meta?.['ferret.dev'] as { tool?: string } | undefined)?.tool === 'bash' && m['params'].update.toolCallId === tag(c.of(sid), 'tool_call').at(-1)?.toolCallId);
    const t0 = Date.now();
    await c.agent.notify('session/cancel', { sessionId: sid });
    expect((await sleeping).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1000);
    const sleepCall = tag(c.of(sid), 'tool_call').at(-1)!;
    expect(statusRuns(c.of(sid)).get(sleepCall.toolCallId)).toEqual(['pending', 'in_progress', 'failed']);

    // The model picker switches, from the picker and from `/model`.
    const picked = await c.agent.request('session/set_config_option', { sessionId: sid, configId: 'model', value: 'local/alpha' });
    expect(current(picked.configOptions, 'model')).toBe('local/alpha');
    expect(modelValues(picked.configOptions)).toEqual(expect.arrayContaining([`scripted:${model}`, 'local/alpha', 'local/beta']));
    expect((await c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/model local/beta' }] })).stopReason).toBe('end_turn');
    expect(current(lastConfig(c.of(sid)), 'model')).toBe('local/beta');
    // `/mode plan`, then `/status` answers with the status text.
    expect((await c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/mode plan' }] })).stopReason).toBe('end_turn');
    expect(current(lastConfig(c.of(sid)), 'mode')).toBe('plan');
    // A bad argument is the caller's mistake: invalid params, naming the choices.
    await expect(c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/approval bogus' }] })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('is not one of suggest, auto, full-auto') });
    const mark = c.of(sid).length;
    expect((await c.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/status' }] })).stopReason).toBe('end_turn');
    const status = textOf(c.of(sid).slice(mark));
    expect(status).toContain('model: local/beta');
    expect(status).toContain('mode: plan · approval: suggest');
    expect(status).toContain(`workspace: ${env.ws}`);

    expect(extNoise(c)).toEqual([]); // Zed asked for no ferret extensions
    expect(backwardStatuses(c.of(sid))).toEqual([]);
    await c.close();

    // Reopen in a new process: session/load replays the thread with final statuses, the menu follows.
    const d = start(args);
    await d.initialize(ZED_CAPS);
    const loaded = await d.agent.request('session/load', { sessionId: sid, cwd: env.ws, mcpServers });
    expect(current(loaded.configOptions!, 'model')).toBe('local/beta');
    expect(current(loaded.configOptions!, 'mode')).toBe('plan');
    expect(modelValues(loaded.configOptions)).toEqual(expect.arrayContaining([`scripted:${model}`, 'local/alpha', 'local/beta']));
    await d.waitFor((m) => m['params']?.update?.sessionUpdate === 'available_commands_update');
    const replay = d.of(sid);
    expect(textOf(replay)).toContain('Creating new.txt.Done.');
    const replayRuns = statusRuns(replay);
    expect(tag(replay, 'tool_call').map((t) => replayRuns.get(t.toolCallId)!.at(-1))).toEqual(['completed', 'completed', 'completed', 'failed', 'failed']);
    expect(backwardStatuses(replay)).toEqual([]);
    expect(extNoise(d)).toEqual([]);
    expect(d.fsReads).toEqual([]);
  }, 45_000);

  it('an editor that reviews writes (reviewsWrites): the turn waits past the deadline for the person; the next command sees the accepted file; a rejection reaches the model', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'accepted\n' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'cat kept.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'refused.txt', content: 'nope\n' } }] },
        { chunks: ['Done.'] },
      ],
    });
    const c = start(['--model', `scripted:${model}`, '--client-timeout', '1', '--approval', 'full-auto']);
    // A person who takes 2.5 s (past the 1 s deadline) to accept the first write, then rejects the second.
    c.writeText = async (path, content) => {
      await new Promise((r) => setTimeout(r, 2500));
      if (path.endsWith('refused.txt')) throw new RequestError(-32050, 'the person rejected this change. Their reason: not that file');
      writeFileSync(path, content);
    };
    await c.initialize({ ...ZED_CAPS, _meta: { 'ferret.dev': { reviewsWrites: true } } });
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write both' }] });
    expect(r.stopReason).toBe('end_turn');
    const ups = c.of(sessionId);
    const calls = tag(ups, 'tool_call');
    const last = (id: string) => tag(ups, 'tool_call_update').filter((u) => u.toolCallId === id && u.status).at(-1)!;
    expect(last(calls[0]!.toolCallId).status).toBe('completed');
    expect(JSON.stringify(last(calls[1]!.toolCallId))).toContain('accepted');
    expect(last(calls[2]!.toolCallId).status).toBe('failed');
    expect(JSON.stringify(last(calls[2]!.toolCallId))).toContain('Their reason: not that file');
    expect(existsSync(join(env.ws, 'refused.txt'))).toBe(false);
  }, 45_000);

  it('an editor that never answers fs/read_text_file: ferret withdraws it, reads the disk instead (saying so once), the turn ends, the server stays responsive', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'model.json' } }] }, { chunks: ['Could not read it.'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--client-timeout', '1']);
    c.readText = (_path, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }));
    await c.initialize(ZED_CAPS);
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const t0 = Date.now();
    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the model' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(c.fsReads).toEqual([join(env.ws, 'model.json')]);
    const asked = c.inbound.find((m) => m['method'] === 'fs/read_text_file')!;
    const withdrawn = c.inbound.find((m) => m['method'] === '$/cancel_request');
    expect(withdrawn?.['params']).toMatchObject({ requestId: asked['id'] });
    const ups = c.of(sessionId);
    const call = tag(ups, 'tool_call')[0]!;
    // After the missed deadline the read is served from disk: the call completes.
    expect(statusRuns(ups).get(call.toolCallId)).toEqual(['pending', 'in_progress', 'completed']);
    expect(textOf(ups)).toMatch(/The editor did not answer fs\/read_text_file within 1 s, so ferret reads and writes files on disk itself/);
    expect(textOf(ups)).toContain('Could not read it.');
    // Still answering: a second session opens at once.
    const again = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    expect(again.sessionId).not.toBe(sessionId);
  });

  it('an unanswered permission question is denied after --permission-timeout, with a notice to a client that takes notices', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'p.txt', content: 'p' } }] }, { chunks: ['Not written.'] }],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest', '--permission-timeout', '1']);
    c.permissionPolicy = () => 'hold';
    await c.initialize({ ...ZED_CAPS, session: { notices: {} } });
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const t0 = Date.now();
    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write p' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(existsSync(join(env.ws, 'p.txt'))).toBe(false);
    await c.waitFor((m) => m['method'] === '$/cancel_request'); // the question is withdrawn from the editor
    const ups = c.of(sessionId);
    const call = tag(ups, 'tool_call')[0]!;
    expect(statusRuns(ups).get(call.toolCallId)).toEqual(['pending', 'failed']);
    const notices = ups.filter((u) => u.sessionUpdate === 'notice') as { title?: string; description?: string }[];
    expect(JSON.stringify(notices)).toMatch(/within 1 s, so it was denied/);
    expect(extNoise(c)).toEqual([]);
  });

  it('a turn on a provider without its key fails with -32000 and the auth methods tell which variable to set', async () => {
    const c = start(['--model', 'openai/gpt-5'], { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined });
    const init = await c.initialize(ZED_CAPS);
    expect(init.authMethods).toEqual(
      expect.arrayContaining([
        { id: 'env:OPENAI_API_KEY', name: expect.any(String), description: expect.stringContaining('OPENAI_API_KEY'), type: 'env_var', vars: [{ name: 'OPENAI_API_KEY' }] },
        { id: 'env:ANTHROPIC_API_KEY', name: expect.any(String), description: expect.stringContaining('ANTHROPIC_API_KEY'), type: 'env_var', vars: [{ name: 'ANTHROPIC_API_KEY' }] },
      ]),
    );
    for (const m of init.authMethods ?? []) expect(m).toMatchObject({ id: expect.stringMatching(/^env:[A-Z_]+$/), type: 'env_var', vars: [{ name: (m as { id: string }).id.slice(4) }] });
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const sessionId = s.sessionId;
    // The picker offers no OpenAI model without the key; the current one stays shown.
    expect(modelValues(s.configOptions)).toEqual(['openai/gpt-5']);
    const err = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(err).toMatchObject({ code: -32000 });
    expect(err!.message).toContain('OPENAI_API_KEY');
  });

  it('with no model and no key at all (a first run), a prompt fails with -32000 saying what to set', async () => {
    const c = start([], { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, FERRET_MODEL: undefined });
    await c.initialize(ZED_CAPS);
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await expect(c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('No model is configured') });
  });

  it('_ferret/* notifications reach only a client that lists them', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['one'] }, { chunks: ['two'] }] });
    const plain = start(['--model', `scripted:${model}`]);
    await plain.initialize(ZED_CAPS);
    const asks = start(['--model', `scripted:${model}`]);
    await asks.initialize({ ...ZED_CAPS, _meta: { 'ferret.dev': { notifications: ['_ferret/turn_end'] } } });
    for (const c of [plain, asks]) {
      const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
      expect((await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    }
    expect(extNoise(plain)).toEqual([]);
    await asks.waitFor((m) => m['method'] === '_ferret/turn_end');
    expect(new Set(extNoise(asks))).toEqual(new Set(['_ferret/turn_end']));
  });
});
