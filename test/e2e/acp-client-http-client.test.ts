// Third-party client: acp-http-client 0.4 (npm; Sandbox Agent's "ACP over streamable HTTP" client,
// on the SDK 0.16 it depends on). It speaks the path-scoped profile: the client names its connection
// in the path, POSTs messages, reads an SSE stream from GET and ends with DELETE; no header carries
// an identity. ferret serves it at /acp/{name}, on the same live sessions as the stdio editor and
// the SSE readers. What its user sees is asserted; every message ferret sent is schema-checked.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpHttpClient } from 'acp-http-client';
import { describe, expect, it } from 'vitest';
import { v1PerTest, v1SchemaErrors } from '../support/acp-v1-client.js';
import { backwardStatuses, statusRuns } from '../support/acp-status.js';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Update = acp.SessionUpdate;
const textOf = (ups: Update[]) => ups.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');

/** acp-http-client as its README shows it, with what crossed the wire recorded. */
function remote(url: string, name: string, answer: (p: acp.RequestPermissionRequest) => acp.PermissionOptionKind | 'hold', token?: string) {
  const inbound: Msg[] = [];
  const sent = new Map<string | number, string>();
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const client = new AcpHttpClient({
    baseUrl: url,
    ...(token ? { token } : {}),
    transport: { path: `/acp/${name}` },
    onEnvelope: (m, direction) => {
      const o = m as Msg;
      if (direction === 'inbound') inbound.push(o);
      else if ('method' in o && 'id' in o) sent.set(o['id'], o['method']);
    },
    client: {
      requestPermission: async (p: acp.RequestPermissionRequest) => {
        permissions.push(p);
        const kind = answer(p);
        if (kind === 'hold') return new Promise(() => {});
        return { outcome: { outcome: 'selected', optionId: p.options.find((o) => o.kind === kind)!.optionId } };
      },
      sessionUpdate: async (n) => void updates.push(n),
    },
  });
  const waitFor = async (pred: (m: Msg) => boolean, ms = 10_000) => {
    const t0 = Date.now();
    while (!inbound.some(pred)) {
      if (Date.now() - t0 > ms) throw new Error(`timed out; the client got ${inbound.map((m) => m['method'] ?? `answer ${m['id']}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const of = (sid: string) => updates.filter((u) => u.sessionId === sid).map((u) => u.update);
  return { client, inbound, updates, permissions, waitFor, of, schemaErrors: () => v1SchemaErrors(inbound, sent) };
}

describe('acp-http-client at /acp/{name}', () => {
  const { env, start } = v1PerTest();

  it('initialize, new session, a prompt with a tool call and a permission, Stop, load from a new connection — beside a stdio editor and an SSE reader on the same turn', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { chunks: ['Writing ', 'it.'], toolCalls: [{ name: 'write_file', arguments: { path: 'r.txt', content: 'R\n' } }] },
        { chunks: ['Done.'] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
        { chunks: ['never said'] },
      ],
    });
    const ed = start(['--model', `scripted:${model}`, '--approval', 'suggest', '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await ed.httpUrl();
    await ed.initialize();
    ed.permissionPolicy = () => 'hold';

    const r = remote(url, 'remote-1', () => 'allow_once');
    const init = await r.client.initialize({ clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const s = await r.client.newSession({ cwd: env.ws, mcpServers: [] });
    const sid = s.sessionId;
    expect(s.configOptions?.map((o) => o.id)).toEqual(['mode', 'model', 'reasoning', 'approval']);
    await ed.agent.request('session/load', { sessionId: sid, cwd: env.ws, mcpServers: [] });
    const sse = new SseClient(url, `/session/${sid}/events`);
    expect(await sse.opened).toBe(200);

    // The remote client's prompt; the permission is asked of both, it answers, the editor's is withdrawn.
    const answer = await r.client.prompt({ sessionId: sid, prompt: [{ type: 'text', text: 'write r' }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(readFileSync(join(env.ws, 'r.txt'), 'utf8')).toBe('R\n');
    expect(r.permissions).toHaveLength(1);
    await ed.waitFor((m) => m['method'] === '$/cancel_request');
    // Every update was delivered before the prompt's answer (they share one ordered stream).
    expect(textOf(r.of(sid))).toBe('Writing it.Done.');
    const [callId] = r.of(sid).flatMap((u) => (u.sessionUpdate === 'tool_call' ? [u.toolCallId] : []));
    expect(statusRuns(r.of(sid)).get(callId!)).toEqual(['pending', 'in_progress', 'completed']);
    await ed.waitFor((m) => m['params']?.update?.content?.text === 'Done.');
    expect(textOf(ed.of(sid))).toBe('Writing it.Done.');
    await sse.waitFor((frames) => frames.some((f) => f.event === 'result'));
    const loop = sse.frames.filter((f) => f.event === 'loop_event').map((f) => f.data);
    expect(loop.filter((d) => d['kind'] === 'agent_message_chunk').map((d) => d['text']).join('')).toBe('Writing it.Done.');
    expect(loop.filter((d) => d['kind'] === 'tool_call_start').map((d) => d['id'])).toEqual([callId]);

    // Stop during `sleep 30`.
    const sleeping = r.client.prompt({ sessionId: sid, prompt: [{ type: 'text', text: 'sleep' }] });
    await r.waitFor((m) => m['params']?.update?.status === 'in_progress' && m['params'].update.toolCallId !== callId);
    const t0 = Date.now();
    await r.client.cancel({ sessionId: sid });
    expect((await sleeping).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(5000); // not the 30 s sleep
    expect(backwardStatuses(r.of(sid))).toEqual([]);
    expect(r.schemaErrors()).toEqual([]);
    expect(r.inbound.filter((m) => String(m['method'] ?? '').startsWith('_'))).toEqual([]);
    await r.client.disconnect();

    // A new connection (another name) loads the session: the whole thread with final statuses.
    const r2 = remote(url, 'remote-2', () => 'allow_once');
    await r2.client.initialize({ clientCapabilities: {} });
    await r2.client.loadSession({ sessionId: sid, cwd: env.ws, mcpServers: [] });
    const replay = r2.of(sid);
    expect(textOf(replay)).toBe('Writing it.Done.');
    expect([...statusRuns(replay).values()].map((run) => run.at(-1))).toEqual(['completed', 'failed']);
    const st = await r2.client.prompt({ sessionId: sid, prompt: [{ type: 'text', text: '/status' }] });
    expect(st.stopReason).toBe('end_turn');
    expect(textOf(r2.of(sid).slice(replay.length))).toContain('approval: suggest');
    expect(r2.schemaErrors()).toEqual([]);
    await r2.client.disconnect();
    sse.close();
    expect(existsSync(join(env.ws, 'never'))).toBe(false);
  }, 40_000);

  it("a prompt's answer reaches the stdio editor before the next turn's updates; a prompt queued by a client that leaves is withdrawn, never run", async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { chunks: ['A1 ', 'A2'], delayMs: 50 },
        { chunks: ['B1'] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 1' } }] },
        { chunks: ['slept'] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'ghost.txt', content: 'should never be written\n' } }] },
      ],
    });
    const ed = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await ed.httpUrl();
    await ed.initialize();
    const { sessionId } = await ed.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const joinAs = async (name: string) => {
      expect((await api(url, 'POST', `/acp/${name}`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })).status).toBe(200);
      expect((await api(url, 'POST', `/acp/${name}`, { jsonrpc: '2.0', id: 2, method: 'session/load', params: { sessionId, cwd: env.ws, mcpServers: [] } })).status).toBe(200);
    };
    const prompt = (name: string, text: string) => api(url, 'POST', `/acp/${name}`, { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text }] } });
    await joinAs('b');
    const a = ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'from A' }] });
    await ed.waitFor((m) => m['params']?.update?.content?.text === 'A1 ');
    const b = prompt('b', 'from B'); // waits for A's turn
    expect((await a).stopReason).toBe('end_turn');
    expect((await b).body).toMatchObject({ result: { stopReason: 'end_turn' } });
    await ed.waitFor((m) => m['params']?.update?.content?.text === 'B1');
    const answerAt = ed.inbound.findIndex((m) => m['result']?.stopReason === 'end_turn');
    const bAt = ed.inbound.findIndex((m) => m['params']?.update?.sessionUpdate === 'user_message_chunk' && m['params'].update.content.text === 'from B');
    expect(answerAt).toBeGreaterThan(-1);
    expect(bAt).toBeGreaterThan(answerAt);
    // The editor can say who sent it: another ACP client, not this one.
    expect(ed.inbound[bAt]!['params'].update._meta['ferret.dev'].origin).toMatch(/^acp:/);

    // C queues a prompt behind the editor's `sleep 1`, then leaves: its prompt is withdrawn.
    await joinAs('c');
    const sleeping = ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await ed.waitFor((m) => m['params']?.update?.status === 'in_progress');
    const c = prompt('c', 'from C');
    await new Promise((r) => setTimeout(r, 100));
    expect((await api(url, 'DELETE', '/acp/c')).status).toBe(204);
    expect((await c).status).toBe(404);
    expect((await sleeping).stopReason).toBe('end_turn');
    await new Promise((r) => setTimeout(r, 500));
    expect(ed.inbound.some((m) => m['params']?.update?.content?.text === 'from C')).toBe(false);
    expect(existsSync(join(env.ws, 'ghost.txt'))).toBe(false);
    expect((await api(url, 'GET', `/session/${sessionId}`)).body).toMatchObject({ status: 'idle' });
  });

  it('the wire: the token and Host checks, a POST answered in its body with no stream open, replay by Last-Event-ID, DELETE, bad input named', async () => {
    const token = 'test-token-' + Math.random().toString(36).slice(2);
    const model = writeScript(env.ws, 'model.json', { contextWindow: 32_000, responses: [{ chunks: ['authorised'] }, { chunks: ['again'] }] });
    const ed = start(['--model', `scripted:${model}`, '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: token });
    const url = await ed.httpUrl();
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
    expect((await api(url, 'POST', '/acp/wire', init)).status).toBe(401);
    expect((await api(url, 'GET', '/acp/wire', undefined, undefined, { accept: 'text/event-stream' })).status).toBe(401);
    expect((await api(url, 'POST', '/acp/wire', init, token, { host: `evil.example:${new URL(url).port}` })).status).toBe(403);

    // No SSE reader yet: the answer is the POST's body.
    const first = await api(url, 'POST', '/acp/wire', init, token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } });
    // A notification is accepted with 202; what ferret sends meanwhile waits for the reader.
    const created = await api(url, 'POST', '/acp/wire', { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: env.ws, mcpServers: [] } }, token);
    const sid = created.body['result'].sessionId as string;
    expect((await api(url, 'POST', '/acp/wire', { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: sid } }, token)).status).toBe(202);
    const promptMsg = (id: number) => ({ jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: 'hi' }] } });
    expect((await api(url, 'POST', '/acp/wire', promptMsg(3), token)).body).toMatchObject({ id: 3, result: { stopReason: 'end_turn' } });
    // The first reader gets everything queued so far, numbered from 1.
    const sse = new SseClient(url, '/acp/wire', { token });
    await sse.waitFor((frames) => frames.some((f) => f.data?.params?.update?.content?.text === 'authorised'));
    await sse.waitFor((frames) => frames.some((f) => f.data?.params?.update?.sessionUpdate === 'usage_update'));
    expect(sse.frames[0]!.data.params.update.sessionUpdate).toBe('available_commands_update');
    expect(sse.frames.every((f, i) => f.event === 'message' && Number(f.id) === i + 1)).toBe(true);
    sse.close();
    // Reconnecting from an id replays only what followed it.
    const again = new SseClient(url, '/acp/wire', { token, lastEventId: '1' });
    await again.waitFor((frames) => frames.length >= sse.frames.length - 1);
    expect(again.frames.map((f) => f.id)).toEqual(sse.frames.slice(1).map((f) => f.id));
    // With a reader attached, a request's answer travels on the stream (in order behind the updates).
    const prompt = await api(url, 'POST', '/acp/wire', promptMsg(4), token);
    expect(prompt.status).toBe(200);
    expect(prompt.text).toBe('');
    await again.waitFor((frames) => frames.some((f) => f.data?.id === 4));
    const tail = again.frames.map((f) => f.data);
    const answerAt = tail.findIndex((m) => m.id === 4);
    expect(tail[answerAt]!['result'].stopReason).toBe('end_turn');
    expect(tail.slice(sse.frames.length - 1, answerAt).some((m) => m.params?.update?.content?.text === 'again')).toBe(true);
    again.close();

    // Bad input is refused with the reason; the server goes on.
    expect((await api(url, 'POST', '/acp/wire', 'not json', token, { 'content-type': 'text/plain' })).status).toBe(415);
    const badName = await api(url, 'POST', '/acp/' + 'x'.repeat(200), init, token);
    expect(badName.status).toBe(404);
    expect(JSON.stringify(badName.body)).toContain('1-128 letters');
    expect((await api(url, 'POST', '/acp/wire', [init], token)).status).toBe(400);
    // A name never initialized here (a restart, another server behind a balancer) is refused.
    const stranger = await api(url, 'POST', '/acp/never-seen', { jsonrpc: '2.0', id: 9, method: 'session/new', params: { cwd: env.ws, mcpServers: [] } }, token);
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.body)).toContain('send initialize first');
    const bad = await api(url, 'POST', '/acp/wire', { jsonrpc: '2.0', id: 5, method: 'session/prompt', params: { sessionId: 42 } }, token);
    expect(bad.body['error'].code).toBe(-32602);
    // Another client on a name whose stream is open (no Last-Event-ID: not a reconnect) is refused.
    const reader = new SseClient(url, '/acp/wire', { token, lastEventId: '100000' });
    expect(await reader.opened).toBe(200);
    expect((await api(url, 'GET', '/acp/wire', undefined, token, { accept: 'text/event-stream' })).status).toBe(409);
    expect((await api(url, 'POST', '/acp/wire', init, token)).status).toBe(409);
    reader.close();
    expect((await api(url, 'DELETE', '/acp/wire', undefined, token)).status).toBe(204);
    expect((await api(url, 'DELETE', '/acp/wire', undefined, token)).status).toBe(404);
    expect((await api(url, 'GET', `/session/${sid}`, undefined, token)).body).toMatchObject({ sessionId: sid });
  });
});
