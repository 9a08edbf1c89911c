import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// A client that comes back as a new connection (the VS Code extension after a window reload)
// continues its old one: `continues` with the clientId the old initialize answered. The turn the
// old connection started keeps going: the write it holds for review is answered by its request id
// on the old connection, and the turn's next write goes to the new connection, not the dead one.

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const FS = { readTextFile: true, writeTextFile: true };
const caps = (more: Record<string, unknown> = {}) => ({ fs: FS, _meta: { 'ferret.dev': { reviewsWrites: true, notifications: ['_ferret/turn_end'], ...more } } });
const rpc = (id: number | string, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });
const messages = (s: SseClient): Msg[] => s.frames.map((f: { data: Msg }) => f.data);

describe('ACP over HTTP: a connection that continues another', () => {
  const { env, start } = v1PerTest();

  it("takes over the old connection's turn: its held write answered by id there, the next write asked here", async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'first\n' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'second\n' } }] },
        { chunks: ['both written'] },
      ],
    });
    const ed = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await ed.httpUrl();
    await ed.initialize();

    // The first window: initialize, a stream, a session and a prompt whose write it holds.
    const init = await api(url, 'POST', '/acp/win-1', rpc(1, 'initialize', { protocolVersion: 1, clientCapabilities: caps() }));
    const clientId = init.body.result.agentCapabilities._meta['ferret.dev'].clientId as string;
    expect(clientId).toMatch(/^acp:/);
    const one = new SseClient(url, '/acp/win-1');
    const created = await api(url, 'POST', '/acp/win-1', rpc(2, 'session/new', { cwd: env.ws, mcpServers: [] }));
    const sessionId = (created.body.result ?? messages(one).find((m) => m['id'] === 2)?.['result'])?.sessionId as string | undefined;
    await one.waitFor(() => sessionId !== undefined || messages(one).some((m) => m['id'] === 2));
    const sid = sessionId ?? (messages(one).find((m) => m['id'] === 2)!['result'].sessionId as string);
    void api(url, 'POST', '/acp/win-1', rpc(3, 'session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'write both' }] }));
    await one.waitFor(() => messages(one).some((m) => m['method'] === 'fs/write_text_file'));
    const held = messages(one).find((m) => m['method'] === 'fs/write_text_file')!;
    expect(held['params'].path).toBe(join(env.ws, 'a.txt'));
    one.close(); // the window reloads: its stream is gone, the write still held

    // The reloaded window: a new connection that continues the first, loads the session (running).
    const again = await api(url, 'POST', '/acp/win-2', rpc(1, 'initialize', { protocolVersion: 1, clientCapabilities: caps({ continues: clientId }) }));
    expect(again.body.result.agentCapabilities._meta['ferret.dev'].clientId).toBe(clientId);
    const two = new SseClient(url, '/acp/win-2');
    // (the answer is the POST's body until the stream is attached, then it travels on the stream)
    const loaded = await api(url, 'POST', '/acp/win-2', rpc(2, 'session/load', { sessionId: sid, cwd: env.ws, mcpServers: [] }));
    await two.waitFor(() => loaded.body.result !== undefined || messages(two).some((m) => m['id'] === 2));
    const loadAnswer = loaded.body.result ?? messages(two).find((m) => m['id'] === 2)!['result'];
    expect(loadAnswer._meta['ferret.dev'].status).toBe('running');

    // Accept in the new window answers the old request by its id on the old connection: the turn goes on,
    // and its next write is asked of the new connection.
    expect((await api(url, 'POST', '/acp/win-1', { jsonrpc: '2.0', id: held['id'], result: {} })).status).toBe(202);
    await two.waitFor(() => messages(two).some((m) => m['method'] === 'fs/write_text_file'));
    const next = messages(two).find((m) => m['method'] === 'fs/write_text_file')!;
    expect(next['params'].path).toBe(join(env.ws, 'b.txt'));
    // The old connection is let go; the new one answers; the turn ends where the new window sees it.
    expect((await api(url, 'DELETE', '/acp/win-1')).status).toBe(204);
    expect((await api(url, 'POST', '/acp/win-2', { jsonrpc: '2.0', id: next['id'], result: {} })).status).toBe(202);
    await two.waitFor(() => messages(two).some((m) => m['method'] === '_ferret/turn_end'));
    expect(messages(two).find((m) => m['method'] === '_ferret/turn_end')!['params'].stopReason).toBe('end_turn');
    const said = messages(two).filter((m) => m['params']?.update?.sessionUpdate === 'agent_message_chunk').map((m) => m['params'].update.content.text).join('');
    expect(said).toContain('both written');
    // The extension writes on Accept (the client holds the file); ferret wrote neither itself.
    expect(existsSync(join(env.ws, 'a.txt')) || existsSync(join(env.ws, 'b.txt'))).toBe(false);
    two.close();
  }, 30_000);

  it('refuses a continues that is not a clientId, naming the field', async () => {
    const ed = start(['--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await ed.httpUrl();
    await ed.initialize();
    const r = await api(url, 'POST', '/acp/bad', rpc(1, 'initialize', { protocolVersion: 1, clientCapabilities: caps({ continues: 'someone else' }) }));
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain('continues');
  });
});
