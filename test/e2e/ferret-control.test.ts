import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

function writeThenSay(path: string) {
  return {
    responses: [
      { chunks: ['Writing.'], toolCalls: [{ name: 'write_file', arguments: { path, content: 'x = 1\n' } }] },
      { chunks: ['Finished.'] },
    ],
  };
}

function historyOf(home: string, sessionId: string): Json[] {
  return readFileSync(join(home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json)
    .filter((e) => e['type'] === 'message')
    .map((e) => e['data'].message as Json);
}

describe('ferret dialect: permissions, cancel, control methods, persistence', () => {
  const { env, start } = ferretPerTest();

  it('under suggest, deny ends the write as denied and the model is told why', async () => {
    const model = writeScript(env.ws, 'm.json', writeThenSay('a.py'));
    const srv = start(['--approval', 'suggest', '--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    const reply = srv.call('session/message', { sessionId: s['sessionId'], text: 'write a.py' });
    const req = (await srv.waitFor((m) => m['params']?.kind === 'permission_request'))['params'] as Json;
    expect(req).toMatchObject({ tool: 'write_file', args: { path: 'a.py', content: 'x = 1\n' } });
    expect(['low', 'medium', 'high']).toContain(req['risk']);
    expect(existsSync(join(env.ws, 'a.py'))).toBe(false); // it waits
    expect(await srv.call('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'deny' })).toEqual({ ok: true });
    expect((await reply)['stopReason']).toBe('end_turn');
    const end = srv.updates(s['sessionId']).find((u) => u['kind'] === 'tool_call_end')!;
    expect(end['result'].status).toBe('denied');
    expect(existsSync(join(env.ws, 'a.py'))).toBe(false);
    // What the model receives next: the tool result saying the user denied it.
    const toolMsg = historyOf(env.home, s['sessionId']).find((m) => m['role'] === 'tool')!;
    expect(toolMsg['results'][0]).toMatchObject({ name: 'write_file', status: 'denied' });
    expect(toolMsg['results'][0].output).toMatch(/denied/);
    // A second answer to the same request is refused, not silently accepted.
    const again = await srv.request('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'allow' });
    expect(again['error'].message).toMatch(/already decided/);
  });

  it('under suggest, allow runs the write', async () => {
    const model = writeScript(env.ws, 'm.json', writeThenSay('b.py'));
    const srv = start(['--approval', 'suggest', '--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    const reply = srv.call('session/message', { sessionId: s['sessionId'], text: 'write b.py' });
    const req = (await srv.waitFor((m) => m['params']?.kind === 'permission_request'))['params'] as Json;
    await srv.call('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'allow' });
    expect((await reply)['stopReason']).toBe('end_turn');
    expect(readFileSync(join(env.ws, 'b.py'), 'utf8')).toBe('x = 1\n');
    const kinds = srv.kinds(s['sessionId']);
    expect(kinds.indexOf('permission_request')).toBeLessThan(kinds.indexOf('file_edit'));
  });

  it('cancel during a long command ends the turn cancelled within a second and kills the process group', async () => {
    const marker = `${(Math.random() * 1000 + 100).toFixed(3)}`;
    const model = writeScript(env.ws, 'm.json', {
      responses: [{ chunks: ['sleeping'], toolCalls: [{ name: 'bash', arguments: { command: `echo started; sleep ${marker} & sleep ${marker}` } }] }],
    });
    const srv = start(['--approval', 'full-auto', '--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    const reply = srv.call('session/message', { sessionId: s['sessionId'], text: 'sleep' });
    await srv.waitFor((m) => m['params']?.kind === 'tool_call_progress');
    const t0 = Date.now();
    expect(await srv.call('session/cancel', { sessionId: s['sessionId'] })).toEqual({ ok: true });
    const r = await reply;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(r['stopReason']).toBe('cancelled');
    const end = srv.updates(s['sessionId']).find((u) => u['kind'] === 'tool_call_end')!;
    expect(end['result'].status).toBe('cancelled');
    expect(srv.updates(s['sessionId']).at(-1)).toMatchObject({ kind: 'turn_end', stop_reason: 'cancelled' });
    await new Promise((res) => setTimeout(res, 200));
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps).not.toContain(`sleep ${marker}`);
  });

  it('answers the control methods and JSON-RPC garbage without dying', async () => {
    const srv = start([]);
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    expect(await srv.call('session/setApproval', { sessionId: id, preset: 'suggest' })).toEqual({ old: 'auto', new: 'suggest' });
    const changed = await srv.waitFor((m) => m['params']?.kind === 'approval_changed');
    expect(changed['params']).toMatchObject({ sessionId: id, old: 'auto', new: 'suggest' });

    expect(await srv.call('session/setSandbox', { sessionId: id })).toEqual({ mode: 'workspace-write' });
    const sb = await srv.call('session/setSandbox', { sessionId: id, mode: 'danger-full-access' });
    expect(sb['mode']).toBe('workspace-write');
    expect(sb['message']).toMatch(/restart required/);
    expect(await srv.call('session/bridgeStatus', { sessionId: id })).toEqual({ attached: false, relay: null, pairingUrl: null, devices: 0, lastError: null, reconnects: 0 });
    expect(await srv.call('session/setMode', { sessionId: id, mode: 'plan' })).toEqual({ mode: 'plan' });

    const unknown = await srv.request('session/fly', {});
    expect(unknown['error'].code).toBe(-32601);

    srv.sendRaw('{"jsonrpc":"2.0","id":77,"method":');
    const parse = await srv.waitFor((m) => m['error']?.code === -32700);
    expect(parse['id']).toBeNull();

    const bad = await srv.request('session/message', { sessionId: id, text: 42 });
    expect(bad['error'].code).toBe(-32602);
    expect(bad['error'].message).toContain('text');
    const badPreset = await srv.request('session/setApproval', { sessionId: id, preset: 'yolo' });
    expect(badPreset['error'].code).toBe(-32602);
    expect(badPreset['error'].message).toContain('preset');

    const invalid = await srv.request('', {});
    expect(invalid['error'].code).toBe(-32600);
    const missing = await srv.request('session/message', { sessionId: 'no-such-session', text: 'hi' });
    expect(missing['error'].message).toMatch(/no session/);

    // Still answering, and string ids work.
    const list = await srv.request('session/list', {}, 'str-id');
    expect(list['id']).toBe('str-id');
    expect(list['result'].sessions.map((x: Json) => x['sessionId'])).toContain(id);
  });

  it('a second process lists, loads and continues the conversation', async () => {
    const model = writeScript(env.ws, 'm.json', {
      responses: [{ chunks: ['First answer.'] }, { chunks: ['Second answer, after reload.'] }],
    });
    const a = start(['--model', `scripted:${model}`]);
    const s = await a.call('session/new', {});
    const id = s['sessionId'] as string;
    expect((await a.call('session/message', { sessionId: id, text: 'question one' }))['message'].text).toBe('First answer.');
    await a.close();

    const b = start([]);
    const list = await b.call('session/list', {});
    const entry = list['sessions'].find((x: Json) => x['sessionId'] === id);
    expect(entry).toMatchObject({ cwd: env.ws, title: 'question one', model: `scripted:${model}` });
    expect(typeof entry['createdAt']).toBe('string');
    const loaded = await b.call('session/load', { sessionId: id });
    expect(loaded).toMatchObject({ sessionId: id, model: `scripted:${model}` });
    // History was replayed before the answer.
    const replayed = b.updates(id);
    expect(replayed.map((u) => u['kind'])).toEqual(expect.arrayContaining(['user_message_chunk', 'agent_message_chunk', 'turn_end']));
    expect(replayed.find((u) => u['kind'] === 'agent_message_chunk')!['text']).toBe('First answer.');
    const loadAnswerIndex = b.messages.findIndex((m) => m['result']?.sessionId === id);
    const lastReplay = b.messages.findLastIndex((m) => m['method'] === 'session/update');
    expect(lastReplay).toBeLessThan(loadAnswerIndex);

    const r = await b.call('session/message', { sessionId: id, text: 'question two' });
    expect(r['message'].text).toBe('Second answer, after reload.');
    const history = historyOf(env.home, id);
    expect(history.map((m) => m['role'])).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a request pipelined right behind initialize reaches the dialect initialize chose', async () => {
    const srv = start([]);
    srv.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    const created = srv.request('session/new', { cwd: env.ws, mcpServers: [] });
    const init = await srv.waitFor((m) => m['id'] === 'init');
    expect(init['result'].protocolVersion).toBe(1);
    const r = (await created)['result'] as Json;
    expect(r['sessionId']).toEqual(expect.any(String));
    expect(r).toHaveProperty('configOptions'); // the ACP v1 answer, not the ferret dialect's
    expect(r).not.toHaveProperty('sandbox');
    // Answers go out in the order the requests came.
    expect(srv.messages.findIndex((m) => m['id'] === 'init')).toBeLessThan(srv.messages.findIndex((m) => m['result']?.sessionId));
  });

  it('stdin closing while a turn waits for permission ends the turn cancelled, logs it, and exits 0', async () => {
    const model = writeScript(env.ws, 'm.json', writeThenSay('c.py'));
    const srv = start(['--approval', 'suggest', '--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    void srv.request('session/message', { sessionId: s['sessionId'], text: 'write c.py' });
    await srv.waitFor((m) => m['params']?.kind === 'permission_request');
    expect(await srv.close()).toBe(0);
    const log = readFileSync(join(env.home, 'eventlog', `ferret-${s['sessionId']}`, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(log.at(-1)).toMatchObject({ type: 'turn_end', data: { stopReason: 'cancelled' } });
    expect(log.find((e) => e['type'] === 'tool_call_end')).toMatchObject({ data: { status: 'cancelled' } });
    expect(existsSync(join(env.ws, 'c.py'))).toBe(false);
  });
});
