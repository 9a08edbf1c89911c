import { beforeEach, describe, expect, it } from 'vitest';
import type { FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

const TOKEN = 'tok-both-0123456789';
const SCRIPT = {
  responses: [
    { chunks: ['Writing.'], toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }, { name: 'bash', arguments: { command: 'echo ok' } }] },
    { chunks: ['Done.'] },
    { chunks: ['Second.'] },
  ],
};

describe('stdio ACP and HTTP on one process, one session', () => {
  const { env, startHttp } = ferretPerTest();
  let proc: FerretClient | undefined;
  let url: string;
  beforeEach(async () => {
    const model = writeScript(env.home, 'model.json', SCRIPT);
    ({ proc, url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN }));
  });

  it('a session made on stdio takes a message over HTTP; the stdio client gets every notification', async () => {
    const acp = proc!;
    await acp.call('initialize', {});
    const s = await acp.call('session/new', {});
    const id = s['sessionId'] as string;
    const listed = await api(url, 'GET', '/session', undefined, TOKEN);
    expect(listed.body['sessions'].map((x: { sessionId: string }) => x.sessionId)).toContain(id);

    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    const reply = await api(url, 'POST', `/session/${id}/message`, { text: 'write and run' }, TOKEN);
    expect(reply.body).toMatchObject({ stopReason: 'end_turn', message: { text: 'Done.' } });
    await sse.waitFor((fs) => fs.some((f) => f.event === 'result'));
    await acp.waitFor((m) => m['method'] === 'session/update' && m['params']?.kind === 'turn_end');

    const overSse = sse.frames.filter((f) => f.event === 'loop_event').map((f) => f.data);
    const overStdio = acp.updates(id);
    expect(overStdio.length).toBeGreaterThan(5);
    expect(overStdio).toEqual(overSse);
    expect(overStdio.map((u) => u['kind'])).toEqual(expect.arrayContaining(['tool_call_start', 'file_edit', 'tool_call_progress', 'turn_end']));
    sse.close();
  });

  it('a session made over HTTP is listed and driven on stdio, and its turn streams to SSE', async () => {
    const acp = proc!;
    await acp.call('initialize', {});
    const created = await api(url, 'POST', '/session', {}, TOKEN);
    const id = created.body['sessionId'] as string;
    const list = await acp.call('session/list', {});
    expect(list['sessions'].map((x: { sessionId: string }) => x.sessionId)).toContain(id);
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    const r = await acp.call('session/message', { sessionId: id, text: 'go' });
    expect(r['stopReason']).toBe('end_turn');
    await sse.waitFor((fs) => fs.some((f) => f.event === 'result'));
    expect(sse.frames.filter((f) => f.event === 'result')).toHaveLength(1);
    expect(sse.frames.map((f) => f.event)).toEqual(expect.arrayContaining(['code/diff', 'terminal/output', 'progress/step']));
    sse.close();
  });
});

describe('a permission request reaches both transports; the first answer wins', () => {
  const { env, startHttp } = ferretPerTest();
  let proc: FerretClient | undefined;
  let url: string;
  beforeEach(async () => {
    const model = writeScript(env.home, 'model.json', {
      responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'p.txt', content: 'p\n' } }] }, { chunks: ['Done.'] }],
    });
    ({ proc, url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'suggest'], { FERRET_SERVER_TOKEN: TOKEN }));
  });

  it('answered over HTTP, the stdio client sees it settled and its own late answer is refused', async () => {
    const acp = proc!;
    const s = await acp.call('session/new', {});
    const id = s['sessionId'] as string;
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    const reply = acp.call('session/message', { sessionId: id, text: 'write p' });
    const req = (await acp.waitFor((m) => m['params']?.kind === 'permission_request'))['params'] as { id: string };
    // The same request is on the SSE stream.
    await sse.waitFor((frames) => frames.some((f) => f.event === 'loop_event' && f.data['kind'] === 'permission_request' && f.data['id'] === req.id));
    const http = await api(url, 'POST', `/session/${id}/permission`, { id: req.id, decision: 'allow' }, TOKEN);
    expect(http.status).toBe(200);
    expect((await reply)['stopReason']).toBe('end_turn');
    const late = await acp.request('permission/respond', { sessionId: id, id: req.id, decision: 'deny' });
    expect(late['error'].message).toMatch(/already decided/);
    const again = await api(url, 'POST', `/session/${id}/permission`, { id: req.id, decision: 'deny' }, TOKEN);
    expect(again.status).toBe(409);
    sse.close();
  });
});
